import { ArrayMaxSize, Max, MaxLength, Min, MinLength, ValidateBy } from 'class-validator';
import { ArgsType, Field, Int } from 'type-graphql';
import { PageArg, PageSizeArg, type PageSize } from '../../core/pagination';
import { JSONObjectScalar, UUIDScalar } from '../../core/scalars';
import type { ValidationItem } from '../../core/errors';
import { MAX_TASK_SET_MEMBERS } from '../catalogs/catalogs.limits';
import { ApiInput } from '../../core/validation/api-input';
import { Visible } from '../../core/validation/visible-text';
import { FREE_FORM_JSON_LIMIT, FreeFormJson } from '../../core/validation/json-bytes';
import { parseMember } from '../catalogs/task-sets.service';
import { EvaluationCleanupPolicy, EvaluationItemStatus, EvaluationJobStatus, EvaluationKind } from './evaluations.types';
import { MAX_SECRET_IDS, MAX_TASK_NAMES } from './evaluations.limits';

/** Dataset rows per evaluation (the body limit of 1 MiB bounds them first). */
export const MAX_DATASET_ROWS = 10_000;

const isStringMap = (value: unknown) =>
  value === null || value === undefined || (typeof value === 'object' && !Array.isArray(value) && Object.values(value as object).every((item) => typeof item === 'string'));

/** Body of create evaluation (spec 5). */
@ApiInput('CreateEvaluationRequest', { example: { name: 'nightly-ctf', model: 'model-x', task_names: ['sql-injection-101', 'path-traversal-basic'], concurrency: 4 }, description: 'A new evaluation: its tasks (task_names, task_set) and dataset rows become its items.' })
export class CreateEvaluationRequest {
  /** Each malformed task name at its own index, reported with every other problem of the request. */
  static check(input: CreateEvaluationRequest): ValidationItem[] {
    if (!Array.isArray(input.task_names)) return [];
    return input.task_names.flatMap((raw, index) =>
      typeof raw === 'string' && !parseMember(raw)
        ? [{ loc: ['task_names', index], msg: 'must be a task name: name or name@version (semver), optionally owner/name', type: 'value_error' }]
        : [],
    );
  }

  @Field(() => String, { description: 'The model to evaluate, 1 to 255 characters.' })
  @MinLength(1)
  @MaxLength(255)
  model: string;

  @Field(() => String, { description: "The evaluation's name, 1 to 255 characters." })
  @MinLength(1)
  @MaxLength(255)
  @Visible()
  name: string;

  @Field(() => EvaluationKind, { nullable: true, description: 'Default security_task_benchmark.' })
  kind?: EvaluationKind | null;

  @Field(() => EvaluationCleanupPolicy, { nullable: true, description: 'Default always.' })
  cleanup_policy?: EvaluationCleanupPolicy | null;

  @Field(() => Int, { nullable: true, description: '1 to 100, default 1.' })
  @Min(1)
  @Max(100)
  concurrency?: number | null;

  @Field(() => String, { nullable: true, description: 'The agent type, at most 255 characters; recorded in config_json.' })
  @MaxLength(255)
  agent_type?: string | null;

  @Field(() => String, { nullable: true, description: 'The capability, at most 255 characters; recorded in config_json.' })
  @MaxLength(255)
  capability?: string | null;

  @Field(() => String, { nullable: true, description: 'The sandbox provider, at most 255 characters; recorded in config_json.' })
  @MaxLength(255)
  sandbox_provider?: string | null;

  @Field(() => String, { nullable: true, description: 'The engine, at most 255 characters; recorded in config_json.' })
  @MaxLength(255)
  engine?: string | null;

  @Field(() => String, { nullable: true, description: 'The judge model, at most 255 characters; recorded in config_json.' })
  @MaxLength(255)
  judge_model?: string | null;

  @Field(() => [JSONObjectScalar], { nullable: true, description: `One item per row, at most ${MAX_DATASET_ROWS}.` })
  @ArrayMaxSize(MAX_DATASET_ROWS)
  dataset?: Record<string, unknown>[] | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: `Key → model name; ${FREE_FORM_JSON_LIMIT}.` })
  @FreeFormJson()
  @ValidateBy({ name: 'isStringMap', validator: { validate: isStringMap, defaultMessage: () => 'every value must be a string' } })
  model_overrides?: Record<string, string> | null;

  @Field(() => UUIDScalar, { nullable: true, description: "A project of the workspace; default: the workspace's default project." })
  project_id?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the runtime, stored as given.' })
  runtime_id?: string | null;

  @Field(() => [UUIDScalar], {
    nullable: true,
    description: `Ids of the caller's user secrets the run needs (at most ${MAX_SECRET_IDS}; another user's or an unknown id is 404); the ids are recorded in config_json, never values.`,
  })
  @ArrayMaxSize(MAX_SECRET_IDS)
  secret_ids?: string[] | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: `Free-form task configuration, recorded in config_json; ${FREE_FORM_JSON_LIMIT}.` })
  @FreeFormJson()
  task_config?: Record<string, unknown> | null;

  @Field(() => [String], { nullable: true, description: `name or name@version, optionally owner/ in front; at most ${MAX_TASK_NAMES}.` })
  @ArrayMaxSize(MAX_TASK_NAMES)
  task_names?: string[] | null;

  @Field(() => String, { nullable: true, description: "A task set of the organization, or owner/name for another organization's public set." })
  @MaxLength(512)
  task_set?: string | null;

  @Field(() => Int, { nullable: true, description: "At least 1, at most the organization's effective sandbox runtime ceiling." })
  @Min(1)
  task_timeout_sec?: number | null;
}

@ApiInput('EvaluationItemTransitionRequest', { description: 'A move of an evaluation item to another state.' })
export class EvaluationItemTransitionRequest {
  @Field(() => EvaluationItemStatus, { description: 'The state to move to: the next state of the pipeline, or errored, infra_error, timed_out or cancelled from any non-terminal state (409 otherwise).' })
  to: EvaluationItemStatus;

  @Field(() => String, { nullable: true, description: 'Why the item failed or errored (kept until a retry).' })
  @MaxLength(10_000)
  error?: string | null;
}

/** A page of evaluations. */
export const EVALUATION_PAGE: PageSize = { max: 100, fallback: 50 };

@ArgsType()
export class EvaluationListArgs {
  @PageArg()
  page?: number | null;

  @PageSizeArg(EVALUATION_PAGE)
  page_size?: number | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Only evaluations of this project (a project of another workspace is 404).' })
  project_id?: string | null;

  @Field(() => EvaluationJobStatus, { nullable: true, description: 'Only evaluations with this job status.' })
  status?: EvaluationJobStatus | null;
}

/** A page of an evaluation's items. */
export const ITEM_PAGE: PageSize = { max: 1000, fallback: 1000 };
/**
 * The most items one evaluation holds (its task names, its task set's
 * members, its dataset rows): its item pages reach that deep (an offset
 * within one evaluation's index range).
 */
export const MAX_EVALUATION_ITEMS = MAX_TASK_NAMES + MAX_TASK_SET_MEMBERS + MAX_DATASET_ROWS;

@ArgsType()
export class EvaluationItemListArgs {
  @Field(() => Int, { nullable: true, defaultValue: 1, description: 'A page shorter than limit is the last; pages reach every item of the evaluation.' })
  @Min(1)
  page?: number | null;

  @PageSizeArg(ITEM_PAGE)
  limit?: number | null;

  @Field(() => EvaluationItemStatus, { nullable: true, description: 'Only items in this state.' })
  status?: EvaluationItemStatus | null;
}
