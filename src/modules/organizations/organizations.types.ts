import { Field, Int, ObjectType } from 'type-graphql';
import { UUIDScalar } from '../../core/scalars';
import { config } from '../../config/config';
import { derived, Sql, timestamp } from '../../core/graphql-sql/sql-fields';
import { effectiveSandboxCeiling, effectiveSandboxDefault, maxMembers } from './organization-limits';

@ObjectType('OrganizationResponse', { description: 'An organization the caller belongs to, with its effective sandbox runtime limits.' })
export class OrganizationResponse {
  @Sql()
  @Field(() => UUIDScalar, { description: "The organization's id." })
  id: string;

  @Sql()
  @Field(() => String, { description: 'Unique organization key (URL slug).' })
  key: string;

  @Sql()
  @Field(() => String, { description: "The organization's display name." })
  name: string;

  @Sql()
  @Field(() => String, { nullable: true, description: "The organization's description; null when none." })
  description: string | null;

  @Sql()
  @Field(() => Boolean, { description: 'Whether the organization is marked active.' })
  is_active: boolean;

  /** Resolved through a DataLoader (one statement for every organization of a reply). */
  member_count?: number;

  @Sql(derived((org) => maxMembers(org as never)))
  @Field(() => Int, { description: 'Member limit; the platform default when the organization sets none.' })
  max_members: number;

  @Field(() => Boolean, { description: 'Whether the caller may manage members (owner).' })
  can_manage_members: boolean;

  @Sql()
  @Field(() => String, { description: "The organization's plan (`free` unless set otherwise)." })
  plan_type: string;

  @Sql(timestamp)
  @Field(() => Date)
  created_at: Date;

  @Sql(timestamp)
  @Field(() => Date)
  updated_at: Date;

  @Sql()
  @Field(() => Int, { nullable: true, description: 'The organization-level ceiling, null when it uses the platform value.' })
  max_sandbox_runtime_seconds: number | null;

  @Sql(derived((org) => effectiveSandboxCeiling(org as never)))
  @Field(() => Int, { description: "The sandbox runtime ceiling in seconds that applies: the organization's own (never above the platform's), else the platform's." })
  effective_max_sandbox_runtime_seconds: number;

  @Sql(derived((org) => (org.max_sandbox_runtime_seconds != null ? 'organization' : 'platform')))
  @Field(() => String, { description: '`organization` when the organization sets the ceiling, else `platform`.' })
  max_sandbox_runtime_source_level: string;

  @Sql()
  @Field(() => Int, { nullable: true, description: 'The organization-level default sandbox runtime in seconds; null when it uses the platform value.' })
  default_sandbox_runtime_seconds: number | null;

  @Sql(derived((org) => effectiveSandboxDefault(org as never)))
  @Field(() => Int, { description: 'The default runtime, never above the effective ceiling.' })
  effective_default_sandbox_runtime_seconds: number;

  @Sql(derived((org) => (org.default_sandbox_runtime_seconds != null ? 'organization' : 'platform')))
  @Field(() => String, { description: '`organization` when the organization sets the default, else `platform`.' })
  default_sandbox_runtime_source_level: string;

  @Sql(derived(() => config().PLATFORM_MAX_SANDBOX_RUNTIME_SECONDS))
  @Field(() => Int, { description: 'The platform-wide sandbox runtime ceiling in seconds (a server setting).' })
  platform_max_sandbox_runtime_seconds: number;

  @Sql(derived(() => config().PLATFORM_DEFAULT_SANDBOX_RUNTIME_SECONDS))
  @Field(() => Int, { description: 'The platform-wide default sandbox runtime in seconds (a server setting).' })
  platform_default_sandbox_runtime_seconds: number;
}
