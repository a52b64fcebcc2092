import { Op } from 'sequelize';
import { ApiKeyModel, UserModel } from '../../../models';
import type { Authenticator } from '../../core/module';
import type { Viewer } from '../../core/viewer';
import { sha256 } from '../accounts/secrets';
import { API_KEY_PATTERN, API_KEY_PREFIX } from './api-keys.service';

/** last_used_at is written at most once a minute per key. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Looks a key up by its hash on every request, so a revoked key fails at once
 * (401 token_error from the context), and records its use.
 */
export async function resolveApiKey(key: string): Promise<Viewer | null> {
  if (!API_KEY_PATTERN.test(key)) return null;
  const row = await ApiKeyModel.findOne({ where: { key_hash: sha256(key), revoked_at: null } });
  if (!row) return null;
  const user = await UserModel.findByPk(row.user_id);
  if (!user) return null;
  const now = Date.now();
  if (!row.last_used_at || now - row.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
    const staleBefore = new Date(now - LAST_USED_RESOLUTION_MS);
    await ApiKeyModel.update(
      { last_used_at: new Date(now) },
      { where: { id: row.id, [Op.or]: [{ last_used_at: null }, { last_used_at: { [Op.lt]: staleBefore } }] }, silent: true },
    );
  }
  return {
    user,
    apiKey: {
      id: row.id,
      organization_id: row.organization_id,
      workspace_id: row.workspace_id,
      allowed_scopes: row.allowed_scopes,
      allow_self_revoke: row.allow_self_revoke,
    },
  };
}

/** `X-API-Key: apk_…` or `Authorization: Bearer apk_…`. */
export const apiKeyAuthenticator: Authenticator = {
  name: 'API key',
  accepts: (credential) => credential.startsWith(API_KEY_PREFIX),
  authenticate: resolveApiKey,
};
