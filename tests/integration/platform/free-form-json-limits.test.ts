import crypto from 'node:crypto';
import { createUser, type TestUser } from '../../factories/accounts';
import { catalogName } from '../../factories/catalogs';
import { createGroup, defaultProject, sessionsPath } from '../../factories/sessions';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';
import { MAX_FREE_FORM_JSON_BYTES } from '../../../src/core/validation/json-bytes';
import type { Viewer } from '../../../src/core/viewer';
import { createSessionGroupLoaders } from '../../../src/modules/session-groups/session-groups.loaders';

/**
 * Free-form JSON kept with a row that a list reply reads (a page of 100
 * assessments, evaluations, tasks, the group of each session of a page) is
 * held to MAX_FREE_FORM_JSON_BYTES as JSON text: such rows are parsed whole
 * before the reply's size is known, and at a megabyte each a list request
 * parsed 100 MB.
 */
const api = useTestApp();
let user: TestUser;
let WS: string;

beforeAll(async () => {
  user = await createUser();
  WS = `/org/${user.orgKey}/ws/default`;
});

/** A JSON object of exactly `bytes` bytes as compact JSON text. */
const objectOf = (bytes: number) => ({ v: 'x'.repeat(bytes - '{"v":""}'.length) });
const tooLong = (loc: (string | number)[]) => ({ loc, msg: expect.stringContaining(`at most ${MAX_FREE_FORM_JSON_BYTES} bytes as JSON`), type: 'too_long' });

describe('free-form JSON kept with listed rows', () => {
  it('takes an assessment whose configurations are at the limit, and refuses one byte more at each (422 too_long)', async () => {
    const fits = await rest(api, 'POST', `${WS}/airt/assessments`, { token: user.token, body: { name: 'at the limit', attacker_config: objectOf(MAX_FREE_FORM_JSON_BYTES), target_config: objectOf(MAX_FREE_FORM_JSON_BYTES) } });
    expect(fits.status).toBe(201);
    expect(JSON.stringify(fits.body.attacker_config)).toHaveLength(MAX_FREE_FORM_JSON_BYTES);
    const over = await rest(api, 'POST', `${WS}/airt/assessments`, { token: user.token, body: { name: 'over', attacker_config: objectOf(MAX_FREE_FORM_JSON_BYTES + 1), target_config: objectOf(MAX_FREE_FORM_JSON_BYTES + 1) } });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual([tooLong(['body', 'attacker_config']), tooLong(['body', 'target_config'])]);
    const manifest = await rest(api, 'POST', `${WS}/airt/assessments`, { token: user.token, body: { name: 'big manifest', attack_manifest: [objectOf(128 * 1024 + 1)] } });
    expect(manifest.body.errors).toEqual([{ loc: ['body', 'attack_manifest'], msg: expect.stringContaining(`at most ${128 * 1024} bytes as JSON`), type: 'too_long' }]);
  });

  it("refuses an evaluation's task configuration and model overrides past the limit", async () => {
    const res = await rest(api, 'POST', `${WS}/evaluation`, {
      token: user.token,
      body: { name: 'e', model: 'm', task_names: ['t'], task_config: objectOf(MAX_FREE_FORM_JSON_BYTES + 1), model_overrides: objectOf(MAX_FREE_FORM_JSON_BYTES + 1) },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(expect.arrayContaining([tooLong(['body', 'task_config']), tooLong(['body', 'model_overrides'])]));
  });

  it("refuses a task's ports past the limit (a task list carries them), and a transcript append's session context", async () => {
    // 6,000 keys of one port each: every list within its 100 ports, the map past 64 KiB.
    const ports = Object.fromEntries(Array.from({ length: 6000 }, (_, index) => [`port-${index}`, [80]]));
    expect(Buffer.byteLength(JSON.stringify(ports))).toBeGreaterThan(MAX_FREE_FORM_JSON_BYTES);
    const task = await rest(api, 'POST', `/org/${user.orgKey}/tasks`, { token: user.token, body: { name: catalogName('t'), version: '1.0.0', readme: '# Task', ports } });
    expect(task.status).toBe(422);
    expect(task.body.errors).toEqual([tooLong(['body', 'ports'])]);
    const session = crypto.randomUUID();
    expect((await rest(api, 'POST', `${WS}/sessions`, { token: user.token, body: { id: session, model: 'm' } })).status).toBe(201);
    const append = await rest(api, 'POST', `${WS}/sessions/${session}/transcript`, { token: user.token, body: { messages: [{ role: 'user', content: 'hi' }], context: objectOf(MAX_FREE_FORM_JSON_BYTES + 1) } });
    expect(append.status).toBe(422);
    expect(append.body.errors).toEqual([tooLong(['body', 'context'])]);
  });

  it("refuses a task judge's model parameters and context past the limit", async () => {
    const res = await rest(api, 'POST', `/org/${user.orgKey}/tasks`, {
      token: user.token,
      body: {
        name: catalogName('t'), version: '1.0.0', readme: '# Task',
        verification: { method: 'flag_and_judge', flag_hash: 'abc', judge: { model: 'j', model_params: objectOf(MAX_FREE_FORM_JSON_BYTES + 1), task_context: objectOf(MAX_FREE_FORM_JSON_BYTES + 1) } },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([tooLong(['body', 'verification', 'judge', 'model_params']), tooLong(['body', 'verification', 'judge', 'task_context'])]);
  });

  it("refuses a session group's metadata past the limit, and never reads it back (its sessions' page loads each group without it)", async () => {
    const project = await defaultProject(user.orgKey);
    const over = await rest(api, 'POST', `${sessionsPath(user.orgKey)}/groups`, { token: user.token, body: { kind: 'worker_run', project_id: project.id, metadata: objectOf(MAX_FREE_FORM_JSON_BYTES + 1) } });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual([tooLong(['body', 'metadata'])]);
    const group = await createGroup(api, user, { metadata: objectOf(MAX_FREE_FORM_JSON_BYTES) });
    expect(group).not.toHaveProperty('metadata');
    // The loader behind every session's group reads each column but the metadata.
    const row = await createSessionGroupLoaders({ user: { id: user.id }, apiKey: null } as unknown as Viewer).sessionGroupById.load(group.id);
    expect(row).toMatchObject({ id: group.id, kind: 'worker_run', project_id: project.id });
    expect(row).not.toHaveProperty('metadata');
  });

  it("refuses a report's structured content past MAX_REPORT_CONTENT bytes as JSON", async () => {
    const assessment = await rest(api, 'POST', `${WS}/airt/assessments`, { token: user.token, body: { name: 'reported' } });
    const res = await rest(api, 'POST', `${WS}/airt/assessments/${assessment.body.id}/reports`, { token: user.token, body: { report_type: 'summary', content_json: objectOf(500_001) } });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ loc: ['body', 'content_json'], msg: expect.stringContaining('at most 500000 bytes as JSON'), type: 'too_long' }]);
  });
});
