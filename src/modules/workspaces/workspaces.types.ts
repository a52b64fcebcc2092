import { Field, Int, ObjectType } from 'type-graphql';
import { PageItems } from '../../core/graphql-decorators';
import { UUIDScalar } from '../../core/scalars';

@ObjectType('WorkspaceResponse', { description: 'A workspace of an organization.' })
export class WorkspaceResponse {
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => UUIDScalar)
  org_id: string;

  @Field(() => String, { description: 'Unique workspace key (URL slug).' })
  key: string;

  @Field(() => String)
  name: string;

  @Field(() => String, { nullable: true })
  description: string | null;

  @Field(() => Boolean)
  is_active: boolean;

  @Field(() => Boolean)
  is_default: boolean;

  @Field(() => UUIDScalar, { nullable: true })
  created_by: string | null;

  @Field(() => Date)
  created_at: Date;

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
