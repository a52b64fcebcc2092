import { ArrayMaxSize, ArrayMinSize, IsIn, Max, MaxLength, Min, MinLength, ValidateBy, ValidateNested, type ValidationOptions } from 'class-validator';
import { ArgsType, Field, Float, Int } from 'type-graphql';
import { PageArg, PageSizeArg, type PageSize } from '../../core/pagination';
import { JSONObjectScalar, JSONScalar, TokenCountScalar, UUIDScalar } from '../../core/scalars';
import { ApiInput } from '../../core/validation/api-input';
import { Visible } from '../../core/validation/visible-text';
import { FREE_FORM_JSON_LIMIT, FreeFormJson, MaxJsonBytes } from '../../core/validation/json-bytes';
import { isPlainObject } from '../../core/validation/coerce';
import { AssessmentStatusEnum } from './assessments.types';
import { ATTACK_RANGES, MAX_ATTACK_MANIFEST_BYTES, MAX_SPAN_LIST_ITEMS } from './assessments.limits';

/** Attack spans per ingest request. */
export const MAX_ATTACKS_PER_INGEST = 1000;
const MAX_TEXT = 100_000;
const MAX_NAME = 255;
const MAX_TRIALS = 1_000_000;

/** `attack_manifest`: an array of objects, or one object (taken as a one-element array). */
function IsObjectOrObjectList(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isObjectOrObjectList',
      validator: {
        validate: (value) => value == null || isPlainObject(value) || (Array.isArray(value) && value.every(isPlainObject)),
        defaultMessage: () => 'Input should be an object or a list of objects',
      },
    },
    { context: { type: 'list_type' }, ...options },
  );
}

/** An object whose values are all finite numbers. */
function IsNumberMap(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isNumberMap',
      validator: {
        validate: (value) => value == null || (isPlainObject(value) && Object.values(value).every((item) => typeof item === 'number' && Number.isFinite(item))),
        defaultMessage: () => 'Every value should be a number',
      },
    },
    { context: { type: 'float_parsing' }, ...options },
  );
}

/** At most the record's `total_trials` when that is known (0, the default, is an SDK that does not know it). */
function AtMostTotalTrials(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'atMostTotalTrials',
      validator: {
        validate: (value, args) => {
          const total = (args?.object as { total_trials?: unknown } | undefined)?.total_trials;
          return typeof value !== 'number' || typeof total !== 'number' || total === 0 || value <= total;
        },
        defaultMessage: (args) => `Input should be less than or equal to total_trials (${(args?.object as { total_trials?: number }).total_trials})`,
      },
    },
    { context: { type: 'less_than_equal' }, ...options },
  );
}

/**
 * A URL that points at bytes elsewhere: `data:` URLs would inline them, and a `javascript:` or `vbscript:` URL is
 * a script that a dashboard showing the source as a link would run. Browsers ignore leading blanks and control
 * characters, and tabs and newlines within the scheme.
 */
const REFUSED_SCHEME = /^(data|javascript|vbscript):/i;
const refusedUrl = (url: string) => REFUSED_SCHEME.test(url.replace(/[\t\n\r]/g, '').replace(/^[^!-\uffff]+/, ''));

function IsReferenceUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isReferenceUrl',
      validator: {
        validate: (value) => value == null || (typeof value === 'string' && !refusedUrl(value)),
        defaultMessage: () => 'A media source references bytes elsewhere: data:, javascript: and vbscript: URLs are not accepted',
      },
    },
    options,
  );
}

export const MEDIA_REFS = ['artifact', 'url', 'file_id'] as const;

/** Where a part's bytes live. Strict: an inline payload (`data`, `base64`, …) is refused (422 extra_forbidden). */
@ApiInput('MediaSourceInput', { strict: true, description: 'References bytes (artifact, url or file id); never inlines them.' })
export class MediaSourceInput {
  @Field(() => String, { nullable: true, description: 'artifact (default), url or file_id.' })
  @IsIn([...MEDIA_REFS], { message: "Input should be 'artifact', 'url' or 'file_id'" })
  ref?: string | null;

