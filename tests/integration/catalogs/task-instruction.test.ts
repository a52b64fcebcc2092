import { createOrgWithRoles, type TestUser } from '../../factories/accounts';
import { catalogName, publishTask } from '../../factories/catalogs';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

const api = useTestApp();
let owner: TestUser;
let other: Awaited<ReturnType<typeof createOrgWithRoles>>;

beforeAll(async () => {
  ({ owner } = await createOrgWithRoles());
  other = await createOrgWithRoles();
});

describe('GET ORG/tasks/{name}/instruction', () => {
  it("answers the latest version's instruction, null when it has none, and public tasks by owner/name", async () => {
    const name = catalogName('instructed');
    await publishTask(api, owner, { name, version: '1.0.0', instruction: 'Old words.' });
    await publishTask(api, owner, { name, version: '1.1.0', instruction: 'Find the flag in /srv.', is_public: true });
    const res = await rest(api, 'GET', `/org/${owner.orgKey}/tasks/${name}/instruction`, { token: owner.token, query: { sandbox_id: 'sb-1' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name, version: '1.1.0', instruction: 'Find the flag in /srv.' });
    const bare = catalogName('bare');
    await publishTask(api, owner, { name: bare });
    expect((await rest(api, 'GET', `/org/${owner.orgKey}/tasks/${bare}/instruction`, { token: owner.token })).body.instruction).toBeNull();
    const publicRead = await rest(api, 'GET', `/org/${other.owner.orgKey}/tasks/${encodeURIComponent(`${owner.orgKey}/${name}`)}/instruction`, { token: other.owner.token });
    expect(publicRead.body.instruction).toBe('Find the flag in /srv.');
  });

  it('hides private tasks of other organizations (404) and refuses an over-long instruction (422 with loc)', async () => {
    const name = catalogName('private');
    await publishTask(api, owner, { name, instruction: 'secret' });
    expect((await rest(api, 'GET', `/org/${other.owner.orgKey}/tasks/${encodeURIComponent(`${owner.orgKey}/${name}`)}/instruction`, { token: other.owner.token })).status).toBe(404);
    expect((await rest(api, 'GET', `/org/${owner.orgKey}/tasks/no-such-task/instruction`, { token: owner.token })).status).toBe(404);
    const long = await rest(api, 'POST', `/org/${owner.orgKey}/tasks`, { token: owner.token, body: { name: catalogName('long'), version: '1.0.0', instruction: 'x'.repeat(200_001) } });
    expect(long.status).toBe(422);
    expect(long.body.errors[0].loc).toEqual(['body', 'instruction']);
  });
});
