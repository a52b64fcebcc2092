import { MaxLength, Max, Min } from 'class-validator';
import { ArgsType, Field, Int } from 'type-graphql';
import { JSONObjectScalar, UUIDScalar } from '../../core/scalars';
import { ApiInput } from '../../core/validation/api-input';
import { SessionGroupKindEnum, SessionGroupStatusEnum } from './session-groups.types';

/** Body of create session group (spec 3). */
@ApiInput('SessionGroupCreateRequest')
export class SessionGroupCreateRequest {
  @Field(() => SessionGroupKindEnum)
  kind: SessionGroupKindEnum;

  @Field(() => UUIDScalar, { description: 'A project of the workspace.' })
  project_id: string;

  @Field(() => String, { nullable: true })
  @MaxLength(255)
  capability?: string | null;

  @Field(() => String, { nullable: true })
  @MaxLength(255)
  capability_version?: string | null;

  @Field(() => String, { nullable: true })
  @MaxLength(255)
  title?: string | null;

  @Field(() => String, { nullable: true })
  @MaxLength(255)
  worker?: string | null;

  @Field(() => UUIDScalar, { nullable: true })
  evaluation_id?: string | null;

  @Field(() => UUIDScalar, { nullable: true })
  evaluation_item_id?: string | null;

  @Field(() => UUIDScalar, { nullable: true })
  evaluation_item_attempt_id?: string | null;

  @Field(() => UUIDScalar, { nullable: true })
  runtime_id?: string | null;

  @Field(() => JSONObjectScalar, { nullable: true })
  metadata?: Record<string, unknown> | null;

  @Field(() => SessionGroupStatusEnum, { nullable: true, description: 'running sets started_at; a terminal status sets completed_at.' })
  status?: SessionGroupStatusEnum | null;
}

@ApiInput('SessionGroupUpdateRequest')
export class SessionGroupUpdateRequest {
  @Field(() => String, { nullable: true })
  @MaxLength(255)
  title?: string | null;

  @Field(() => SessionGroupStatusEnum, { nullable: true })
  status?: SessionGroupStatusEnum | null;
}

@ArgsType()
export class SessionGroupListArgs {
  @Field(() => Int, { nullable: true, description: 'Default 1.' })
  @Min(1)
  page?: number | null;

  @Field(() => Int, { nullable: true, description: '1 to 100, default 20.' })
  @Min(1)
  @Max(100)
  limit?: number | null;

  @Field(() => [SessionGroupKindEnum], { nullable: true, description: 'Repeatable; OR.' })
  kind?: SessionGroupKindEnum[] | null;

  @Field(() => [SessionGroupStatusEnum], { nullable: true, description: 'Repeatable; OR.' })
  status?: SessionGroupStatusEnum[] | null;

  @Field(() => UUIDScalar, { nullable: true })
  project_id?: string | null;
}
