import { Sql, timestamp, column } from '../../core/graphql-sql/sql-fields';
import { Field, Int, ObjectType } from 'type-graphql';
import { PageItems } from '../../core/graphql-decorators';
import { UUIDScalar } from '../../core/scalars';

@ObjectType('WorkspaceResponse', { description: 'A workspace of an organization.' })
export class WorkspaceResponse {
  @Sql()
  @Field(() => UUIDScalar)
  id: string;

  @Sql(column('organization_id'))
  @Field(() => UUIDScalar)
  org_id: string;

  @Sql()
  @Field(() => String, { description: 'Unique workspace key (URL slug).' })
  key: string;

  @Sql()
  @Field(() => String)
  name: string;

  @Sql()
  @Field(() => String, { nullable: true })
  description: string | null;

  @Sql()
  @Field(() => Boolean)
  is_active: boolean;

  @Sql()
  @Field(() => Boolean)
  is_default: boolean;

  @Sql()
  @Field(() => UUIDScalar, { nullable: true })
  created_by: string | null;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  updated_at: Date;

  @Field(() => String, { nullable: true })
  org_name?: string | null;

  @Field(() => Int, { nullable: true })
  project_count?: number | null;
}

@ObjectType('WorkspaceListResponse')
export class WorkspaceListResponse {
  @Field(() => [WorkspaceResponse])
  @PageItems()
  workspaces: WorkspaceResponse[];
}
