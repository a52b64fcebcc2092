import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { database } from '../../src/db/database';
import { versionKey } from '../../src/modules/catalogs/semver-key';
import { rest } from '../helpers/http';
import type { TestApp } from '../helpers/test-app';
import type { TestUser } from './accounts';
import { publishTask } from './catalogs';

export const FLAG = { method: 'flag', hash: 'sha256:abc' };

export function evaluationsPath(orgKey: string, ws = 'default'): string {
  return `/org/${orgKey}/ws/${ws}`;
}

/** A task with verification, published through REST. */
export function publishVerifiedTask(api: TestApp, user: TestUser, body: Record<string, unknown>, org?: string) {
  return publishTask(api, user, { verification: FLAG, ...body }, org);
}

/** `count` verified tasks `<prefix>-<n>` of an organization, inserted in one statement (for large evaluations). */
export async function insertTasks(orgKey: string, prefix: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, index) => `${prefix}-${index}`);
  await database().query(
    `INSERT INTO tasks (id, organization_id, name, version, version_key, is_latest, is_public, verification, file_size, template_status, sandbox_provider)
     SELECT gen_random_uuid(), o.id, n, '1.0.0', $key, true, false, $verification::jsonb, 0, 'ready', 'hosted'
       FROM organizations o, unnest($names::text[]) n WHERE o.key = $org`,
    { bind: { org: orgKey, names, key: versionKey('1.0.0'), verification: JSON.stringify(FLAG) }, type: QueryTypes.INSERT },
  );
  return names;
}

/** Creates an evaluation through REST (asserting 201). */
export async function createEvaluation(api: TestApp, user: TestUser, body: Record<string, unknown>, orgKey = user.orgKey, ws = 'default'): Promise<any> {
  const res = await rest(api, 'POST', `${evaluationsPath(orgKey, ws)}/evaluation`, {
    token: user.token,
    body: { model: 'model-a', name: `eval-${crypto.randomBytes(3).toString('hex')}`, ...body },
  });
  if (res.status !== 201) throw new Error(`create evaluation failed: ${res.status} ${res.text}`);
  return res.body;
}

/** The first item of an evaluation. */
export async function items(api: TestApp, user: TestUser, evaluationId: string, orgKey = user.orgKey, ws = 'default'): Promise<any[]> {
  const res = await rest(api, 'GET', `${evaluationsPath(orgKey, ws)}/evaluation/${evaluationId}/items`, { token: user.token });
  if (res.status !== 200) throw new Error(`items failed: ${res.status} ${res.text}`);
  return res.body.items;
}

export function transition(api: TestApp, user: TestUser, evaluationId: string, itemId: string, to: string, orgKey = user.orgKey, extra: Record<string, unknown> = {}) {
  return rest(api, 'POST', `${evaluationsPath(orgKey)}/evaluation/${evaluationId}/items/${itemId}/transition`, { token: user.token, body: { to, ...extra } });
}

export const PIPELINE = ['claiming', 'provisioning', 'agent_running', 'agent_finished', 'verifying'];
