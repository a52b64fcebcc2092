import { ChatIntegrationModel, OrganizationModel } from '../../../models';
import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { gql, rest } from '../../helpers/http';
import { runOperation } from '../../helpers/operations';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();

let owner: TestUser;
let contributor: TestUser;
let reader: TestUser;
let outsider: TestUser;
let orgKey: string;

const DEFAULT_CONNECTION = {
  status: 'disconnected',
  bot_handle: '',
  bot_user_id: '',
  team_id: '',
  team_name: '',
  team_url: '',
  connected_at: null,
  disconnected_at: null,
  last_event_at: null,
  connected_by: null,
  disconnect_reason: null,
  masked_credentials: {},
  settings: { follow_ups: 'requester', shared_channels: 'link', thread_detail: 'full' },
};

beforeAll(async () => {
  ({ owner, contributor, reader, outsider, orgKey } = await createOrgWithRoles());
});

describe('GET ORG/integrations/chat', () => {
  it('answers the disconnected defaults before anything was written, for any member', async () => {
    const res = await rest(api, 'GET', `/org/${orgKey}/integrations/chat`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DEFAULT_CONNECTION);
  });

  it("hides another organization's integration with 404", async () => {
    const res = await rest(api, 'GET', `/org/${orgKey}/integrations/chat`, { token: outsider.token });
    expect(res.status).toBe(404);
    expect(res.body.type).toBe('not_found_error');
  });

  it('requires authentication', async () => {
    expect((await rest(api, 'GET', `/org/${orgKey}/integrations/chat`)).status).toBe(401);
  });

  it('shows who connected the integration as a user identity', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const organization = await OrganizationModel.findOne({ where: { key: org } });
    const connectedAt = new Date('2026-01-02T03:04:05.000Z');
    await ChatIntegrationModel.create({
      organization_id: organization!.id,
      status: 'connected',
      bot_handle: '@agent',
      team_name: 'Team',
      connected_at: connectedAt,
      connected_by: boss.id,
      masked_credentials: { bot_token: 'xoxb-****abcd' },
    });
    const res = await rest(api, 'GET', `/org/${org}/integrations/chat`, { token: boss.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'connected',
      bot_handle: '@agent',
      team_name: 'Team',
      connected_at: connectedAt.toISOString(),
      connected_by: { email: boss.email, full_name: null, id: boss.id, username: boss.username },
      masked_credentials: { bot_token: 'xoxb-****abcd' },
    });
  });
});

