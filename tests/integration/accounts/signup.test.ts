import { MembershipModel, OrganizationModel, ProjectModel, UserModel, WorkspaceModel } from '../../../models';
import { createUser, randomKey } from '../../factories/accounts';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
const PASSWORD = 'a-long-enough-password';

describe('POST /auth/signup', () => {
  it('creates the user, a personal organization, a default workspace and a default project with 201', async () => {
    const username = randomKey('s');
    const res = await rest(api, 'POST', '/auth/signup', {
      body: { email: `${username}@example.test`, password: PASSWORD, username, full_name: 'Sam Signup' },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      username,
      email_address: `${username}@example.test`,
      access_token: expect.any(String),
      requires_verification: false,
    });
    const user = await UserModel.findByPk(res.body.id);
    expect(user?.password_hash).not.toContain(PASSWORD);
    const org = await OrganizationModel.findOne({ where: { key: username } });
    expect(org).toMatchObject({ name: 'Sam Signup', is_personal: true });
    const membership = await MembershipModel.findOne({ where: { organization_id: org!.id, user_id: res.body.id } });
    expect(membership?.role).toBe('owner');
    const workspace = await WorkspaceModel.findOne({ where: { organization_id: org!.id, key: 'default' } });
    expect(workspace).toMatchObject({ name: 'Default', is_default: true });
    const project = await ProjectModel.findOne({ where: { workspace_id: workspace!.id, key: 'default' } });
    expect(project).not.toBeNull();

    const me = await rest(api, 'GET', '/user', { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body.username).toBe(username);
  });

  it('derives the username from the e-mail local part and adds a numeric suffix on a clash', async () => {
    const local = randomKey('local');
    const first = await rest(api, 'POST', '/auth/signup', { body: { email: `${local}@one.test`, password: PASSWORD } });
    const second = await rest(api, 'POST', '/auth/signup', { body: { email: `${local}@two.test`, password: PASSWORD } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(first.body.username).toBe(local);
    expect(second.body.username).toBe(`${local}-2`);
    expect(await OrganizationModel.findOne({ where: { key: `${local}-2` } })).not.toBeNull();
  });

  it('gives concurrent signups with the same e-mail local part distinct generated usernames', async () => {
    const local = randomKey('race');
    const replies = await Promise.all(
      ['a.test', 'b.test', 'c.test', 'd.test'].map((domain) =>
        rest(api, 'POST', '/auth/signup', { body: { email: `${local}@${domain}`, password: PASSWORD } }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual([201, 201, 201, 201]);
    const names = replies.map((reply) => reply.body.username).sort();
    expect(new Set(names).size).toBe(4);
    expect(names).toContain(local);
  });

  it('gives 50 concurrent signups sharing an e-mail local part 50 distinct usernames and organizations (201 each)', async () => {
    const local = randomKey('crowd');
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, index) => rest(api, 'POST', '/auth/signup', { body: { email: `${local}@d${index}.test`, password: PASSWORD } })),
    );
    expect(replies.filter((reply) => reply.status !== 201).map((reply) => reply.text)).toEqual([]);
    const names = replies.map((reply) => reply.body.username);
    expect(new Set(names).size).toBe(50);
    expect(names).toContain(local);
    for (const name of names) expect(name).toMatch(new RegExp(`^${local}(-[a-z0-9]+)?$`));
    expect(await OrganizationModel.count({ where: { key: names } })).toBe(50);
  });

  it('still answers 409 already_exists_error to all but one of concurrent signups with the same e-mail', async () => {
    const email = `${randomKey('twin')}@example.test`;
    const replies = await Promise.all(Array.from({ length: 5 }, () => rest(api, 'POST', '/auth/signup', { body: { email, password: PASSWORD } })));
    expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const reply of replies.filter((item) => item.status === 409)) expect(reply.body.type).toBe('already_exists_error');
    expect(await UserModel.count({ where: { email } })).toBe(1);
  });

  it('never marks the address as verified at signup', async () => {
    const res = await rest(api, 'POST', '/auth/signup', { body: { email: `${randomKey('v')}@example.test`, password: PASSWORD } });
    expect(res.status).toBe(201);
    expect((await UserModel.findByPk(res.body.id))!.email_verified_at).toBeNull();
  });

  it('turns an e-mail local part into a slug', async () => {
    const hex = randomKey('x').slice(2);
    const res = await rest(api, 'POST', '/auth/signup', { body: { email: `Jo.Ann_${hex}@example.test`, password: PASSWORD } });
    expect(res.status).toBe(201);
    expect(res.body.username).toBe(`jo-ann-${hex}`);
  });

  it('rejects a duplicate e-mail with 409 already_exists_error', async () => {
    const existing = await createUser();
    const res = await rest(api, 'POST', '/auth/signup', { body: { email: existing.email, password: PASSWORD } });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('already_exists_error');
  });

  it('rejects a duplicate e-mail that differs only in case with 409', async () => {
    const existing = await createUser();
    const res = await rest(api, 'POST', '/auth/signup', { body: { email: existing.email.toUpperCase(), password: PASSWORD } });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('already_exists_error');
  });

  it('refuses a malformed ASCII address (spaces around it, a line break in it) with one item, not with the ASCII rule beside it', async () => {
    for (const email of ['  Padded@Example.com ', 'line\r\nbreak@example.com']) {
      const res = await rest(api, 'POST', '/auth/signup', { body: { email, password: PASSWORD } });
      expect([res.status, res.body.errors]).toEqual([422, [{ loc: ['body', 'email'], msg: 'value is not a valid email address', type: 'value_error' }]]);
    }
  });

  it('refuses an address that is not ASCII with 422 at body.email: case-folding would make a look-alike the same account', async () => {
    // "\u212a" is the Kelvin sign, which PostgreSQL's citext and JavaScript's toLowerCase fold onto "k".
    const local = randomKey('k');
    const kelvin = `\u212a${local.slice(1)}@example.test`;
    for (const email of [kelvin, `${local}@ex\u212aample.test`, `${local}@bücher.example`]) {
      const res = await rest(api, 'POST', '/auth/signup', { body: { email, password: PASSWORD } });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual([{ loc: ['body', 'email'], msg: 'value is not a valid email address: write it in ASCII (an internationalized domain in its xn-- form)', type: 'value_error' }]);
    }
    // The ASCII address is the real owner's to sign up with; a domain in its xn-- form is ASCII.
    expect((await rest(api, 'POST', '/auth/signup', { body: { email: `${local}@example.test`, password: PASSWORD } })).status).toBe(201);
    expect((await rest(api, 'POST', '/auth/signup', { body: { email: `${local}@xn--bcher-kva.example`, password: PASSWORD } })).status).toBe(201);
    // An invitation names a new address too. Routes that only look an account up (mail goes to the stored
    // address) take any well-formed one, so an account made before the rule can still recover itself.
    const owner = await createUser();
    const invited = await rest(api, 'POST', `/org/${owner.orgKey}/members`, { body: { email: kelvin, role: 'reader' }, token: owner.token });
    expect([invited.status, invited.body.errors?.[0]?.loc]).toEqual([422, ['body', 'email']]);
    for (const path of ['/auth/forgot-password', '/auth/resend-verification']) expect((await rest(api, 'POST', path, { body: { email: kelvin } })).status).toBe(202);
  });

  it('rejects a taken username with 409 already_exists_error', async () => {
    const existing = await createUser();
    const res = await rest(api, 'POST', '/auth/signup', {
      body: { email: `${randomKey('n')}@example.test`, password: PASSWORD, username: existing.username },
    });
    expect(res.status).toBe(409);
    expect(res.body.type).toBe('already_exists_error');
  });

  it('rejects an invalid username with 400 invalid_username_error', async () => {
    const res = await rest(api, 'POST', '/auth/signup', {
      body: { email: `${randomKey('n')}@example.test`, password: PASSWORD, username: 'Not A Slug!' },
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('invalid_username_error');
  });

  it('rejects accept_terms false with 400 invalid_error', async () => {
    const res = await rest(api, 'POST', '/auth/signup', {
      body: { email: `${randomKey('n')}@example.test`, password: PASSWORD, accept_terms: false },
    });
    expect(res.status).toBe(400);
    expect(res.body.type).toBe('invalid_error');
  });

  it('rejects a malformed e-mail with 422 at body.email', async () => {
    const res = await rest(api, 'POST', '/auth/signup', { body: { email: 'not-an-email', password: PASSWORD } });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('validation_error');
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'email'] })]);
  });

  it('rejects a password under 8 characters with 422 string_too_short at body.password', async () => {
    const res = await rest(api, 'POST', '/auth/signup', { body: { email: `${randomKey('n')}@example.test`, password: 'short' } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'password'], type: 'string_too_short' })]);
  });

  it.each([
    ['password', 'password'],
    ['12345678', '12345678'],
    ['eight spaces', '        '],
    ['a common password with other letter case and outer spaces', ' Password1 '],
    ['tabs and newlines only', '\t\n\t\n\t\n\t\n'],
  ])('rejects %s with 422 value_error at body.password', async (_label, password) => {
    const email = `${randomKey('n')}@example.test`;
    const res = await rest(api, 'POST', '/auth/signup', { body: { email, password } });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('validation_error');
    expect(res.body.errors).toEqual([expect.objectContaining({ loc: ['body', 'password'], type: 'value_error' })]);
    expect(await UserModel.count({ where: { email } })).toBe(0);
  });

  it('refuses a common password over GraphQL with 422 at input.password', async () => {
    const res = await gql(api, 'mutation($input: SignupInput!) { signup(input: $input) { id } }', {
      input: { email: `${randomKey('g')}@example.test`, password: '12345678' },
    });
    expect(res.body.errors?.[0].extensions).toMatchObject({ type: 'validation_error', status: 422 });
    expect(res.body.errors?.[0].extensions.errors).toEqual([expect.objectContaining({ loc: ['input', 'password'], type: 'value_error' })]);
  });

  it('reports every missing field at once', async () => {
    const res = await rest(api, 'POST', '/auth/signup', { body: {} });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: string[]; type: string }) => [item.loc.join('.'), item.type]);
    expect(items).toEqual(expect.arrayContaining([['body.email', 'missing'], ['body.password', 'missing']]));
  });

  it('signs up through the GraphQL mutation', async () => {
    const username = randomKey('g');
    const res = await gql(api, 'mutation($input: SignupInput!) { signup(input: $input) { id username email_address access_token requires_verification } }', {
      input: { email: `${username}@example.test`, password: PASSWORD, username },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.signup).toMatchObject({ username, access_token: expect.any(String), requires_verification: false });
  });
});
