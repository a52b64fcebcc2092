import { ArrayMaxSize, MaxLength, MinLength } from 'class-validator';
import { ArgsType, Field } from 'type-graphql';
import { MAX_FILTER_VALUES, PageArg, PageSizeArg, type PageSize } from '../../core/pagination';
import { UUIDScalar } from '../../core/scalars';
import { ApiInput } from '../../core/validation/api-input';
import { WorkflowRunStatusEnum } from './workflow-runs.types';

export const DEFAULT_HOST_KIND = 'worker';

/** Body of create run; the project comes from the query string (required). */
@ApiInput('WorkflowRunCreateRequest', { example: { definition_id: '9d2f4c1a-6b3e-4e7a-8c5d-1a2b3c4d5e6f', title: 'Weekly sweep' }, description: 'A new workflow run (pending).' })
export class WorkflowRunCreateRequest {
  @Field(() => UUIDScalar, { description: 'The workflow definition to run.' })
  definition_id: string;

  @Field(() => String, { nullable: true, description: 'Title, at most 255 characters.' })
  @MaxLength(255)
  title?: string | null;

  @Field(() => String, { nullable: true, description: `Where the run executes (default '${DEFAULT_HOST_KIND}').` })
  @MinLength(1)
  @MaxLength(100)
  host_kind?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the runtime, stored as given.' })
  runtime_id?: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'A session group of kind workflow_run of the workspace.' })
  session_group_id?: string | null;
}

/** A page of workflow runs. */
export const RUN_PAGE: PageSize = { max: 100, fallback: 20 };

@ArgsType()
export class WorkflowRunListArgs {
  @Field(() => UUIDScalar, { nullable: true, description: 'Only runs of this project (a project of another workspace is 404).' })
  project_id?: string | null;

  @Field(() => [WorkflowRunStatusEnum], { nullable: true, description: 'Repeatable; OR.' })
  @ArrayMaxSize(MAX_FILTER_VALUES)
  status?: WorkflowRunStatusEnum[] | null;

  @PageArg()
  page?: number | null;

  @PageSizeArg(RUN_PAGE)
  limit?: number | null;
}
