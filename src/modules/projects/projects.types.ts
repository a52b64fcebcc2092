import { Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { Field, Int, ObjectType } from 'type-graphql';
import { UUIDScalar } from '../../core/scalars';

@ObjectType('ProjectResourceCounts', { description: 'How many resources live in the project.' })
export class ProjectResourceCounts {
  @Field(() => Int, { description: "Sessions in the project, archived and other users' private ones included." })
  sessions: number;

  @Field(() => Int, { description: 'Evaluation jobs in the project.' })
  evaluations: number;

  @Field(() => Int, { description: 'Red-team assessments in the project.' })
  airt_assessments: number;

  @Field(() => Int, { description: 'Workflow runs in the project.' })
  workflow_runs: number;

  @Field(() => Int, { description: 'Session groups in the project.' })
  session_groups: number;
}

@ObjectType('ProjectResponse', { description: 'A project of a workspace.' })
export class ProjectResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The project's id." })
  id: string;

  @Sql()
  @Field(() => String, { description: "The project's key, unique in its workspace (URL slug)." })
  key: string;

  @Sql()
  @Field(() => String, { description: "The project's display name." })
  name: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The project's description; null when none." })
  description: string | null;

  @Sql()
  @Field(() => UUIDScalar, { description: 'Id of the workspace the project belongs to.' })
  workspace_id: string;

  @Sql()
  @Field(() => Boolean, { description: "True for the workspace's default project (key `default`), which cannot be deleted." })
  is_default: boolean;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  updated_at: Date;

  /** Resolved by the projects resolver (counts computed in SQL, batched). */
  resource_counts?: ProjectResourceCounts;
}

@ObjectType('ProjectDeletedResponse', { description: 'Reply of a project deletion.' })
export class ProjectDeletedResponse {
  @Field(() => UUIDScalar, { description: "The deleted project's id." })
  id: string;

  @Field(() => String, { description: "The deleted project's key." })
  key: string;

  @Field(() => Boolean, { description: 'Always true.' })
  deleted: boolean;
}
