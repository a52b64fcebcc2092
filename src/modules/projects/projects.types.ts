import { Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { Field, Int, ObjectType } from 'type-graphql';
import { UUIDScalar } from '../../core/scalars';

@ObjectType('ProjectResourceCounts', { description: 'How many resources live in the project.' })
export class ProjectResourceCounts {
  @Field(() => Int)
  sessions: number;

  @Field(() => Int)
  evaluations: number;

  @Field(() => Int)
  airt_assessments: number;

  @Field(() => Int)
  workflow_runs: number;

  @Field(() => Int)
  session_groups: number;
}

@ObjectType('ProjectResponse', { description: 'A project of a workspace.' })
export class ProjectResponse {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql()
  @Field(() => String)
  key: string;

  @Sql()
  @Field(() => String)
  name: string;

  @Sql()
  @Field(() => String, { nullable: true })
  description: string | null;

  @Sql()
  @Field(() => UUIDScalar)
  workspace_id: string;

  @Sql()
  @Field(() => Boolean)
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
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => String)
  key: string;

  @Field(() => Boolean)
  deleted: boolean;
}
