import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import { requireViewer, type AppContext } from '../../core/context';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../core/errors';
import { requireUnrestrictedKey } from '../../core/tenancy/tenant-scope';
import type { Viewer } from '../../core/viewer';
import { database } from '../../db/database';
import { plainQuery } from '../../db/hot';
import { maskValue, open, seal, secretAad, secretsKeyring, type SealedValue } from './secrets-crypto';
import { presetOf, SECRET_PRESETS, type SecretProviderName } from './secret-presets';
import type { CreatePresetSecretInput, CreateUserSecretInput, UpdateUserSecretInput } from './secrets.inputs';
import { MAX_SECRETS_PER_USER } from './secrets.types';

/**
 * User secrets (decisions §14; rules in README.md). Every statement carries
 * the caller's user id: another user's secret is "not found". The columns
 * read for a reply never include the sealed value.
 */
export interface UserSecretRow {
  id: string;
  name: string;
  provider: string | null;
  masked_value: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, name, provider, masked_value, created_at, updated_at';

/** A key limited to an organization, a workspace or scopes reads secrets (masked) and names them in evaluations, but never writes them. */
function assertMayWriteSecrets(viewer: Viewer): void {
  requireUnrestrictedKey(viewer, 'A limited API key cannot create, change or delete secrets');
}

export async function listUserSecrets(ctx: AppContext): Promise<UserSecretRow[]> {
  const viewer = requireViewer(ctx);
  return plainQuery<UserSecretRow>(`SELECT ${COLUMNS} FROM user_secrets WHERE user_id = $user ORDER BY name, id`, { user: viewer.user.id });
}

async function findOwned(userId: string, id: string, transaction?: Transaction): Promise<UserSecretRow> {
  const [row] = await plainQuery<UserSecretRow>(`SELECT ${COLUMNS} FROM user_secrets WHERE id = $id AND user_id = $user`, { id, user: userId }, { transaction });
  if (!row) throw new NotFoundError('Secret');
  return row;
}

export async function getUserSecret(ctx: AppContext, id: string): Promise<UserSecretRow> {
  return findOwned(requireViewer(ctx).user.id, id);
}

export async function createUserSecret(ctx: AppContext, input: CreateUserSecretInput): Promise<UserSecretRow> {
  const viewer = requireViewer(ctx);
  assertMayWriteSecrets(viewer);
  return insertSecret(viewer.user.id, input.name, null, input.value);
}

export async function createPresetSecret(ctx: AppContext, input: CreatePresetSecretInput): Promise<UserSecretRow> {
  const viewer = requireViewer(ctx);
  const preset = presetOf(input.provider);
  assertMayWriteSecrets(viewer);
  return insertSecret(viewer.user.id, preset.env_var_name, preset.provider, input.value);
}

function sealFor(userId: string, id: string, value: string): SealedValue & { masked_value: string } {
  return { ...seal(value, secretsKeyring().current, secretAad(userId, id)), masked_value: maskValue(value) };
}

/**
 * One user's creations run one at a time (a lock on the user's row, which
 * does not block the foreign-key checks of other writes), so the count
 * cannot be raced past the cap; a name taken, even by a concurrent
 * creation, is 409 from `ON CONFLICT`, never a unique violation.
 */
async function insertSecret(userId: string, name: string, provider: SecretProviderName | null, value: string): Promise<UserSecretRow> {
  const id = crypto.randomUUID();
  const sealed = sealFor(userId, id, value);
  return database().transaction(async (transaction) => {
    await plainQuery('SELECT 1 FROM users WHERE id = $user FOR NO KEY UPDATE', { user: userId }, { transaction });
    const [{ held }] = await plainQuery<{ held: number }>('SELECT count(*)::int AS held FROM user_secrets WHERE user_id = $user', { user: userId }, { transaction });
    const [row] = await plainQuery<UserSecretRow>(
      `INSERT INTO user_secrets (id, user_id, name, provider, ciphertext, iv, auth_tag, key_id, masked_value)
       VALUES ($id, $user, $name, $provider, $ciphertext, $iv, $auth_tag, $key_id, $masked_value)
       ON CONFLICT (user_id, name) DO NOTHING
       RETURNING ${COLUMNS}`,
      { id, user: userId, name, provider, ...sealed },
      { transaction },
    );
    if (!row) throw new AlreadyExistsError(`A secret named ${name} already exists`);
    if (held >= MAX_SECRETS_PER_USER) throw new ConflictError(`At most ${MAX_SECRETS_PER_USER} secrets per user; delete one first`);
    return row;
  });
}

/** A new value under the current key (and a new IV); the name never changes. */
export async function updateUserSecret(ctx: AppContext, id: string, input: UpdateUserSecretInput): Promise<UserSecretRow> {
  const viewer = requireViewer(ctx);
  await findOwned(viewer.user.id, id);
  assertMayWriteSecrets(viewer);
  const [row] = await plainQuery<UserSecretRow>(
    `UPDATE user_secrets SET ciphertext = $ciphertext, iv = $iv, auth_tag = $auth_tag, key_id = $key_id, masked_value = $masked_value,
            updated_at = clock_timestamp()
      WHERE id = $id AND user_id = $user
      RETURNING ${COLUMNS}`,
    { id, user: viewer.user.id, ...sealFor(viewer.user.id, id, input.value) },
  );
  if (!row) throw new NotFoundError('Secret');
  return row;
}

export async function deleteUserSecret(ctx: AppContext, id: string): Promise<{ id: string; deleted: true }> {
  const viewer = requireViewer(ctx);
  await findOwned(viewer.user.id, id);
  assertMayWriteSecrets(viewer);
  const [row] = await plainQuery<{ id: string }>('DELETE FROM user_secrets WHERE id = $id AND user_id = $user RETURNING id', { id, user: viewer.user.id });
  if (!row) throw new NotFoundError('Secret');
  return { id: row.id, deleted: true };
}

/** Every preset, `configured` when the caller has a secret of its name (from the preset or not). */
export async function listSecretPresets(ctx: AppContext): Promise<{ provider: SecretProviderName; env_var_name: string; configured: boolean }[]> {
  const viewer = requireViewer(ctx);
  const names = SECRET_PRESETS.map((preset) => preset.env_var_name);
  const rows = await plainQuery<{ name: string }>('SELECT name FROM user_secrets WHERE user_id = $user AND name = ANY($names::text[])', { user: viewer.user.id, names });
  const configured = new Set(rows.map((row) => row.name));
  return SECRET_PRESETS.map((preset) => ({ provider: preset.provider, env_var_name: preset.env_var_name, configured: configured.has(preset.env_var_name) }));
}

/**
 * Evaluation `secret_ids`: each must be a secret of the user (404 naming the
 * first that is not, the same for another user's id and an unknown one).
 * Returns the ids once each, in the order given.
 */
export async function requireOwnSecrets(userId: string, ids: readonly string[], transaction?: Transaction): Promise<string[]> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return [];
  const rows = await plainQuery<{ id: string }>('SELECT id FROM user_secrets WHERE user_id = $user AND id = ANY($ids::uuid[])', { user: userId, ids: wanted }, { transaction });
  const found = new Set(rows.map((row) => row.id));
  const missing = wanted.find((id) => !found.has(id));
  if (missing) throw new NotFoundError(`Secret ${missing}`);
  return wanted;
}

