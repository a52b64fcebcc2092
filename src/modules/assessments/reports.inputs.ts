import { ArrayMaxSize, IsIn, MaxLength, MinLength } from 'class-validator';
import { ArgsType, Field, Float } from 'type-graphql';
import { MAX_FILTER_VALUES, PageArg, PageSizeArg, type PageSize } from '../../core/pagination';
import { JSONScalar } from '../../core/scalars';
import { ApiInput } from '../../core/validation/api-input';
import { MaxJsonBytes } from '../../core/validation/json-bytes';
import { FindingSeverity } from './reports.types';
import { MAX_REPORT_CONTENT } from './assessments.limits';

@ApiInput('AssessmentReportCreateRequest', {
  description: 'A report to store for an assessment.',
  example: { report_type: 'executive', content: '# Prompt leak sweep\n\nTwo of five attacks leaked the system prompt.' },
})
export class AssessmentReportCreateRequest {
  @Field(() => String, { description: 'Free text such as `markdown`, `summary`, `executive` (1–100 characters).' })
  @MinLength(1)
  @MaxLength(100)
  report_type: string;

  @Field(() => String, { nullable: true, description: `The report as markdown (at most ${MAX_REPORT_CONTENT.toLocaleString('en-US')} characters).` })
  @MaxLength(MAX_REPORT_CONTENT)
  content?: string | null;

  @Field(() => JSONScalar, { nullable: true, description: `The report as structured JSON (at most ${MAX_REPORT_CONTENT.toLocaleString('en-US')} bytes as JSON).` })
  @MaxJsonBytes(MAX_REPORT_CONTENT)
  content_json?: unknown;
}

export const FINDING_SORTS = ['score', 'severity', 'category', 'attack_name', 'created_at'] as const;

/** A page of a project's findings. */
export const FINDING_PAGE: PageSize = { max: 100, fallback: 50 };

@ArgsType()
export class FindingListArgs {
  @Field(() => [FindingSeverity], { nullable: true, description: 'Only these severities (repeatable).' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  severity?: FindingSeverity[] | null;

  @Field(() => String, { nullable: true, description: 'Only this attack category.' })
  @MaxLength(255)
  category?: string | null;

  @Field(() => String, { nullable: true, description: 'Only this attack.' })
  @MaxLength(255)
  attack_name?: string | null;

  @Field(() => Float, { nullable: true, description: 'Only findings whose best score is at least this.' })
  min_score?: number | null;

  @Field(() => String, { nullable: true, defaultValue: 'severity', description: 'score, severity (default), category, attack_name or created_at.' })
  @IsIn(FINDING_SORTS)
  sort_by?: string | null;

  @Field(() => String, { nullable: true, defaultValue: 'desc', description: 'asc or desc (default).' })
  @IsIn(['asc', 'desc'])
  sort_dir?: string | null;

  @PageArg()
  page?: number | null;

  @PageSizeArg(FINDING_PAGE, 'Findings per page')
  page_size?: number | null;
}

@ApiInput('ProjectReportGenerateRequest', { description: 'What report to generate.', example: { format: 'both' } })
export class ProjectReportGenerateRequest {
  @Field(() => String, { nullable: true, defaultValue: 'markdown', description: 'markdown (default), json or both.' })
  @IsIn(['markdown', 'json', 'both'])
  format?: string | null;

  @Field(() => String, { nullable: true, description: 'Accepted for the SDK; no model is called, so it changes nothing.' })
  @MaxLength(100)
  model_profile?: string | null;
}
