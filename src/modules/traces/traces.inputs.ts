import { Max, MaxLength, Min } from 'class-validator';
import { ArgsType, Field, Int } from 'type-graphql';
import { PageArg, PageSizeArg, type PageSize } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';
import { SpanOrderBy, SpanOrderDirection } from './traces.types';

/** A page of traces. */
export const TRACE_PAGE: PageSize = { max: 100, fallback: 20 };

@ArgsType()
export class TraceListArgs {
  @PageArg()
  page?: number | null;

  @PageSizeArg(TRACE_PAGE, 'Traces per page')
  page_size?: number | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Only traces of this project (a project of another workspace is 404).' })
  project_id?: string | null;

  @Field(() => String, { nullable: true, description: "Only traces whose root span has this `dreadnode.type` (task, evaluation, study, …)." })
  @MaxLength(100)
  span_type?: string | null;
}

/** Spans of one read of a trace. */
export const SPAN_PAGE: PageSize = { max: 1000, fallback: 100 };

@ArgsType()
export class SpanListArgs {
  @PageSizeArg(SPAN_PAGE, 'Spans to return')
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

/** An evaluation's traces per item, in one read. */
export const TRACE_ITEM_PAGE: PageSize = { max: 10_000, fallback: 1000 };

@ArgsType()
export class TraceItemsArgs {
  @PageSizeArg(TRACE_ITEM_PAGE, 'Items to return', 'an evaluation holds at most 10,000 tasks')
  limit?: number | null;

  @Field(() => Int, { nullable: true, defaultValue: 0, description: 'Items to skip, 0 to 20,000.' })
  @Min(0)
  @Max(20_000)
  offset?: number | null;
}
