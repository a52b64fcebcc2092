import { Field, Int, ObjectType } from 'type-graphql';
import { UUIDScalar } from '../../core/scalars';

@ObjectType('OrganizationResponse', { description: 'An organization the caller belongs to, with its effective sandbox runtime limits.' })
export class OrganizationResponse {
  @Field(() => UUIDScalar)
  id: string;

  @Field(() => String, { description: 'Unique organization key (URL slug).' })
  key: string;

  @Field(() => String)
  name: string;

  @Field(() => String, { nullable: true })
  description: string | null;

  @Field(() => Boolean)
  is_active: boolean;

  /** Resolved through a DataLoader (one statement for every organization of a reply). */
  member_count?: number;

  @Field(() => Int, { description: 'Member limit; the platform default when the organization sets none.' })
  max_members: number;

  @Field(() => Boolean, { description: 'Whether the caller may manage members (owner).' })
  can_manage_members: boolean;

  @Field(() => String)
  plan_type: string;

  @Field(() => Date)
  created_at: Date;

  @Field(() => Date)
  updated_at: Date;

  @Field(() => Int, { nullable: true, description: 'The organization-level ceiling, null when it uses the platform value.' })
  max_sandbox_runtime_seconds: number | null;

  @Field(() => Int)
  effective_max_sandbox_runtime_seconds: number;

  @Field(() => String, { description: '`organization` when the organization sets the ceiling, else `platform`.' })
  max_sandbox_runtime_source_level: string;

  @Field(() => Int, { nullable: true })
  default_sandbox_runtime_seconds: number | null;

  @Field(() => Int, { description: 'The default runtime, never above the effective ceiling.' })
  effective_default_sandbox_runtime_seconds: number;

  @Field(() => String, { description: '`organization` when the organization sets the default, else `platform`.' })
  default_sandbox_runtime_source_level: string;

  @Field(() => Int)
  platform_max_sandbox_runtime_seconds: number;

  @Field(() => Int)
  platform_default_sandbox_runtime_seconds: number;
}
