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
registerEnumType(WorkflowRunStatusEnum, { name: 'WorkflowRunStatus', description: 'pending → running | cancelled; running → completed | failed.' });

@ObjectType('WorkflowRunSummary', { description: 'One run of a workflow definition (spec WorkflowRunSummary).' })
export class WorkflowRunSummary {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => UUIDScalar)
  definition_id: string;

  @Sql()
  @Field(() => UUIDScalar)
  organization_id: string;

  @Sql()
  @Field(() => UUIDScalar)
  project_id: string;

  @Sql()
  @Field(() => UUIDScalar)
  workspace_id: string;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  runtime_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'A session group of kind workflow_run.' })
  session_group_id: string | null;

  @Sql()
  @Field(() => String)
  host_kind: string;

  @Sql()
  @Field(() => String, { description: 'pending, running, completed, failed or cancelled.' })
  status: string;

  @Sql()
  @Field(() => String, { nullable: true })
  title: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  error: string | null;

  @Sql()
  @Field(() => Int)
  last_fact_seq: number;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  started_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  finished_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  run_heartbeat_at: Date | null;
}

@ObjectType('WorkflowRunListResponse')
export class WorkflowRunListResponse extends PageEnvelope {
  @Field(() => [WorkflowRunSummary])
  @PageItems()
  runs: WorkflowRunSummary[];

}
