import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { PageItems } from '../../core/graphql-decorators';
import { UUIDScalar } from '../../core/scalars';
import { PageEnvelope } from '../../core/pagination';

export enum WorkflowRunStatusEnum {
  pending = 'pending',
  running = 'running',
  completed = 'completed',
  failed = 'failed',
  cancelled = 'cancelled',
}
registerEnumType(WorkflowRunStatusEnum, { name: 'WorkflowRunStatus', description: 'pending → running | cancelled; running → completed | failed.' });

@ObjectType('WorkflowRunSummary', { description: 'One run of a workflow definition (spec WorkflowRunSummary).' })
export class WorkflowRunSummary {
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => UUIDScalar)
  definition_id: string;

  @Field(() => UUIDScalar)
  organization_id: string;

  @Field(() => UUIDScalar)
  project_id: string;

  @Field(() => UUIDScalar)
  workspace_id: string;

  @Field(() => UUIDScalar, { nullable: true })
  runtime_id: string | null;

  @Field(() => UUIDScalar, { nullable: true, description: 'A session group of kind workflow_run.' })
  session_group_id: string | null;

  @Field(() => String)
  host_kind: string;

  @Field(() => String, { description: 'pending, running, completed, failed or cancelled.' })
  status: string;

  @Field(() => String, { nullable: true })
  title: string | null;

  @Field(() => String, { nullable: true })
  error: string | null;

  @Field(() => Int)
  last_fact_seq: number;

  @Field(() => Date)
  created_at: Date;

  @Field(() => Date, { nullable: true })
  started_at: Date | null;

  @Field(() => Date, { nullable: true })
  finished_at: Date | null;

  @Field(() => Date, { nullable: true })
  run_heartbeat_at: Date | null;
}

@ObjectType('WorkflowRunListResponse')
export class WorkflowRunListResponse extends PageEnvelope {
  @Field(() => [WorkflowRunSummary])
  @PageItems()
  runs: WorkflowRunSummary[];

}