describe('PUT ORG/integrations/chat/settings', () => {
  it('updates a subset of the settings, leaves the others and answers the full connection', async () => {
    const { owner: boss, reader: member, orgKey: org } = await createOrgWithRoles();
    const res = await rest(api, 'PUT', `/org/${org}/integrations/chat/settings`, { token: boss.token, body: { follow_ups: 'any_linked' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...DEFAULT_CONNECTION, settings: { follow_ups: 'any_linked', shared_channels: 'link', thread_detail: 'full' } });

    const second = await rest(api, 'PUT', `/org/${org}/integrations/chat/settings`, {
      token: boss.token,
      body: { shared_channels: 'same', thread_detail: 'final' },
    });
    expect(second.body.settings).toEqual({ follow_ups: 'any_linked', shared_channels: 'same', thread_detail: 'final' });

    // The write applies to the next read at once.
    const read = await rest(api, 'GET', `/org/${org}/integrations/chat`, { token: member.token });
    expect(read.body.settings).toEqual({ follow_ups: 'any_linked', shared_channels: 'same', thread_detail: 'final' });
  });

  it('accepts an empty body and keeps everything', async () => {
    const res = await rest(api, 'PUT', `/org/${orgKey}/integrations/chat/settings`, { token: owner.token, body: {} });
    expect(res.status).toBe(200);
    expect(res.body.settings).toEqual(DEFAULT_CONNECTION.settings);
  });

  it('rejects unknown keys with 422 extra_forbidden', async () => {
    const res = await rest(api, 'PUT', `/org/${orgKey}/integrations/chat/settings`, {
      token: owner.token,
      body: { follow_ups: 'requester', colour: 'blue' },
    });
    expect(res.status).toBe(422);
    expect(res.body.type).toBe('validation_error');
    expect(res.body.errors).toEqual([{ loc: ['body', 'colour'], msg: expect.any(String), type: 'extra_forbidden' }]);
    // The OpenAPI document says so, for a generated client; an input that ignores unknown keys says nothing.
    const schemas = (api.app.openApi() as { components: { schemas: Record<string, { additionalProperties?: unknown }> } }).components.schemas;
    expect(schemas.ChatSettingsUpdateInput.additionalProperties).toBe(false);
    expect(Object.entries(schemas).filter(([, schema]) => schema.additionalProperties === false).map(([name]) => name).sort()).toEqual(['ChatSettingsUpdateInput', 'MediaSourceInput', 'MessagePartInput']);
  });

  it('rejects values outside each enum with 422 enum, all at once', async () => {
    const res = await rest(api, 'PUT', `/org/${orgKey}/integrations/chat/settings`, {
      token: owner.token,
      body: { follow_ups: 'everyone', shared_channels: 'other', thread_detail: 'none' },
    });
    expect(res.status).toBe(422);
    const items = res.body.errors.map((item: { loc: unknown[]; type: string }) => [item.loc, item.type]);
    expect(items).toEqual(
      expect.arrayContaining([
        [['body', 'follow_ups'], 'enum'],
        [['body', 'shared_channels'], 'enum'],
        [['body', 'thread_detail'], 'enum'],
      ]),
    );
    expect(items).toHaveLength(3);
  });

  it("rejects a contributor's and a reader's settings update with 403", async () => {
    for (const user of [contributor, reader]) {
      const res = await rest(api, 'PUT', `/org/${orgKey}/integrations/chat/settings`, { token: user.token, body: { thread_detail: 'link' } });
      expect(res.status).toBe(403);
      expect(res.body.type).toBe('forbidden_error');
    }
    const read = await rest(api, 'GET', `/org/${orgKey}/integrations/chat`, { token: owner.token });
    expect(read.body.settings.thread_detail).toBe('full');
  });

  it("hides another organization's settings from a non-member's update with 404", async () => {
    const res = await rest(api, 'PUT', `/org/${orgKey}/integrations/chat/settings`, { token: outsider.token, body: { thread_detail: 'link' } });
    expect(res.status).toBe(404);
  });

  it('requires authentication before validating', async () => {
    const res = await rest(api, 'PUT', `/org/${orgKey}/integrations/chat/settings`, { body: { nope: 1 } });
    expect(res.status).toBe(401);
  });

  it('keeps one record per organization under concurrent writes', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const results = await Promise.all(
      ['full', 'final', 'link'].map((thread_detail) =>
        rest(api, 'PUT', `/org/${org}/integrations/chat/settings`, { token: boss.token, body: { thread_detail } }),
      ),
    );
    expect(results.map((res) => res.status)).toEqual([200, 200, 200]);
    const organization = await OrganizationModel.findOne({ where: { key: org } });
    expect(await ChatIntegrationModel.count({ where: { organization_id: organization!.id } })).toBe(1);
  });

  it('reads and updates the settings through GraphQL', async () => {
    const { owner: boss, orgKey: org } = await createOrgWithRoles();
    const updated = await runOperation(api, 'UpdateChatSettings', { org, input: { thread_detail: 'link' } }, boss.token);
    expect(updated.body.errors).toBeUndefined();
    expect(updated.body.data.update_chat_settings).toMatchObject({
      status: 'disconnected',
      connected_by: null,
      settings: { follow_ups: 'requester', shared_channels: 'link', thread_detail: 'link' },
    });
    const read = await runOperation(api, 'ChatIntegration', { org }, boss.token);
    expect(read.body.data.chat_integration.settings.thread_detail).toBe('link');
  });

  it('rejects an unknown setting through GraphQL as a validation error', async () => {
    const res = await gql(
      api,
      'mutation($org: String!, $input: ChatSettingsUpdateInput!) { update_chat_settings(org: $org, input: $input) { status } }',
      { org: orgKey, input: { colour: 'blue' } },
      owner.token,
    );
    expect(res.body.errors?.[0].extensions.type).toBe('validation_error');
  });

  it("rejects a reader's update through GraphQL with forbidden_error", async () => {
    const res = await gql(
      api,
      'mutation($org: String!, $input: ChatSettingsUpdateInput!) { update_chat_settings(org: $org, input: $input) { status } }',
      { org: orgKey, input: { follow_ups: 'any_linked' } },
      reader.token,
    );
    expect(res.body.errors?.[0].extensions).toMatchObject({ type: 'forbidden_error', status: 403 });
  });
});
