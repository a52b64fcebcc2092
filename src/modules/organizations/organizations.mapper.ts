import type { OrganizationRecord } from '../../../models';
import { config } from '../../config/config';
import type { OrganizationResponse } from './organizations.types';
import { effectiveSandboxCeiling, effectiveSandboxDefault, maxMembers } from './organizations.service';

/** Row → GraphQL type; member_count resolves through a loader. */
export function toOrganization(row: OrganizationRecord, canManageMembers: boolean): OrganizationResponse {
  const settings = config();
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    is_active: row.is_active,
    max_members: maxMembers(row),
    can_manage_members: canManageMembers,
    plan_type: row.plan_type,
    created_at: row.created_at,
    updated_at: row.updated_at,
    max_sandbox_runtime_seconds: row.max_sandbox_runtime_seconds,
    effective_max_sandbox_runtime_seconds: effectiveSandboxCeiling(row),
    max_sandbox_runtime_source_level: row.max_sandbox_runtime_seconds != null ? 'organization' : 'platform',
    default_sandbox_runtime_seconds: row.default_sandbox_runtime_seconds,
    effective_default_sandbox_runtime_seconds: effectiveSandboxDefault(row),
    default_sandbox_runtime_source_level: row.default_sandbox_runtime_seconds != null ? 'organization' : 'platform',
    platform_max_sandbox_runtime_seconds: settings.PLATFORM_MAX_SANDBOX_RUNTIME_SECONDS,
    platform_default_sandbox_runtime_seconds: settings.PLATFORM_DEFAULT_SANDBOX_RUNTIME_SECONDS,
  };
}
