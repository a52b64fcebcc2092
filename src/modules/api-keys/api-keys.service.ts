import type { Transaction } from 'sequelize';
import { ApiKeyModel, MembershipModel, WorkspaceModel } from '../../../models';
import { config } from '../../config/config';
import { requireViewer, type AppContext } from '../../core/context';
import type { Viewer } from '../../core/viewer';
import { requireUnrestrictedKey } from '../../core/tenancy/tenant-scope';
import type { AccessPolicy } from '../../core/authz/scopes';
import { pageWindow, type ListPageArgs } from '../../core/pagination';
import { AuthenticationError, ConflictError, ForbiddenError, InvalidError, NotFoundError, validationFailure } from '../../core/errors';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import { randomBase62, sha256 } from '../../core/secrets';
import type { CreateApiKeyInput } from './api-keys.inputs';

export const API_KEY_PREFIX = 'apk_';
const API_KEY_RANDOM_LENGTH = 40;
/** What a key looks like: never three dot-separated parts, so it is never taken for a JWT. */
export const API_KEY_PATTERN = /^apk_[A-Za-z0-9]{40}$/;

export function generateApiKey(): { key: string; hash: string; masked: string } {
  const random = randomBase62(API_KEY_RANDOM_LENGTH);
  const key = `${API_KEY_PREFIX}${random}`;
  return { key, hash: sha256(key), masked: `${API_KEY_PREFIX}${random.slice(0, 4)}…${random.slice(-4)}` };
}

/** Restricted keys may list keys and revoke themselves, nothing more: a key never mints a wider key. */
function assertMayManageKeys(viewer: Viewer): void {
  requireUnrestrictedKey(viewer, 'A restricted API key cannot manage API keys');
}

async function isMember(userId: string, organizationId: string): Promise<boolean> {
  return Boolean(await MembershipModel.findOne({ where: { organization_id: organizationId, user_id: userId } }));
}

/** Every value of allowed_scopes must be a scope some module declares (422 enum before any look-up). */
function checkScopes(policy: AccessPolicy, scopes: readonly string[] | null | undefined): void {
  const known: readonly string[] = policy.scopes;
  if (scopes?.some((scope) => !known.includes(scope))) {
    throw validationFailure(['input', 'allowed_scopes'], `each value in allowed_scopes must be one of: ${known.join(', ')}`, 'enum');
  }
}

/** Creates a key (the only time its secret is returned), optionally limited to an org, a workspace and scopes. */
export async function createApiKey(ctx: AppContext, input: CreateApiKeyInput): Promise<{ row: ApiKeyModel; key: string }> {
  const viewer = requireViewer(ctx);
  checkScopes(ctx.policy, input.allowed_scopes);
  let organizationId = input.org_id ?? null;
  let workspaceId: string | null = null;
  if (organizationId && !(await isMember(viewer.user.id, organizationId))) throw new NotFoundError('Organization');
  if (input.workspace_id) {
    const workspace = await WorkspaceModel.findByPk(input.workspace_id);
    if (
      !workspace ||
      (organizationId && workspace.organization_id !== organizationId) ||
      !(await isMember(viewer.user.id, workspace.organization_id))
    ) {
      throw new NotFoundError('Workspace');
    }
    workspaceId = workspace.id;
    organizationId = workspace.organization_id;
  }
  assertMayManageKeys(viewer);
  const generated = generateApiKey();
  const row = await database().transaction(async (transaction) => {
    await lockKeyOwner(viewer, transaction);
    if (organizationId) await holdMembership(viewer.user.id, organizationId, transaction);
    const [{ active }] = await plainQuery<{ active: number }>(
      'SELECT count(*)::int AS active FROM api_keys WHERE user_id = $user AND revoked_at IS NULL',
      { user: viewer.user.id },
      { transaction },
    );
    const cap = config().MAX_ACTIVE_API_KEYS;
    if (active >= cap) throw new ConflictError(`At most ${cap} active API keys per user; revoke one first`);
    return ApiKeyModel.create(
      {
        user_id: viewer.user.id,
        name: input.name ?? null,
        key_hash: generated.hash,
        masked_key: generated.masked,
        allow_self_revoke: input.allow_self_revoke ?? false,
        organization_id: organizationId,
        workspace_id: workspaceId,
        allowed_scopes: input.allowed_scopes ? [...new Set(input.allowed_scopes)] : null,
      },
      { transaction },
    );
  });
  return { row, key: generated.key };
}

/**
 * Locks the user's row for the rest of the transaction: key creations of one
 * user run one at a time (so the count above cannot be raced past the cap),
 * and after a concurrent password reset (which updates the row and revokes
 * every key) the caller's credential is checked again, so a credential the
 * reset invalidated cannot mint a key that outlives it.
 */
