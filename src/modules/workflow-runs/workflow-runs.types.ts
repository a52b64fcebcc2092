import { Sql, timestamp } from '../../core/graphql-sql/sql-fields';
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
registerEnumType(WorkflowRunStatusEnum, {
  name: 'WorkflowRunStatus',
  description: 'pending → running | cancelled; running → completed | failed.',
  valuesConfig: {
    pending: { description: 'Created, not started yet; the only status that can be started or cancelled.' },
    running: { description: 'Started; cancel cannot interrupt it (409).' },
    completed: { description: 'Finished successfully.' },
    failed: { description: 'Finished with an error.' },
    cancelled: { description: 'Cancelled while pending.' },
  },
});

@ObjectType('WorkflowRunSummary', { description: 'One run of a workflow definition (spec WorkflowRunSummary).' })
export class WorkflowRunSummary {
  @Sql()
  @Field(() => UUIDScalar, { description: "The run's id." })
  id: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the workflow definition the run executes, as given at creation.' })
  definition_id: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the organization the run belongs to.' })
  organization_id: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the project the run belongs to.' })
  project_id: string;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the workspace the run belongs to.' })
  workspace_id: string;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the runtime, as given at creation (not checked); null when none.' })
  runtime_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'A session group of kind workflow_run.' })
  session_group_id: string | null;

  @Sql()
  @Field(() => String, { description: 'Where the run executes (default `worker`).' })
  host_kind: string;

  @Sql()
  @Field(() => String, { description: 'pending, running, completed, failed or cancelled.' })
  status: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The run's title; null when none." })
  title: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'Why the run failed; null otherwise.' })
  error: string | null;

  @Sql()
  @Field(() => Int, { description: "Sequence number of the run's last recorded fact; 0 before any." })
  last_fact_seq: number;

  @Sql(timestamp)
  @Field(() => Date, { description: 'When the run was created (pending).' })
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the run started; null while pending.' })
  started_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the run finished or was cancelled; null before.' })
  finished_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the run last reported being alive (set when it starts); null while pending.' })
  run_heartbeat_at: Date | null;
}

@ObjectType('WorkflowRunListResponse', { description: 'One page of workflow runs, newest first.' })
export class WorkflowRunListResponse extends PageEnvelope {
  @Field(() => [WorkflowRunSummary], { description: 'The runs of this page.' })
  @PageItems()
  runs: WorkflowRunSummary[];

}
