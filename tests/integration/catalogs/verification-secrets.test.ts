import { addMember, createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { catalogName, publishTask } from '../../factories/catalogs';
import { createEvaluation } from '../../factories/evaluations';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * A public task's verification secrets (`value`, the flag in clear, and
 * `script`) reach its own organization only: every other organization reads
 * them as null, and keeps the hash, wherever the task appears.
 */
const api = useTestApp();
let owner: TestUser;
let reader: TestUser;
let stranger: TestUser;
let org: string;
const TASK = catalogName('flag-task');
const SET = catalogName('set');
const VERIFICATION = { method: 'flag', hash: 'sha256:9f86d081884c7d659a2feaa0c55ad015', value: 'FLAG{do-not-leak}', script: '#!/bin/sh\ngrep -q FLAG /out', path: '/out' };
const FULL = { method: 'flag', hash: VERIFICATION.hash, value: VERIFICATION.value, script: VERIFICATION.script, path: '/out', timeout: 30, where: 'environment', judge: null };
const HIDDEN = { ...FULL, value: null, script: null };
const VERIFICATION_FIELDS = 'verification { method hash value script path timeout where judge { model } }';

beforeAll(async () => {
  ({ owner, reader, orgKey: org } = await createOrgWithRoles());
  stranger = await createUser();
  await publishTask(api, owner, { name: TASK, version: '1.0.0', is_public: true, verification: VERIFICATION }, org);
  const set = await rest(api, 'POST', `/org/${org}/task-sets`, { token: owner.token, body: { name: SET, members: [TASK], is_public: true } });
  expect(set.status).toBe(201);
});

/**
 * Every way `user` meets the task through `readerOrg`, each with the
 * verification it carries; `creator` makes the evaluation that embeds it.
 */
async function everyPath(user: TestUser, readerOrg: string, creator = user): Promise<Record<string, unknown>> {
  const ref = readerOrg === org ? TASK : `${org}/${TASK}`;
  const encoded = encodeURIComponent(ref);
  const setRef = readerOrg === org ? SET : `${org}/${SET}`;
  const seen: Record<string, unknown> = {};
  const get = async (path: string, query?: Record<string, string | boolean>) => {
    const res = await rest(api, 'GET', `/org/${readerOrg}${path}`, { token: user.token, query });
    expect([path, res.status]).toEqual([path, 200]);
    return res.body;
  };
  seen['REST task'] = (await get(`/tasks/${encoded}`)).verification;
  seen['REST task version'] = (await get(`/tasks/${encoded}/1.0.0`)).verification;
  seen['REST task versions'] = (await get(`/tasks/${encoded}/versions`)).latest.verification;
  // The list reply is compiled by the engine; every reply reads TaskSummary.verification's one declaration.
  const listed = await get('/tasks', { public_only: true, search: TASK });
  expect(listed.tasks).toHaveLength(1);
  seen['REST task list'] = listed.tasks[0].verification;

  const job = await createEvaluation(api, creator, { task_names: [ref], task_set: setRef }, readerOrg);
  // Small pages: the verification's large texts are priced by their size (@MaxBytes), and every path holds the task.
  const query = `query($org: String!, $ref: String!, $set: String!, $id: String!) {
    task(org: $org, name: $ref) { ${VERIFICATION_FIELDS} }
    task_version(org: $org, name: $ref, version: "1.0.0") { ${VERIFICATION_FIELDS} }
    tasks(org: $org, public_only: true, search: "${TASK}", limit: 5) { tasks { ${VERIFICATION_FIELDS} } }
    task_versions(org: $org, name: $ref) { latest { ${VERIFICATION_FIELDS} } }
    task_set(org: $org, name: $set) { tasks(limit: 5) { ${VERIFICATION_FIELDS} } }
    evaluation(org: $org, workspace: "default", id: $id) {
      items(limit: 5) { task { ${VERIFICATION_FIELDS} } }
      task_set { tasks(limit: 5) { ${VERIFICATION_FIELDS} } }
    }
    evaluation_items(org: $org, workspace: "default", id: $id, limit: 5) { items { task { ${VERIFICATION_FIELDS} } } }
    organization(org: $org) { tasks(limit: 10) { name ${VERIFICATION_FIELDS} } }
  }`;
  const res = await gql(api, query, { org: readerOrg, ref, set: setRef, id: job.id }, user.token);
  expect(res.body.errors).toBeUndefined();
  const data = res.body.data as any;
  seen['GraphQL task'] = data.task.verification;
  seen['GraphQL task_version'] = data.task_version.verification;
  seen['GraphQL tasks'] = data.tasks.tasks[0].verification;
  seen['GraphQL task_versions'] = data.task_versions.latest.verification;
  seen['GraphQL task_set.tasks'] = data.task_set.tasks[0].verification;
  seen['GraphQL evaluation.items.task'] = data.evaluation.items[0].task.verification;
  seen['GraphQL evaluation.task_set.tasks'] = data.evaluation.task_set.tasks[0].verification;
  seen['GraphQL evaluation_items.task'] = data.evaluation_items.items[0].task.verification;
  const own = data.organization.tasks.find((task: { name: string }) => task.name === TASK);
  if (own) seen['GraphQL organization.tasks'] = own.verification;
  return seen;
}

describe('verification secrets of a public task', () => {
  it('are null for another organization on every path, REST and GraphQL, the hash kept', async () => {
    const seen = await everyPath(stranger, stranger.orgKey);
    expect(Object.keys(seen)).toHaveLength(12);
    expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((path) => [path, HIDDEN])));
  });

  it('are readable by the owning organization on every path, a reader included', async () => {
    for (const user of [owner, reader]) {
      const seen = await everyPath(user, org, owner);
      expect(Object.keys(seen)).toHaveLength(13);
      expect(seen).toEqual(Object.fromEntries(Object.keys(seen).map((path) => [path, FULL])));
    }
  });

  it("follow the organization a reply is built for, not the user's other memberships", async () => {
    // A member of the owning organization reading through their own personal organization gets another's view.
    const both = await createUser();
    await addMember(org, both, 'reader');
    const elsewhere = await rest(api, 'GET', `/org/${both.orgKey}/tasks/${org}%2F${TASK}`, { token: both.token });
    expect(elsewhere.body.verification).toEqual(HIDDEN);
    const home = await rest(api, 'GET', `/org/${org}/tasks/${TASK}`, { token: both.token });
    expect(home.body.verification).toEqual(FULL);
  });

  it('keeps the secrets of a private task to its organization (another organization cannot read it at all)', async () => {
    const name = catalogName('private-task');
    await publishTask(api, owner, { name, version: '1.0.0', verification: VERIFICATION }, org);
    expect((await rest(api, 'GET', `/org/${stranger.orgKey}/tasks/${org}%2F${name}`, { token: stranger.token })).status).toBe(404);
    expect((await rest(api, 'GET', `/org/${org}/tasks/${name}`, { token: reader.token })).body.verification).toEqual(FULL);
  });
});
