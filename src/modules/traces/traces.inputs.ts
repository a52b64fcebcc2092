import { Max, MaxLength, Min } from 'class-validator';
import { ArgsType, Field, Int } from 'type-graphql';
import { PageArg } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';
import { SpanOrderBy, SpanOrderDirection } from './traces.types';

@ArgsType()
export class TraceListArgs {
  @PageArg()
  page?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: 20, description: 'Traces per page, 1 to 100 (default 20).' })
  @Min(1)
  @Max(100)
  page_size?: number | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Only traces of this project of the workspace (404 for another).' })
  project_id?: string | null;

  @Field(() => String, { nullable: true, description: "Only traces whose root span has this `dreadnode.type` (task, evaluation, study, …)." })
  @MaxLength(100)
  span_type?: string | null;
}

/** Spans of a window when no `limit` is given. */
export const DEFAULT_SPAN_PAGE = 100;

@ArgsType()
export class SpanListArgs {
  @Field(() => Int, { nullable: true, defaultValue: DEFAULT_SPAN_PAGE, description: `Spans to return, 1 to 1000 (default ${DEFAULT_SPAN_PAGE}).` })
  @Min(1)
  @Max(1000)
  limit?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: 0, description: 'Spans to skip, 0 to 1,000,000.' })
  @Min(0)
  @Max(1_000_000)
  offset?: number | null;

  @Field(() => SpanOrderBy, { nullable: true, defaultValue: SpanOrderBy.Timestamp, description: 'Order by start time, duration or name (default Timestamp).' })
  order_by?: SpanOrderBy | null;

  @Field(() => SpanOrderDirection, { nullable: true, defaultValue: SpanOrderDirection.ASC, description: 'ASC (default) or DESC.' })
  order_dir?: SpanOrderDirection | null;
}

@ArgsType()
export class TraceItemsArgs {
  @Field(() => Int, { nullable: true, defaultValue: 1000, description: 'Items to return, 1 to 10,000 (an evaluation holds at most 10,000 tasks; default 1000).' })
  @Min(1)
  @Max(10_000)
  limit?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: 0, description: 'Items to skip, 0 to 20,000.' })
  @Min(0)
  @Max(20_000)
  offset?: number | null;
}