/**
 * The plain value, for the code that hands secrets to a run (never a
 * reply): opened with the key its row names, so a value sealed under a key
 * this process does not hold fails with SecretKeyMismatchError.
 */
export async function revealSecretValue(userId: string, id: string): Promise<string> {
  const [row] = await plainQuery<SealedValue>('SELECT ciphertext, iv, auth_tag, key_id FROM user_secrets WHERE id = $id AND user_id = $user', { id, user: userId });
  if (!row) throw new NotFoundError('Secret');
  return open(row, secretsKeyring().all, secretAad(userId, id));
}

/**
 * Key rotation: re-seals, under SECRETS_KEY, every value still sealed under
 * another key this process holds (SECRETS_KEY_PREVIOUS), `batch` rows per
 * transaction; returns how many it re-sealed. Values under a key it does not
 * hold are left as they are and counted in `unreadable`.
 */
export async function resealSecrets(batch = 100): Promise<{ resealed: number; unreadable: number }> {
  const keys = secretsKeyring();
  const held = keys.all.filter((key) => key.id !== keys.current.id).map((key) => key.id);
  let resealed = 0;
  if (held.length) {
    for (;;) {
      const done = await database().transaction(async (transaction) => {
        const rows = await plainQuery<SealedValue & { id: string; user_id: string }>(
          `SELECT id, user_id, ciphertext, iv, auth_tag, key_id FROM user_secrets WHERE key_id = ANY($held::text[])
            ORDER BY id LIMIT $batch FOR UPDATE SKIP LOCKED`,
          { held, batch },
          { transaction },
        );
        for (const row of rows) {
          const aad = secretAad(row.user_id, row.id);
          const sealed = seal(open(row, keys.all, aad), keys.current, aad);
          await plainQuery(
            'UPDATE user_secrets SET ciphertext = $ciphertext, iv = $iv, auth_tag = $auth_tag, key_id = $key_id WHERE id = $id',
            { id: row.id, ...sealed },
            { transaction },
          );
        }
        return rows.length;
      });
      resealed += done;
      if (done < batch) break;
    }
  }
  const [{ unreadable }] = await plainQuery<{ unreadable: number }>(
    'SELECT count(*)::int AS unreadable FROM user_secrets WHERE NOT (key_id = ANY($ids::text[]))',
    { ids: keys.all.map((key) => key.id) },
  );
  return { resealed, unreadable };
}