  @Field(() => String, { nullable: true, description: 'Object id of the artifact holding the bytes (ref `artifact`), at most 255 characters.' })
  @MaxLength(MAX_NAME)
  artifact_oid?: string | null;

  @Field(() => TokenCountScalar, { nullable: true, description: 'Bytes, up to 2^53 - 1 (media beyond 2 GiB included).' })
  @Min(0)
  byte_size?: number | null;

  @Field(() => String, { nullable: true, description: 'The detail level asked for the media, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  detail?: string | null;

  @Field(() => String, { nullable: true, description: 'Id of the file holding the bytes (ref `file_id`), at most 255 characters.' })
  @MaxLength(MAX_NAME)
  file_id?: string | null;

  @Field(() => String, { nullable: true, description: "The media's file name, at most 255 characters." })
  @MaxLength(MAX_NAME)
  filename?: string | null;

  @Field(() => String, { nullable: true, description: "The media's MIME type, at most 255 characters." })
  @MaxLength(MAX_NAME)
  media_type?: string | null;

  @Field(() => String, { nullable: true, description: 'Where the bytes are (ref `url`), at most 4096 characters; `data:`, `javascript:` and `vbscript:` URLs are refused.' })
  @MaxLength(4096)
  @IsReferenceUrl()
  url?: string | null;
}

@ApiInput('MessagePartInput', { strict: true, description: 'One ordered part of a multimodal message.' })
export class MessagePartInput {
  @Field(() => String, { description: 'What the part holds (its modality), 1 to 255 characters.' })
  @MinLength(1)
  @MaxLength(MAX_NAME)
  kind: string;

  @Field(() => String, { nullable: true, description: "The part's text, at most 100,000 characters." })
  @MaxLength(MAX_TEXT)
  text?: string | null;

  @Field(() => String, { nullable: true, description: "A caption of the part's media, at most 100,000 characters." })
  @MaxLength(MAX_TEXT)
  caption?: string | null;

  @Field(() => String, { nullable: true, description: 'The transform that produced the part, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  transform?: string | null;

  @Field(() => String, { nullable: true, description: "The part's variant, at most 255 characters." })
  @MaxLength(MAX_NAME)
  variant?: string | null;

  @Field(() => MediaSourceInput, { nullable: true, description: "Where the part's media bytes live." })
  @ValidateNested()
  source?: MediaSourceInput | null;
}

/** One attack record (AttackSpanResponse-shaped); absent fields take the spec defaults. */
@ApiInput('AttackSpanInput', { description: 'One attack record; absent fields take their defaults (0, empty, false or null).' })
export class AttackSpanInput {
  @Field(() => String, { description: 'Name of the attack, 1 to 255 characters.' })
  @MinLength(1)
  @MaxLength(MAX_NAME)
  attack_name: string;

  @Field(() => String, { description: 'The goal the attack pursued, at most 100,000 characters.' })
  @MaxLength(MAX_TEXT)
  goal: string;

  @Field(() => String, { description: 'Category of the goal, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  goal_category: string;

  @Field(() => Float, { nullable: true, description: '0 to 1, default 0.' })
  @Min(ATTACK_RANGES.asr[0])
  @Max(ATTACK_RANGES.asr[1])
  asr?: number | null;

  @Field(() => String, { nullable: true, description: 'The model that generated the attack, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  attacker_model?: string | null;

  @Field(() => String, { nullable: true, description: 'The model under attack, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  target_model?: string | null;

  @Field(() => String, { nullable: true, description: 'The model that scored the responses, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  evaluator_model?: string | null;

  @Field(() => String, { nullable: true, description: 'The best-scoring attack prompt, at most 100,000 characters.' })
  @MaxLength(MAX_TEXT)
  best_candidate?: string | null;

  @Field(() => [MessagePartInput], { nullable: true, description: 'The best candidate as ordered multimodal parts (at most 100).' })
  @ArrayMaxSize(MAX_SPAN_LIST_ITEMS)
  @ValidateNested({ each: true })
  best_candidate_parts?: MessagePartInput[] | null;

  @Field(() => String, { nullable: true, description: "The target's response to the best candidate, at most 100,000 characters." })
  @MaxLength(MAX_TEXT)
  best_response?: string | null;

  @Field(() => [MessagePartInput], { nullable: true, description: 'The best response as ordered multimodal parts (at most 100).' })
  @ArrayMaxSize(MAX_SPAN_LIST_ITEMS)
  @ValidateNested({ each: true })
  best_response_parts?: MessagePartInput[] | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: 'Modality → score (numbers).' })
  @IsNumberMap()
  best_modality_scores?: Record<string, number> | null;

  @Field(() => Float, { nullable: true, description: '-1e9 to 1e9.' })
  @Min(ATTACK_RANGES.best_score[0])
  @Max(ATTACK_RANGES.best_score[1])
  best_score?: number | null;

  @Field(() => String, { nullable: true, description: "The attack's category, at most 255 characters." })
  @MaxLength(MAX_NAME)
  category?: string | null;

  @Field(() => String, { nullable: true, description: "The attack's sub-category, at most 255 characters." })
  @MaxLength(MAX_NAME)
  sub_category?: string | null;

  @Field(() => Float, { nullable: true, description: '0 to 1e9 seconds.' })
  @Min(ATTACK_RANGES.execution_time_s[0])
  @Max(ATTACK_RANGES.execution_time_s[1])
  execution_time_s?: number | null;

  @Field(() => Int, { nullable: true, description: 'Trials that finished, 0 to 1,000,000; at most `total_trials` when that is above 0 (0: not known).' })
  @Min(0)
  @Max(MAX_TRIALS)
  @AtMostTotalTrials()
  finished_trials?: number | null;

  @Field(() => Int, { nullable: true, description: 'Trials of the attack, 0 to 1,000,000.' })
  @Min(0)
  @Max(MAX_TRIALS)
  total_trials?: number | null;

  @Field(() => Boolean, { nullable: true, description: 'Whether the attack achieved a jailbreak (default false).' })
  is_jailbreak?: boolean | null;

  @Field(() => String, { nullable: true, description: "Id of the attack's span, at most 255 characters." })
  @MaxLength(MAX_NAME)
  span_id?: string | null;

  @Field(() => String, { nullable: true, description: "Id of the attack's trace, at most 255 characters." })
  @MaxLength(MAX_NAME)
  trace_id?: string | null;

  @Field(() => [String], { nullable: true, description: 'Names of the transforms the attack applied (at most 100, each at most 255 characters).' })
  @ArrayMaxSize(MAX_SPAN_LIST_ITEMS)
  @MaxLength(MAX_NAME, { each: true })
  transforms?: string[] | null;
}

@ApiInput('AttackSpanIngestRequest', { example: { attacks: [{ attack_name: 'tap', goal: 'Reveal the system prompt', goal_category: 'prompt_leak', asr: 0.4, is_jailbreak: false, total_trials: 10, finished_trials: 10 }] }, description: 'A batch of attack records to add to an assessment.' })
export class AttackSpanIngestRequest {
  @Field(() => [AttackSpanInput], { description: `At most ${MAX_ATTACKS_PER_INGEST} records per request.` })
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ATTACKS_PER_INGEST)
  @ValidateNested({ each: true })
  attacks: AttackSpanInput[];
}

@ApiInput('SandboxSummaryInput', { description: 'The sandbox an assessment ran in.' })
export class SandboxSummaryInput {
  @Field(() => String, { description: 'The sandbox provider, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  provider: string;

  @Field(() => String, { description: "The sandbox's id at its provider, at most 255 characters." })
  @MaxLength(MAX_NAME)
  provider_sandbox_id: string;

  @Field(() => String, { description: "The sandbox's state, at most 255 characters." })
  @MaxLength(MAX_NAME)
  state: string;

  @Field(() => Float, { nullable: true, description: 'How long the sandbox ran, in seconds (at least 0).' })
  @Min(0)
  total_runtime_seconds?: number | null;
}

/** Body of create assessment (spec 11); the project comes from the query string. */
@ApiInput('AssessmentCreateRequest', { example: { name: 'Prompt leak sweep', target_model: 'model-x', attacker_model: 'model-y', attack_manifest: [{ attack: 'tap', goals: 3 }] }, description: 'A new assessment (created pending).' })
export class AssessmentCreateRequest {
  @Field(() => String, { description: "The assessment's name, 1 to 255 characters." })
  @MinLength(1)
  @MaxLength(255)
  @Visible()
  name: string;

  @Field(() => String, { nullable: true, description: 'Description, at most 10,000 characters.' })
  @MaxLength(10_000)
  description?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: 'An array of objects; one object is taken as a one-element array. At most 128 KiB as JSON.' })
  @IsObjectOrObjectList()
  @MaxJsonBytes(MAX_ATTACK_MANIFEST_BYTES)
  attack_manifest?: unknown;

  @Field(() => JSONObjectScalar, { nullable: true, description: `The attacker's configuration, stored as given; ${FREE_FORM_JSON_LIMIT}.` })
  @FreeFormJson()
  attacker_config?: Record<string, unknown> | null;

  @Field(() => JSONObjectScalar, { nullable: true, description: `The target's configuration, stored as given; ${FREE_FORM_JSON_LIMIT}.` })
  @FreeFormJson()
  target_config?: Record<string, unknown> | null;

  @Field(() => String, { nullable: true, description: 'The model that generates the attacks, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  attacker_model?: string | null;

  @Field(() => String, { nullable: true, description: 'The model that judges the responses, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  judge_model?: string | null;

  @Field(() => String, { nullable: true, description: 'The model under attack, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  target_model?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the runtime, stored as given.' })
  runtime_id?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'A session of the workspace visible to the caller.' })
  session_id?: string | null;

  @Field(() => String, { nullable: true, description: 'Id of the workflow run executing the assessment, at most 255 characters.' })
  @MaxLength(MAX_NAME)
  workflow_run_id?: string | null;

  @Field(() => String, { nullable: true, description: 'The workflow script, at most 100,000 characters.' })
  @MaxLength(MAX_TEXT)
  workflow_script?: string | null;
}

@ApiInput('AssessmentUpdateRequest', { description: 'Changes to an assessment: an absent field stays as it is.' })
export class AssessmentUpdateRequest {
  @Field(() => AssessmentStatusEnum, { nullable: true, description: 'completed/failed set completed_at; a finished assessment cannot move back (409).' })
  status?: AssessmentStatusEnum | null;

  @Field(() => String, { nullable: true, description: 'New name, 1 to 255 characters; null leaves it unchanged.' })
  @MinLength(1)
  @MaxLength(255)
  @Visible()
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'null clears it.' })
  @MaxLength(10_000)
  description?: string | null;

  @Field(() => SandboxSummaryInput, { nullable: true, description: 'Replaces the sandbox summary; null clears it.' })
  @ValidateNested()
  sandbox_detail?: SandboxSummaryInput | null;
}

/** A page of assessments. */
export const ASSESSMENT_PAGE: PageSize = { max: 100, fallback: 50 };

@ArgsType()
export class AssessmentListArgs {
  @Field(() => UUIDScalar, { nullable: true, description: 'Only assessments of this project (a project of another workspace is 404).' })
  project_id?: string | null;

  @PageArg()
  page?: number | null;

  @PageSizeArg(ASSESSMENT_PAGE)
  page_size?: number | null;
}

/** Spans per attack-list read: the whole list of a 10,000-span assessment by default. */
export const ATTACK_PAGE: PageSize = { max: 10_000, fallback: 10_000 };

/** The deepest attack-list window (`offset`). */
export const MAX_ATTACK_OFFSET = 1_000_000;

@ArgsType()
export class AttackListArgs {
  @PageSizeArg(ATTACK_PAGE, 'Spans to return')
  limit?: number | null;

  @Field(() => Int, { nullable: true, description: 'Spans to skip in ingest order (default 0).' })
  @Min(0)
  @Max(MAX_ATTACK_OFFSET)
  offset?: number | null;
}

/** The window an attack list reads: its arguments with their defaults. */
export const attackWindow = (args: AttackListArgs) => ({ limit: args.limit ?? ATTACK_PAGE.fallback, offset: args.offset ?? 0 });
