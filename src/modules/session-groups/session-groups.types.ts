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
registerEnumType(SessionGroupKindEnum, {
  name: 'SessionGroupKind',
  description: 'What a session group stands for.',
  valuesConfig: {
    worker_run: { description: 'One run of a worker.' },
    evaluation_item: { description: 'One item of an evaluation.' },
    workflow: { description: 'A workflow.' },
    workflow_run: { description: 'One run of a workflow.' },
  },
});

export enum SessionGroupStatusEnum {
  running = 'running',
  completed = 'completed',
  failed = 'failed',
  cancelled = 'cancelled',
}
registerEnumType(SessionGroupStatusEnum, {
  name: 'SessionGroupStatus',
  description: 'Status of a session group.',
  valuesConfig: {
    running: { description: 'Running; setting it stamps `started_at` (once) and clears `completed_at`.' },
    completed: { description: 'Finished successfully (terminal).' },
    failed: { description: 'Finished with a failure (terminal).' },
    cancelled: { description: 'Cancelled (terminal).' },
  },
});

@ObjectType('SessionGroupSummary', {
  description: 'A group of sessions; counts and last activity are derived from its sessions.',
})
export class SessionGroupSummary {
  @Sql()
  @Field(() => UUIDScalar, { description: "The session group's id." })
  id: string;

  @Sql()
  @Field(() => SessionGroupKindEnum, { description: 'What the group stands for.' })
  kind: SessionGroupKindEnum;

  @Sql()
  @Field(() => SessionGroupStatusEnum, { nullable: true, description: "The group's status; null when none was ever set." })
  status: SessionGroupStatusEnum | null;

  @Sql()
  @Field(() => String, { nullable: true, description: "The group's title; null when none." })
  title: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'Name of the worker the group ran; null when none.' })
  worker: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'Name of the capability the group ran; null when none.' })
  capability: string | null;

  @Sql()
  @Field(() => String, { nullable: true, description: 'Version of that capability; null when none.' })
  capability_version: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the evaluation (of this workspace) the group belongs to; null when none.' })
  evaluation_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the evaluation item the group belongs to; null when none.' })
  evaluation_item_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the evaluation item attempt, as given at creation; null when none.' })
  evaluation_item_attempt_id: string | null;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the runtime, as given at creation (not checked); null when none.' })
  runtime_id: string | null;

  @Sql()
  @Field(() => Int, { description: 'Sessions of the group that are not archived.' })
  active_session_count: number;

  @Sql()
  @Field(() => Int, { description: "Sessions in the group, archived ones and other users' included." })
  session_count: number;

  @Sql()
  // 64-bit: a session may count up to 1e9 messages, so their sum passes 2^31.
  @Field(() => TokenCountScalar, { description: 'Sum of the message counts of its sessions.' })
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
  @Field(() => Date, { nullable: true, description: 'When the group first entered `running`; null if it never did.' })
  started_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'When the group entered a terminal status; null while not finished.' })
  completed_at: Date | null;

  @Sql(timestamp)
  @Field(() => Date, { nullable: true, description: 'Latest message (or creation) time among its sessions.' })
  last_activity_at: Date | null;

  /** Not exposed: used by the sessions navigation and tenant checks. */
  workspace_id: string;
  project_id: string;
}

@ObjectType('SessionGroupListResponse', { description: 'One page of session groups, newest first.' })
export class SessionGroupListResponse extends PageEnvelope {
  @Field(() => [SessionGroupSummary], { description: 'The session groups of this page.' })
  @PageItems()
  groups: SessionGroupSummary[];

}
