import crypto from 'node:crypto';
import pino from 'pino';
import { QueryTypes } from 'sequelize';
import { config, overrideConfig } from '../../../src/config/config';
import { logger } from '../../../src/config/logger';
import { database } from '../../../src/db/database';
import { forgetSecretsKeyring, parseSecretsKey, SecretKeyMismatchError } from '../../../src/modules/secrets/secrets-crypto';
import { resealSecrets, revealSecretValue } from '../../../src/modules/secrets/secrets.service';
import { MAX_SECRETS_PER_USER } from '../../../src/modules/secrets/secrets.types';
import { SECRET_PRESETS } from '../../../src/modules/secrets/secret-presets';
import { createUser, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { createSecret, secretName } from '../../factories/secrets';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let user: TestUser;

beforeAll(async () => {
  user = await createUser();
});

/** A value long enough to be shown as `abc…wxyz`, unique to the test. */
const plainValue = () => `sk-test-${crypto.randomBytes(16).toString('hex')}`;

interface StoredRow {
  user_id: string;
  name: string;
  provider: string | null;
  ciphertext: Buffer;
  iv: Buffer;
  auth_tag: Buffer;
  key_id: string;
  masked_value: string;
}

async function storedRow(id: string): Promise<StoredRow | undefined> {
  const [row] = await database().query<StoredRow>('SELECT * FROM user_secrets WHERE id = $id', { bind: { id }, type: QueryTypes.SELECT });
  return row;
}

function locs(body: { errors: { loc: (string | number)[]; type: string }[] }): [string, string][] {
  return body.errors.map((item) => [item.loc.join('.'), item.type]);
}

describe('POST /user/secrets', () => {
  it('creates a secret with 201 and shows only its masked value', async () => {
    const value = plainValue();
    const name = secretName('OPENAI_COMPAT');
    const res = await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name, value } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      name,
      provider: null,
      masked_value: `sk-…${value.slice(-4)}`,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(res.body.updated_at).toBe(res.body.created_at);
    expect(res.text).not.toContain(value);
    expect(res.text).not.toContain(value.slice(3, -4));
  });

  it('stores the value sealed: not the plain text, a 12-byte IV, a 16-byte tag and the key id; it opens to the value', async () => {
    const value = plainValue();
    const secret = await createSecret(api, user, { value });
    const row = await storedRow(secret.id);
    expect(row).toMatchObject({ user_id: user.id, name: secret.name, masked_value: secret.masked_value, provider: null });
    expect(Buffer.isBuffer(row!.ciphertext)).toBe(true);
    expect(row!.ciphertext.equals(Buffer.from(value, 'utf8'))).toBe(false);
    expect(row!.ciphertext.toString('utf8')).not.toContain(value);
    expect(row!.ciphertext.toString('latin1')).not.toContain(value.slice(0, 8));
    expect(row!.iv).toHaveLength(12);
    expect(row!.auth_tag).toHaveLength(16);
    expect(row!.key_id).toMatch(/^[0-9a-f]{8}$/);
    expect(JSON.stringify(row)).not.toContain(value);
    await expect(revealSecretValue(user.id, secret.id)).resolves.toBe(value);
  });

  it('masks a value shorter than 16 characters entirely', async () => {
    const secret = await createSecret(api, user, { value: 'short-secret' });
    expect(secret.masked_value).toBe('********');
  });

  it('rejects a name that is not an environment-variable name with 422 at body.name', async () => {
    for (const name of ['1STARTS_WITH_DIGIT', 'has-dash', 'has space', 'dot.ted', 'ÜMLAUT', 'A'.repeat(256)]) {
      const res = await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name, value: 'x' } });
      expect([name, res.status]).toEqual([name, 422]);
      expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'name'] })]);
    }
    const tooLong = await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: 'A'.repeat(256), value: 'x' } });
    expect(locs(tooLong.body)).toEqual([['body.name', 'string_too_long']]);
    const pattern = await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: 'has-dash', value: 'x' } });
    expect(locs(pattern.body)).toEqual([['body.name', 'string_pattern_mismatch']]);
    expect((await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: `_${'A'.repeat(254)}`, value: 'x' } })).status).toBe(201);
  });

  it('rejects an empty name and an empty value together, and a value over 65,536 characters', async () => {
    const empty = await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: '', value: '' } });
    expect(empty.status).toBe(422);
    expect(locs(empty.body)).toEqual(expect.arrayContaining([['body.name', 'string_too_short'], ['body.value', 'string_too_short']]));
    const long = await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: secretName(), value: 'x'.repeat(65_537) } });
    expect(long.status).toBe(422);
    expect(locs(long.body)).toEqual([['body.value', 'string_too_long']]);
    const longest = await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: secretName(), value: 'x'.repeat(65_536) } });
    expect(longest.status).toBe(201);
    const missing = await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: secretName() } });
    expect(missing.status).toBe(422);
    expect(locs(missing.body)).toEqual([['body.value', 'missing']]);
  });

  it('answers a name the user already has with 409 already_exists_error, and leaves the first value', async () => {
    const value = plainValue();
    const first = await createSecret(api, user, { value });
    const again = await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: first.name, value: plainValue() } });
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('already_exists_error');
    await expect(revealSecretValue(user.id, first.id)).resolves.toBe(value);
  });

  it('lets two users have a secret of the same name', async () => {
    const other = await createUser();
    const name = secretName();
    await createSecret(api, user, { name });
    expect((await createSecret(api, other, { name })).name).toBe(name);
  });

  it('answers two concurrent creations of one name with one 201 and one 409, never a 500', async () => {
    const racer = await createUser();
    for (let round = 0; round < 5; round += 1) {
      const name = secretName('RACE');
      const replies = await Promise.all(
        [0, 1].map(() => rest(api, 'POST', '/user/secrets', { token: racer.token, body: { name, value: plainValue() } })),
      );
      expect(replies.map((res) => res.status).sort()).toEqual([201, 409]);
      expect(replies.find((res) => res.status === 409)!.body.type).toBe('already_exists_error');
    }
  });

  it(`refuses more than ${MAX_SECRETS_PER_USER} secrets per user with 409 conflict_error`, async () => {
    const hoarder = await createUser();
    await database().query(
      `INSERT INTO user_secrets (user_id, name, ciphertext, iv, auth_tag, key_id, masked_value)
       SELECT $user, 'FILLER_' || n, '\\x00', '\\x00', '\\x00', 'filler00', '********' FROM generate_series(1, $count) n`,
      { bind: { user: hoarder.id, count: MAX_SECRETS_PER_USER - 1 }, type: QueryTypes.INSERT },
    );
    await createSecret(api, hoarder);
    const over = await rest(api, 'POST', '/user/secrets', { token: hoarder.token, body: { name: secretName(), value: 'x' } });
    expect(over.status).toBe(409);
    expect(over.body.type).toBe('conflict_error');
    const list = await rest(api, 'GET', '/user/secrets', { token: hoarder.token });
    expect(list.body.total).toBe(MAX_SECRETS_PER_USER);
    expect(list.body.secrets).toHaveLength(MAX_SECRETS_PER_USER);
  });

  it('requires a credential (401)', async () => {
    const res = await rest(api, 'POST', '/user/secrets', { body: { name: secretName(), value: 'x' } });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('authentication_error');
    for (const [method, path] of [['GET', '/user/secrets'], ['GET', '/user/secrets/presets'], ['GET', `/user/secrets/${crypto.randomUUID()}`], ['DELETE', `/user/secrets/${crypto.randomUUID()}`]]) {
      expect((await rest(api, method, path)).status).toBe(401);
    }
    expect((await rest(api, 'PUT', `/user/secrets/${crypto.randomUUID()}`, { body: { value: 'x' } })).status).toBe(401);
    expect((await rest(api, 'POST', '/user/secrets/preset', { body: { provider: 'openai', value: 'x' } })).status).toBe(401);
  });
});

