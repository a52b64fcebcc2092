import { ArrayMaxSize, MaxLength } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { MAX_FILTER_VALUES, PageArg, PageSizeArg, type PageSize } from '../../core/pagination';
import { JSONObjectScalar, UUIDScalar } from '../../core/scalars';
import { ApiInput } from '../../core/validation/api-input';
import { FREE_FORM_JSON_LIMIT, FreeFormJson } from '../../core/validation/json-bytes';
import { SessionGroupKindEnum, SessionGroupStatusEnum } from './session-groups.types';

/** Body of create session group (spec 3). */
@ApiInput('SessionGroupCreateRequest', { example: { kind: 'worker_run', project_id: '5a0c9a8e-1f0b-4d6c-8a8e-3f7b2d1c9e40', title: 'Nightly worker run' }, description: 'A new session group.' })
export class SessionGroupCreateRequest {
  @Field(() => SessionGroupKindEnum, { description: 'What the group stands for.' })
  kind: SessionGroupKindEnum;

  @Field(() => UUIDScalar, { description: 'A project of the workspace.' })
  project_id: string;

  @Field(() => String, { nullable: true, description: 'Capability name, at most 255 characters.' })
  @MaxLength(255)
  capability?: string | null;

  @Field(() => String, { nullable: true, description: 'Capability version, at most 255 characters.' })
  @MaxLength(255)
  capability_version?: string | null;

  @Field(() => String, { nullable: true, description: 'Title, at most 255 characters.' })
  @MaxLength(255)
  title?: string | null;

  @Field(() => String, { nullable: true, description: 'Worker name, at most 255 characters.' })
  @MaxLength(255)
  worker?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'An evaluation of the workspace (404 otherwise).' })
  evaluation_id?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'An evaluation item of the workspace, of `evaluation_id` when both are given (404 otherwise).' })
  evaluation_item_id?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "The evaluation item attempt's id, stored as given." })
  evaluation_item_attempt_id?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: "The runtime's id, stored as given." })
  runtime_id?: string | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: `Free-form metadata stored with the group (not returned); ${FREE_FORM_JSON_LIMIT}.` })
  @FreeFormJson()
  metadata?: Record<string, unknown> | null;

  @Field(() => SessionGroupStatusEnum, { nullable: true, description: 'running sets started_at; a terminal status sets completed_at.' })
  status?: SessionGroupStatusEnum | null;
}

@ApiInput('SessionGroupUpdateRequest', { description: 'Changes to a session group: an absent field stays as it is.' })
export class SessionGroupUpdateRequest {
  @Field(() => String, { nullable: true, description: 'New title, at most 255 characters; null clears it.' })
  @MaxLength(255)
  title?: string | null;

  @Field(() => SessionGroupStatusEnum, { nullable: true, description: 'New status (running sets started_at; a terminal status sets completed_at); null leaves it unchanged.' })
  status?: SessionGroupStatusEnum | null;
}

/** A page of session groups. */
export const GROUP_PAGE: PageSize = { max: 100, fallback: 20 };

@ArgsType()
export class SessionGroupListArgs {
  @PageArg()
  page?: number | null;

  @PageSizeArg(GROUP_PAGE)
  limit?: number | null;

  @Field(() => [SessionGroupKindEnum], { nullable: true, description: 'Repeatable; OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  kind?: SessionGroupKindEnum[] | null;

  @Field(() => [SessionGroupStatusEnum], { nullable: true, description: 'Repeatable; OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  status?: SessionGroupStatusEnum[] | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Only groups of this project.' })
  project_id?: string | null;
}
