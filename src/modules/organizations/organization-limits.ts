import type { OrganizationRecord } from '../../../models';
import { config } from '../../config/config';

/** An organization's limits: its own settings where it has them, else the platform's (config). */

/**
 * The sandbox runtime ceiling that applies to an organization: its own when
 * set (never above the platform's), else the platform's. Other modules check
 * runtimes such as an evaluation's task_timeout_sec against it.
 */
export function effectiveSandboxCeiling(org: { max_sandbox_runtime_seconds: number | null }): number {
  const platform = config().PLATFORM_MAX_SANDBOX_RUNTIME_SECONDS;
  return Math.min(org.max_sandbox_runtime_seconds ?? platform, platform);
}

/** The default sandbox runtime of an organization (its own, else the platform's), never above its ceiling. */
export function effectiveSandboxDefault(org: {
  max_sandbox_runtime_seconds: number | null;
  default_sandbox_runtime_seconds: number | null;
}): number {
  const value = org.default_sandbox_runtime_seconds ?? config().PLATFORM_DEFAULT_SANDBOX_RUNTIME_SECONDS;
  return Math.min(value, effectiveSandboxCeiling(org));
}

/** The organization's member limit, or the platform default. */
export function maxMembers(org: Pick<OrganizationRecord, 'max_members'>): number {
  return org.max_members ?? config().DEFAULT_MAX_MEMBERS;
}