async function lockKeyOwner(viewer: Viewer, transaction: Transaction): Promise<void> {
  const invalid = () => new AuthenticationError('Invalid or revoked credential', 'token_error');
  // A row locked after waiting is read in its newest version (the reset's token_version).
  // FOR NO KEY UPDATE: it still serialises a user's key creations and waits for a reset's UPDATE, but not for a foreign
  // key's check on the row (an invitation the user makes), which holdMembership's lock order would otherwise deadlock with.
  const [owner] = await plainQuery<{ token_version: number }>('SELECT token_version FROM users WHERE id = $user FOR NO KEY UPDATE', { user: viewer.user.id }, { transaction });
  if (!owner) throw invalid();
  if (!viewer.apiKey) {
    if (owner.token_version !== viewer.user.token_version) throw invalid();
    return;
  }
  // Its own statement, so its snapshot is taken after the lock (and sees a reset that committed meanwhile).
  const [key] = await plainQuery<{ active: boolean }>('SELECT revoked_at IS NULL AS active FROM api_keys WHERE id = $key', { key: viewer.apiKey.id }, { transaction });
  if (!key?.active) throw invalid();
}

/**
 * A key limited to an organization is stored only while its user is a
 * member: the organization's row is held (the lock the key's foreign key
 * takes anyway) so a removal, which locks it first (members.service.ts),
 * either committed before (and the membership, read in a statement of its
 * own after the lock, is gone: 404) or waits for the key and then revokes it.
 */
async function holdMembership(userId: string, organizationId: string, transaction: Transaction): Promise<void> {
  await plainQuery('SELECT 1 FROM organizations WHERE id = $org FOR KEY SHARE', { org: organizationId }, { transaction });
  const held = await plainQuery('SELECT 1 FROM memberships WHERE user_id = $user AND organization_id = $org', { user: userId, org: organizationId }, { transaction });
  if (!held.length) throw new NotFoundError('Organization');
}

/**
 * A membership that ends (removed, or left) revokes the user's keys limited
 * to that organization or one of its workspaces, in the removal's
 * transaction: they would otherwise come back to life if the user were
 * invited again, though the owner who removed the user cannot revoke them.
 */
export async function revokeOrganizationKeys(userId: string, organizationId: string, transaction: Transaction): Promise<number> {
  const [revoked] = await ApiKeyModel.update({ revoked_at: new Date() }, { where: { user_id: userId, organization_id: organizationId, revoked_at: null }, transaction });
  return revoked;
}

/** A password reset revokes every active key of the user, in the reset's transaction (after it has locked the user's row). */
export async function revokeAllApiKeys(userId: string, transaction: Transaction): Promise<number> {
  const [revoked] = await ApiKeyModel.update({ revoked_at: new Date() }, { where: { user_id: userId, revoked_at: null }, transaction });
  return revoked;
}

/** The caller's keys, newest first; revoked ones only when asked for. */
export async function listApiKeys(ctx: AppContext, includeRevoked: boolean, page: ListPageArgs = {}): Promise<ApiKeyModel[]> {
  const viewer = requireViewer(ctx);
  return ApiKeyModel.findAll({
    where: includeRevoked ? { user_id: viewer.user.id } : { user_id: viewer.user.id, revoked_at: null },
    order: [['created_at', 'DESC'], ['id', 'DESC']],
    ...pageWindow(page),
  });
}

/** Revokes one of the caller's keys (idempotent); another user's key is 404. */
export async function revokeApiKey(ctx: AppContext, id: string): Promise<ApiKeyModel> {
  const viewer = requireViewer(ctx);
  const row = await ApiKeyModel.findOne({ where: { id, user_id: viewer.user.id } });
  if (!row) throw new NotFoundError('API key');
  assertMayManageKeys(viewer);
  return markRevoked(row);
}

/** Idempotent: a key revoked earlier keeps its first revocation time (one conditional UPDATE: of two revocations at once, the first stays). */
async function markRevoked(row: ApiKeyModel): Promise<ApiKeyModel> {
  if (row.revoked_at) return row;
  await ApiKeyModel.update({ revoked_at: new Date() }, { where: { id: row.id, revoked_at: null } });
  return row.reload();
}

/** Revokes the key the request was made with, when that key allows it. */
export async function revokeCallingApiKey(ctx: AppContext): Promise<ApiKeyModel> {
  const viewer = requireViewer(ctx);
  if (!viewer.apiKey) throw new InvalidError('Only a request made with an API key can revoke its own key');
  if (!viewer.apiKey.allow_self_revoke) throw new ForbiddenError('This API key does not allow self-revocation');
  const row = await ApiKeyModel.findOne({ where: { id: viewer.apiKey.id, user_id: viewer.user.id } });
  if (!row) throw new NotFoundError('API key');
  return markRevoked(row);
}
