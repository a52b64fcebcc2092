import { Op } from 'sequelize';
import { ApiKeyModel, USER_RECORD_COLUMNS, type UserRecord } from '../../../models';
import type { Authenticated, Authenticator } from '../../core/module';
import type { ScopeHint } from '../../core/tenancy/scope';
import { prefetchedScope, scopeJoinSql } from '../../core/tenancy/tenant-scope';
import type { ApiKeyScope } from '../../core/viewer';
import { nestRow, plainQuery, present } from '../../db/hot';
import { sha256 } from '../../core/secrets';
import { API_KEY_PATTERN, API_KEY_PREFIX } from './api-keys.service';

/** last_used_at is written at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

const KEY_SELECT = ['id', 'organization_id', 'workspace_id', 'allowed_scopes', 'allow_self_revoke', 'last_used_at']
  .map((column) => `k.${column} AS "k.${column}"`)
  .join(', ');
const USER_SELECT = USER_RECORD_COLUMNS.map((column) => `u.${column} AS "u.${column}"`).join(', ');
const SCOPED = scopeJoinSql('$org', '$workspace');
const KEY_SQL = `SELECT ${KEY_SELECT}, ${USER_SELECT} FROM api_keys k JOIN users u ON u.id = k.user_id
                  WHERE k.key_hash = $key_hash AND k.revoked_at IS NULL`;
const KEY_SCOPE_SQL = `SELECT ${KEY_SELECT}, ${USER_SELECT}, ${SCOPED.select} FROM api_keys k JOIN users u ON u.id = k.user_id ${SCOPED.joins}
                        WHERE k.key_hash = $key_hash AND k.revoked_at IS NULL`;

/**
 * Looks a key up by its hash on every request, so a revoked key fails at once
 * (401 token_error from the context), in one named statement with its user
 * (and, when known, the request's organization, membership and workspace), and
 * records its use at most once a minute.
 */
export async function resolveApiKey(key: string, hint: ScopeHint | null = null): Promise<Authenticated | null> {
  if (!API_KEY_PATTERN.test(key)) return null;
  const [row] = hint
    ? await plainQuery<Record<string, unknown>>(KEY_SCOPE_SQL, { key_hash: sha256(key), org: hint.org, workspace: hint.workspace }, { prepare: 'auth_api_key_scope' })
    : await plainQuery<Record<string, unknown>>(KEY_SQL, { key_hash: sha256(key) }, { prepare: 'auth_api_key' });
  if (!row) return null;
  const nested = nestRow(row);
  const found = nested.k as unknown as ApiKeyScope & { last_used_at: Date | null };
  const user = present<UserRecord>(nested.u);
  if (!user) return null;
  const now = Date.now();
  if (!found.last_used_at || now - found.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
    const staleBefore = new Date(now - LAST_USED_RESOLUTION_MS);
    await ApiKeyModel.update(
      { last_used_at: new Date(now) },
      { where: { id: found.id, [Op.or]: [{ last_used_at: null }, { last_used_at: { [Op.lt]: staleBefore } }] }, silent: true },
    );
  }
  return {
    viewer: {
      user,
      apiKey: {
        id: found.id,
        organization_id: found.organization_id,
        workspace_id: found.workspace_id,
        allowed_scopes: found.allowed_scopes,
        allow_self_revoke: found.allow_self_revoke,
      },
    },
    prefetched: hint ? prefetchedScope(hint, nested) : null,
  };
}

/** `X-API-Key: apk_…` or `Authorization: Bearer apk_…`. */
export const apiKeyAuthenticator: Authenticator = {
  name: 'API key',
  accepts: (credential) => credential.startsWith(API_KEY_PREFIX),
  authenticate: resolveApiKey,
};