describe('GET /user/secrets and /user/secrets/{id}', () => {
  it("lists the caller's secrets by name, masked, with their total", async () => {
    const owner = await createUser();
    const values = [plainValue(), plainValue(), plainValue()];
    const created = [];
    for (const [index, name] of ['ZETA', 'ALPHA', 'MIDDLE'].entries()) created.push(await createSecret(api, owner, { name, value: values[index] }));
    const res = await rest(api, 'GET', '/user/secrets', { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(3);
    expect(res.body.secrets.map((secret: { name: string }) => secret.name)).toEqual(['ALPHA', 'MIDDLE', 'ZETA']);
    expect(res.body.secrets[0]).toEqual(created[1]);
    for (const value of values) expect(res.text).not.toContain(value);
  });

  it('answers an empty list for a user without secrets', async () => {
    const fresh = await createUser();
    const res = await rest(api, 'GET', '/user/secrets', { token: fresh.token });
    expect(res.body).toEqual({ secrets: [], total: 0 });
  });

  it('reads one secret, masked', async () => {
    const value = plainValue();
    const secret = await createSecret(api, user, { value });
    const res = await rest(api, 'GET', `/user/secrets/${secret.id}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(secret);
    expect(res.text).not.toContain(value);
  });

  it('answers an unknown id with 404 and a malformed one with 422 at path.id', async () => {
    const unknown = await rest(api, 'GET', `/user/secrets/${crypto.randomUUID()}`, { token: user.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toBe('not_found_error');
    const malformed = await rest(api, 'GET', '/user/secrets/not-a-uuid', { token: user.token });
    expect(malformed.status).toBe(422);
    expect(locs(malformed.body)).toEqual([['path.id', 'uuid_parsing']]);
  });
});

describe("another user's secret", () => {
  it('is 404 on GET, PUT and DELETE, never listed, and stays unchanged', async () => {
    const [alice, bob] = await Promise.all([createUser(), createUser()]);
    const value = plainValue();
    const secret = await createSecret(api, alice, { value });
    for (const [method, body] of [['GET', undefined], ['PUT', { value: 'stolen' }], ['DELETE', undefined]] as const) {
      const res = await rest(api, method, `/user/secrets/${secret.id}`, { token: bob.token, body });
      expect([method, res.status, res.body.type]).toEqual([method, 404, 'not_found_error']);
    }
    expect((await rest(api, 'GET', '/user/secrets', { token: bob.token })).body).toEqual({ secrets: [], total: 0 });
    expect((await rest(api, 'GET', `/user/secrets/${secret.id}`, { token: alice.token })).body).toEqual(secret);
    await expect(revealSecretValue(alice.id, secret.id)).resolves.toBe(value);
    await expect(revealSecretValue(bob.id, secret.id)).rejects.toThrow(/not found/);
  });
});

describe('PUT /user/secrets/{id}', () => {
  it('replaces the value (a new IV, the new mask, a later updated_at) and never the name', async () => {
    const secret = await createSecret(api, user, { value: plainValue() });
    const before = await storedRow(secret.id);
    const value = `gsk_${crypto.randomBytes(16).toString('hex')}`;
    const res = await rest(api, 'PUT', `/user/secrets/${secret.id}`, { token: user.token, body: { value, name: 'RENAMED' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...secret, masked_value: `gsk…${value.slice(-4)}`, updated_at: expect.any(String) });
    expect(Date.parse(res.body.updated_at)).toBeGreaterThan(Date.parse(secret.updated_at));
    expect(res.text).not.toContain(value);
    const after = await storedRow(secret.id);
    expect(after!.name).toBe(secret.name);
    expect(after!.iv.equals(before!.iv)).toBe(false);
    expect(after!.ciphertext.equals(before!.ciphertext)).toBe(false);
    await expect(revealSecretValue(user.id, secret.id)).resolves.toBe(value);
  });

  it('rejects an empty value with 422 at body.value and a missing body with 422', async () => {
    const secret = await createSecret(api, user);
    const empty = await rest(api, 'PUT', `/user/secrets/${secret.id}`, { token: user.token, body: { value: '' } });
    expect(empty.status).toBe(422);
    expect(locs(empty.body)).toEqual([['body.value', 'string_too_short']]);
    const none = await rest(api, 'PUT', `/user/secrets/${secret.id}`, { token: user.token, body: {} });
    expect(none.status).toBe(422);
    expect(locs(none.body)).toEqual([['body.value', 'missing']]);
  });

  it('answers an unknown id with 404', async () => {
    const res = await rest(api, 'PUT', `/user/secrets/${crypto.randomUUID()}`, { token: user.token, body: { value: 'x' } });
    expect(res.status).toBe(404);
  });
});

describe('DELETE /user/secrets/{id}', () => {
  it('deletes the secret and its sealed value, replying {id, deleted: true}; a second delete is 404', async () => {
    const secret = await createSecret(api, user);
    const res = await rest(api, 'DELETE', `/user/secrets/${secret.id}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: secret.id, deleted: true });
    expect(await storedRow(secret.id)).toBeUndefined();
    expect((await rest(api, 'GET', `/user/secrets/${secret.id}`, { token: user.token })).status).toBe(404);
    expect((await rest(api, 'DELETE', `/user/secrets/${secret.id}`, { token: user.token })).status).toBe(404);
  });

  it('frees the name for a new secret', async () => {
    const secret = await createSecret(api, user);
    await rest(api, 'DELETE', `/user/secrets/${secret.id}`, { token: user.token });
    expect((await createSecret(api, user, { name: secret.name })).id).not.toBe(secret.id);
  });
});

describe('presets', () => {
  it('lists every preset, configured only once the user has a secret of its name', async () => {
    const owner = await createUser();
    const before = await rest(api, 'GET', '/user/secrets/presets', { token: owner.token });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ presets: SECRET_PRESETS.map((preset) => ({ provider: preset.provider, env_var_name: preset.env_var_name, configured: false })) });
    expect(before.body.presets).toEqual(
      expect.arrayContaining([
        { provider: 'openai', env_var_name: 'OPENAI_API_KEY', configured: false },
        { provider: 'anthropic', env_var_name: 'ANTHROPIC_API_KEY', configured: false },
        { provider: 'huggingface', env_var_name: 'HF_TOKEN', configured: false },
      ]),
    );
    const value = plainValue();
    const created = await rest(api, 'POST', '/user/secrets/preset', { token: owner.token, body: { provider: 'openai', value } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'OPENAI_API_KEY',
      provider: 'openai',
      masked_value: `sk-…${value.slice(-4)}`,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(created.text).not.toContain(value);
    // A secret made by hand with a preset's name configures it too.
    await createSecret(api, owner, { name: 'ANTHROPIC_API_KEY' });
    const after = await rest(api, 'GET', '/user/secrets/presets', { token: owner.token });
    const configured = after.body.presets.filter((preset: { configured: boolean }) => preset.configured).map((preset: { provider: string }) => preset.provider);
    expect(configured).toEqual(['openai', 'anthropic']);
    await expect(revealSecretValue(owner.id, created.body.id)).resolves.toBe(value);
  });

  it('answers a preset whose name the user already has with 409', async () => {
    const owner = await createUser();
    expect((await rest(api, 'POST', '/user/secrets/preset', { token: owner.token, body: { provider: 'groq', value: 'x' } })).status).toBe(201);
    const again = await rest(api, 'POST', '/user/secrets/preset', { token: owner.token, body: { provider: 'groq', value: 'y' } });
    expect(again.status).toBe(409);
    expect(again.body.type).toBe('already_exists_error');
    await createSecret(api, owner, { name: 'MISTRAL_API_KEY' });
    expect((await rest(api, 'POST', '/user/secrets/preset', { token: owner.token, body: { provider: 'mistral', value: 'x' } })).status).toBe(409);
  });

  it('rejects an unknown provider with 422 enum at body.provider, and an empty value at body.value', async () => {
    const res = await rest(api, 'POST', '/user/secrets/preset', { token: user.token, body: { provider: 'acme', value: '' } });
    expect(res.status).toBe(422);
    expect(locs(res.body)).toEqual(expect.arrayContaining([['body.provider', 'enum']]));
    const missing = await rest(api, 'POST', '/user/secrets/preset', { token: user.token, body: { value: 'x' } });
    expect(locs(missing.body)).toEqual([['body.provider', 'missing']]);
    const empty = await rest(api, 'POST', '/user/secrets/preset', { token: user.token, body: { provider: 'together', value: '' } });
    expect(locs(empty.body)).toEqual([['body.value', 'string_too_short']]);
  });
});

describe('API keys', () => {
  it('lets an unrestricted key manage secrets', async () => {
    const owner = await createUser();
    const key = await createApiKey(api, owner);
    const res = await rest(api, 'POST', '/user/secrets', { headers: { 'x-api-key': key.key }, body: { name: secretName(), value: 'x' } });
    expect(res.status).toBe(201);
    expect((await rest(api, 'DELETE', `/user/secrets/${res.body.id}`, { headers: { 'x-api-key': key.key } })).status).toBe(200);
  });

  it('lets a limited key read secrets and presets but not create, update or delete them (403; 404 first for an unknown id)', async () => {
    const owner = await createUser();
    const secret = await createSecret(api, owner);
    const org = await rest(api, 'GET', `/org/${owner.orgKey}`, { token: owner.token });
    for (const limits of [{ org_id: org.body.id }, { allowed_scopes: ['traces:write'] }, { allowed_scopes: [] }]) {
      const key = await createApiKey(api, owner, limits);
      const asKey = { headers: { 'x-api-key': key.key } };
      expect((await rest(api, 'GET', '/user/secrets', asKey)).body.total).toBe(1);
      expect((await rest(api, 'GET', `/user/secrets/${secret.id}`, asKey)).status).toBe(200);
      expect((await rest(api, 'GET', '/user/secrets/presets', asKey)).status).toBe(200);
      const refused = [
        await rest(api, 'POST', '/user/secrets', { ...asKey, body: { name: secretName(), value: 'x' } }),
        await rest(api, 'POST', '/user/secrets/preset', { ...asKey, body: { provider: 'openai', value: 'x' } }),
        await rest(api, 'PUT', `/user/secrets/${secret.id}`, { ...asKey, body: { value: 'x' } }),
        await rest(api, 'DELETE', `/user/secrets/${secret.id}`, asKey),
      ];
      expect(refused.map((res) => [res.status, res.body.type])).toEqual(Array(4).fill([403, 'forbidden_error']));
      expect((await rest(api, 'DELETE', `/user/secrets/${crypto.randomUUID()}`, asKey)).status).toBe(404);
    }
    expect((await rest(api, 'GET', `/user/secrets/${secret.id}`, { token: owner.token })).body).toEqual(secret);
  });
});

describe('GraphQL', () => {
  it('creates, reads, updates and deletes a secret, never returning the value', async () => {
    const owner = await createUser();
    const value = plainValue();
    const fields = 'id name provider masked_value created_at updated_at';
    const created = await gql(api, `mutation($input: CreateUserSecretInput!) { create_user_secret(input: $input) { ${fields} } }`, { input: { name: 'GQL_SECRET', value } }, owner.token);
    expect(created.body.errors).toBeUndefined();
    const secret = created.body.data.create_user_secret;
    expect(secret).toMatchObject({ name: 'GQL_SECRET', provider: null, masked_value: `sk-…${value.slice(-4)}` });
    const read = await gql(api, `query($id: UUID!) { user_secret(id: $id) { ${fields} } user_secrets { total secrets { id } } secret_presets { presets { provider configured } } }`, { id: secret.id }, owner.token);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.user_secret).toEqual(secret);
    expect(read.body.data.user_secrets).toEqual({ total: 1, secrets: [{ id: secret.id }] });
    const updated = await gql(api, `mutation($id: UUID!, $input: UpdateUserSecretInput!) { update_user_secret(id: $id, input: $input) { masked_value } }`, { id: secret.id, input: { value: 'tiny' } }, owner.token);
    expect(updated.body.data.update_user_secret).toEqual({ masked_value: '********' });
    const preset = await gql(api, 'mutation { create_preset_secret(input: { provider: huggingface, value: "hf_abc" }) { name provider } }', {}, owner.token);
    expect(preset.body.data.create_preset_secret).toEqual({ name: 'HF_TOKEN', provider: 'huggingface' });
    const deleted = await gql(api, 'mutation($id: UUID!) { delete_user_secret(id: $id) { id deleted } }', { id: secret.id }, owner.token);
    expect(deleted.body.data.delete_user_secret).toEqual({ id: secret.id, deleted: true });
    for (const res of [created, read, updated]) expect(res.text).not.toContain(value);
  });

  it("answers another user's id with a not-found error and a bad name with the validation error", async () => {
    const secret = await createSecret(api, user);
    const stranger = await createUser();
    const res = await gql(api, 'query($id: UUID!) { user_secret(id: $id) { id } }', { id: secret.id }, stranger.token);
    expect(res.body.data?.user_secret ?? null).toBeNull();
    expect(res.body.errors![0].extensions.type).toBe('not_found_error');
    const bad = await gql(api, 'mutation { create_user_secret(input: { name: "9X", value: "v" }) { id } }', {}, user.token);
    expect(bad.body.errors![0].extensions.type).toBe('validation_error');
  });
});

