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
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => String)
  key: string;

  @Field(() => String)
  name: string;

  @Field(() => String, { nullable: true })
  description: string | null;

  @Field(() => UUIDScalar)
  workspace_id: string;

  @Field(() => Boolean)
  is_default: boolean;

  @Field(() => Date)
  created_at: Date;

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
