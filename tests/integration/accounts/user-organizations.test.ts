import { OrganizationModel } from '../../../models';
import { config, overrideConfig } from '../../../src/config/config';
import { onStatement } from '../../../src/db/database';
import { effectiveSandboxCeiling } from '../../../src/modules/organizations/organization-limits';
import { addMember, createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { gql, rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let user: TestUser;

const ORGANIZATION_FIELDS = [
  'id',
  'key',
  'name',
  'description',
  'is_active',
  'member_count',
  'max_members',
  'can_manage_members',
  'plan_type',
  'created_at',
  'updated_at',
  'max_sandbox_runtime_seconds',
  'effective_max_sandbox_runtime_seconds',
  'max_sandbox_runtime_source_level',
  'default_sandbox_runtime_seconds',
  'effective_default_sandbox_runtime_seconds',
  'default_sandbox_runtime_source_level',
  'platform_max_sandbox_runtime_seconds',
  'platform_default_sandbox_runtime_seconds',
];

beforeAll(async () => {
  user = await createUser({ full_name: 'Una User' });
});

describe('GET /user', () => {
  it('returns the authenticated user without secrets', async () => {
    const res = await rest(api, 'GET', '/user', { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: user.id,
      email_address: user.email,
      username: user.username,
      full_name: 'Una User',
      email_opt_in: false,
      created_at: expect.any(String),
    });
  });

  it('answers without credentials with 401 authentication_error', async () => {
    const res = await rest(api, 'GET', '/user');
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('authentication_error');
  });

  it('answers a malformed token with 401 token_error', async () => {
    const res = await rest(api, 'GET', '/user', { token: 'aaa.bbb.ccc' });
    expect(res.status).toBe(401);
    expect(res.body.type).toBe('token_error');
  });
});

describe('GET /org/{org}', () => {
  it('returns every organization field with platform defaults', async () => {
    const res = await rest(api, 'GET', `/org/${user.orgKey}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...ORGANIZATION_FIELDS].sort());
    const settings = config();
    expect(res.body).toMatchObject({
      key: user.orgKey,
      name: 'Una User',
      description: null,
      is_active: true,
      member_count: 1,
      max_members: settings.DEFAULT_MAX_MEMBERS,
      can_manage_members: true,
      plan_type: 'free',
      max_sandbox_runtime_seconds: null,
      effective_max_sandbox_runtime_seconds: settings.PLATFORM_MAX_SANDBOX_RUNTIME_SECONDS,
      max_sandbox_runtime_source_level: 'platform',
      default_sandbox_runtime_seconds: null,
      effective_default_sandbox_runtime_seconds: settings.PLATFORM_DEFAULT_SANDBOX_RUNTIME_SECONDS,
      default_sandbox_runtime_source_level: 'platform',
      platform_max_sandbox_runtime_seconds: settings.PLATFORM_MAX_SANDBOX_RUNTIME_SECONDS,
      platform_default_sandbox_runtime_seconds: settings.PLATFORM_DEFAULT_SANDBOX_RUNTIME_SECONDS,
    });
  });

  it('reports organization-level limits with source level organization', async () => {
    const owner = await createUser();
    await OrganizationModel.update(
      { max_sandbox_runtime_seconds: 7200, default_sandbox_runtime_seconds: 600, max_members: 5 },
      { where: { key: owner.orgKey } },
    );
    const res = await rest(api, 'GET', `/org/${owner.orgKey}`, { token: owner.token });
    expect(res.body).toMatchObject({
      max_members: 5,
      max_sandbox_runtime_seconds: 7200,
      effective_max_sandbox_runtime_seconds: 7200,
      max_sandbox_runtime_source_level: 'organization',
      default_sandbox_runtime_seconds: 600,
      effective_default_sandbox_runtime_seconds: 600,
      default_sandbox_runtime_source_level: 'organization',
    });
    const org = await OrganizationModel.findOne({ where: { key: owner.orgKey } });
    expect(effectiveSandboxCeiling(org!)).toBe(7200);
  });

  it('never lets an organization ceiling exceed the platform ceiling', async () => {
    const owner = await createUser();
    const platform = config().PLATFORM_MAX_SANDBOX_RUNTIME_SECONDS;
    await OrganizationModel.update({ max_sandbox_runtime_seconds: platform * 2 }, { where: { key: owner.orgKey } });
    const res = await rest(api, 'GET', `/org/${owner.orgKey}`, { token: owner.token });
    expect(res.body).toMatchObject({
      max_sandbox_runtime_seconds: platform * 2,
      effective_max_sandbox_runtime_seconds: platform,
      max_sandbox_runtime_source_level: 'organization',
    });
  });

  it('keeps the effective default under an organization ceiling below the platform default', async () => {
    const owner = await createUser();
    await OrganizationModel.update({ max_sandbox_runtime_seconds: 60 }, { where: { key: owner.orgKey } });
    const res = await rest(api, 'GET', `/org/${owner.orgKey}`, { token: owner.token });
    expect(res.body.effective_default_sandbox_runtime_seconds).toBe(60);
    expect(res.body.default_sandbox_runtime_source_level).toBe('platform');
  });

  it('reads the platform values from the settings', async () => {
    const previous = config();
    overrideConfig({ PLATFORM_MAX_SANDBOX_RUNTIME_SECONDS: 1234, PLATFORM_DEFAULT_SANDBOX_RUNTIME_SECONDS: 321, DEFAULT_MAX_MEMBERS: 7 });
    try {
      const res = await rest(api, 'GET', `/org/${user.orgKey}`, { token: user.token });
      expect(res.body).toMatchObject({
        platform_max_sandbox_runtime_seconds: 1234,
        effective_max_sandbox_runtime_seconds: 1234,
        platform_default_sandbox_runtime_seconds: 321,
        effective_default_sandbox_runtime_seconds: 321,
        max_members: 7,
      });
    } finally {
      overrideConfig(previous);
    }
  });

  it('counts members and lets only owners manage them', async () => {
    const team = await createOrgWithRoles();
    const asOwner = await rest(api, 'GET', `/org/${team.orgKey}`, { token: team.owner.token });
    expect(asOwner.body).toMatchObject({ member_count: 3, can_manage_members: true });
    for (const member of [team.contributor, team.reader]) {
      const res = await rest(api, 'GET', `/org/${team.orgKey}`, { token: member.token });
      expect(res.status).toBe(200);
      expect(res.body.can_manage_members).toBe(false);
    }
  });

  it('hides an organization from a non-member with 404', async () => {
    const team = await createOrgWithRoles();
    const res = await rest(api, 'GET', `/org/${team.orgKey}`, { token: team.outsider.token });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
  });

  it('answers an unknown organization with the same 404', async () => {
    const res = await rest(api, 'GET', '/org/no-such-org-anywhere', { token: user.token });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
  });
});

describe('GET /user/organizations', () => {
  it('returns a bare array of the caller\'s organizations, personal first', async () => {
    const member = await createUser();
    const team = await createOrgWithRoles();
    await addMember(team.orgKey, member, 'reader');
    const res = await rest(api, 'GET', '/user/organizations', { token: member.token });
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((org: { key: string }) => org.key)).toEqual([member.orgKey, team.orgKey]);
    expect(Object.keys(res.body[1]).sort()).toEqual([...ORGANIZATION_FIELDS].sort());
    expect(res.body[1]).toMatchObject({ member_count: 4, can_manage_members: false });
    expect(res.body[0]).toMatchObject({ member_count: 1, can_manage_members: true });
  });

  it('never lists an organization the caller does not belong to', async () => {
    const team = await createOrgWithRoles();
    const res = await rest(api, 'GET', '/user/organizations', { token: team.outsider.token });
    expect(res.body.map((org: { key: string }) => org.key)).toEqual([team.outsider.orgKey]);
  });

  it('counts the members of every listed organization in one SQL statement', async () => {
    const member = await createUser();
    for (let index = 0; index < 3; index += 1) {
      const other = await createUser();
      await addMember(other.orgKey, member, 'reader');
    }
    const statements: string[] = [];
    const stop = onStatement((sql) => {
      if (/FROM memberships m\s+WHERE m.organization_id = ANY/i.test(sql)) statements.push(sql);
    });
    try {
      const res = await rest(api, 'GET', '/user/organizations', { token: member.token });
      expect(res.body).toHaveLength(4);
      expect(res.body.every((org: { member_count: number }) => org.member_count === 2 || org.member_count === 1)).toBe(true);
    } finally {
      stop();
    }
    expect(statements).toHaveLength(1);
  });

  it('lists the organizations through GraphQL', async () => {
    const res = await gql(api, '{ user_organizations { key member_count can_manage_members effective_max_sandbox_runtime_seconds } me: user { username } }', {}, user.token);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.user_organizations).toEqual([
      expect.objectContaining({ key: user.orgKey, member_count: 1, can_manage_members: true }),
    ]);
    expect(res.body.data.me.username).toBe(user.username);
  });

  it('gets one organization through GraphQL and hides others with not_found_error', async () => {
    const team = await createOrgWithRoles();
    const ok = await runOperation(api, 'Organization', { org: team.orgKey }, team.reader.token);
    expect(ok.body.errors).toBeUndefined();
    expect(ok.body.data.organization).toMatchObject({ key: team.orgKey, member_count: 3, can_manage_members: false });
    const hidden = await runOperation(api, 'Organization', { org: team.orgKey }, team.outsider.token);
    expect(hidden.body.errors?.[0].extensions).toMatchObject({ type: 'not_found_error', status: 404 });
  });
});
