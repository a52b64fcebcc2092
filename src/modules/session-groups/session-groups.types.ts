import { Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { PageItems } from '../../core/graphql-decorators';
import { TokenCountScalar, UUIDScalar } from '../../core/scalars';
import { PageEnvelope } from '../../core/pagination';

export enum SessionGroupKindEnum {
  worker_run = 'worker_run',
  evaluation_item = 'evaluation_item',
  workflow = 'workflow',
  workflow_run = 'workflow_run',
}
registerEnumType(SessionGroupKindEnum, { name: 'SessionGroupKind', description: 'What a session group stands for.' });

export enum SessionGroupStatusEnum {
  running = 'running',
  completed = 'completed',
  failed = 'failed',
  cancelled = 'cancelled',
}
registerEnumType(SessionGroupStatusEnum, { name: 'SessionGroupStatus' });

@ObjectType('SessionGroupSummary', {
  description: 'A group of sessions; counts and last activity are derived from its sessions.',
})
export class SessionGroupSummary {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => SessionGroupKindEnum)
  kind: SessionGroupKindEnum;

  @Sql()
  @Field(() => SessionGroupStatusEnum, { nullable: true })
  status: SessionGroupStatusEnum | null;

  @Sql()
  @Field(() => String, { nullable: true })
  title: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  worker: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  capability: string | null;

  @Sql()
  @Field(() => String, { nullable: true })
  capability_version: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  evaluation_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  evaluation_item_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  evaluation_item_attempt_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  runtime_id: string | null;

  @Sql()
  @Field(() => Int, { description: 'Sessions of the group that are not archived.' })
  active_session_count: number;

  @Sql()
  @Field(() => Int)
  session_count: number;

  @Sql()
  @Field(() => Int, { description: 'Sum of the message counts of its sessions.' })
  message_count: number;

  @Sql()
  @Field(() => TokenCountScalar, { description: 'Input plus output tokens over every message of its sessions.' })
  total_tokens: number;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  updated_at: Date;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  started_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true })
  completed_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'Latest message (or creation) time among its sessions.' })
  last_activity_at: Date | null;

  /** Not exposed: used by the sessions navigation and tenant checks. */
  workspace_id: string;
  project_id: string;
}

@ObjectType('SessionGroupListResponse')
export class SessionGroupListResponse extends PageEnvelope {
  @Field(() => [SessionGroupSummary])
  @PageItems()
  groups: SessionGroupSummary[];

}
