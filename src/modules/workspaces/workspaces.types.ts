import { Sql, timestamp, column } from '../../core/graphql-sql/sql-fields';
import { Field, Int, ObjectType } from 'type-graphql';
import { PageItems } from '../../core/graphql-decorators';
import { UUIDScalar } from '../../core/scalars';

@ObjectType('WorkspaceResponse', { description: 'A workspace of an organization.' })
export class WorkspaceResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The workspace's id." })
  id: string;

  @Sql(column('organization_id'))
  @Field(() => UUIDScalar, { description: 'Id of the organization the workspace belongs to.' })
  org_id: string;

  @Sql()
  @Field(() => String, { description: 'Unique workspace key (URL slug).' })
  key: string;

  @Sql()
  @Field(() => String, { description: "The workspace's display name." })
  name: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The workspace's description; null when none." })
  description: string | null;

  @Sql()
  @Field(() => Boolean, { description: 'Whether the workspace is active; the default workspace cannot be deactivated.' })
  is_active: boolean;

  @Sql()
  @Field(() => Boolean, { description: "True for the organization's default workspace (key `default`, created with the organization)." })
  is_default: boolean;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true, description: 'Id of the user who created the workspace; null when that account no longer exists.' })
  created_by: string | null;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  updated_at: Date;

  @Field(() => String, { nullable: true, description: 'Name of the organization the workspace belongs to.' })
  org_name?: string | null;

  @Field(() => Int, { nullable: true, description: 'Number of projects in the workspace.' })
  project_count?: number | null;
}

@ObjectType('WorkspaceListResponse', { description: 'The workspaces of an organization, the default one first, then oldest first.' })
export class WorkspaceListResponse {
  @Field(() => [WorkspaceResponse], { description: 'One page of workspaces.' })
  @PageItems()
  workspaces: WorkspaceResponse[];
}