describe('logs', () => {
  it('never write a secret value, whatever the outcome', async () => {
    const stream = (logger as unknown as Record<symbol, { write(line: string): boolean }>)[pino.symbols.streamSym];
    const lines: string[] = [];
    const spy = jest.spyOn(stream, 'write').mockImplementation((line: string) => {
      lines.push(line);
      return true;
    });
    const level = logger.level;
    logger.level = 'trace';
    const value = plainValue();
    try {
      const secret = await createSecret(api, user, { value });
      await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: secret.name, value } });
      await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: 'bad-name', value } });
      await rest(api, 'PUT', `/user/secrets/${secret.id}`, { token: user.token, body: { value: `${value}-2` } });
      await rest(api, 'POST', '/user/secrets/preset', { token: user.token, body: { provider: 'nope', value } });
      await gql(api, 'mutation($input: CreateUserSecretInput!) { create_user_secret(input: $input) { id } }', { input: { name: secret.name, value } }, user.token);
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      logger.level = level;
      spy.mockRestore();
    }
    expect(lines.length).toBeGreaterThan(5);
    expect(lines.filter((line) => line.includes(value))).toEqual([]);
  });
});

describe('key rotation', () => {
  const saved = { SECRETS_KEY: config().SECRETS_KEY, SECRETS_KEY_PREVIOUS: config().SECRETS_KEY_PREVIOUS };
  const useKeys = (current: string, previous?: string) => {
    overrideConfig({ SECRETS_KEY: current, SECRETS_KEY_PREVIOUS: previous });
    forgetSecretsKeyring();
  };
  afterAll(() => {
    overrideConfig(saved);
    forgetSecretsKeyring();
  });

  it('opens values under SECRETS_KEY_PREVIOUS, re-seals them under SECRETS_KEY, and fails clearly under a key it does not hold', async () => {
    const [oldKey, newKey, strayKey] = [0, 1, 2].map(() => crypto.randomBytes(32).toString('hex'));
    const owner = await createUser();
    useKeys(oldKey);
    const value = plainValue();
    const secret = await createSecret(api, owner, { value });
    expect((await storedRow(secret.id))!.key_id).toBe(parseSecretsKey(oldKey).id);

    useKeys(newKey, oldKey);
    await expect(revealSecretValue(owner.id, secret.id)).resolves.toBe(value);
    const fresh = await createSecret(api, owner);
    expect((await storedRow(fresh.id))!.key_id).toBe(parseSecretsKey(newKey).id);
    const { resealed } = await resealSecrets();
    expect(resealed).toBeGreaterThanOrEqual(1);
    expect((await storedRow(secret.id))!.key_id).toBe(parseSecretsKey(newKey).id);
    await expect(revealSecretValue(owner.id, secret.id)).resolves.toBe(value);

    useKeys(strayKey);
    await expect(revealSecretValue(owner.id, secret.id)).rejects.toThrow(SecretKeyMismatchError);
    await expect(revealSecretValue(owner.id, secret.id)).rejects.toThrow(new RegExp(`sealed with key ${parseSecretsKey(newKey).id}`));
    // Reads never open a value: listing still works under any key.
    expect((await rest(api, 'GET', '/user/secrets', { token: owner.token })).body.total).toBe(2);
  });
});
