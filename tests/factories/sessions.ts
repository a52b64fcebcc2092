import crypto from 'node:crypto';
import { ProjectModel, WorkspaceModel, OrganizationModel } from '../../models';
import { rest } from '../helpers/http';
import type { TestApp } from '../helpers/test-app';
import type { TestUser } from './accounts';

/** Base path of an org's workspace sessions. */
export function sessionsPath(orgKey: string, ws = 'default'): string {
  return `/org/${orgKey}/ws/${ws}/sessions`;
}

/** Saves a session through REST and returns the reply body (asserting success). */
export async function saveSession(
  api: TestApp,
  user: TestUser,
  body: Record<string, unknown> = {},
  options: { orgKey?: string; ws?: string } = {},
): Promise<any> {
  const res = await rest(api, 'POST', sessionsPath(options.orgKey ?? user.orgKey, options.ws), {
    token: user.token,
    body: { id: crypto.randomUUID(), model: 'model-a', ...body },
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`save session failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function appendMessages(
  api: TestApp,
  user: TestUser,
  sessionId: string,
  messages: Record<string, unknown>[],
  options: { orgKey?: string; ws?: string } = {},
): Promise<any> {
  const res = await rest(api, 'POST', `${sessionsPath(options.orgKey ?? user.orgKey, options.ws)}/${sessionId}/transcript`, {
    token: user.token,
    body: { messages },
  });
  if (res.status !== 201) throw new Error(`append failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function createGroup(
  api: TestApp,
  user: TestUser,
  body: Record<string, unknown> = {},
  options: { orgKey?: string; ws?: string } = {},
): Promise<any> {
  const orgKey = options.orgKey ?? user.orgKey;
  const projectId = body.project_id ?? (await defaultProject(orgKey, options.ws)).id;
  const res = await rest(api, 'POST', `${sessionsPath(orgKey, options.ws)}/groups`, {
    token: user.token,
    body: { kind: 'worker_run', project_id: projectId, ...body },
  });
  if (res.status !== 201) throw new Error(`create group failed: ${res.status} ${res.text}`);
  return res.body;
}

/** The default project of an org's workspace (created by signup / workspace creation). */
export async function defaultProject(orgKey: string, ws = 'default'): Promise<ProjectModel> {
  const org = await OrganizationModel.findOne({ where: { key: orgKey } });
  const workspace = await WorkspaceModel.findOne({ where: { organization_id: org!.id, key: ws } });
  return (await ProjectModel.findOne({ where: { workspace_id: workspace!.id, is_default: true } }))!;
}

/** A second project in a workspace. */
export async function createProject(orgKey: string, ws = 'default', key = `p-${crypto.randomBytes(3).toString('hex')}`): Promise<ProjectModel> {
  const org = await OrganizationModel.findOne({ where: { key: orgKey } });
  const workspace = await WorkspaceModel.findOne({ where: { organization_id: org!.id, key: ws } });
  return ProjectModel.create({ organization_id: org!.id, workspace_id: workspace!.id, key, name: `Project ${key}`, is_default: false });
}

/** A workspace (with no default project) created directly in the database. */
export async function createWorkspace(orgKey: string, key = `w-${crypto.randomBytes(3).toString('hex')}`): Promise<WorkspaceModel> {
  const org = await OrganizationModel.findOne({ where: { key: orgKey } });
  return WorkspaceModel.create({ organization_id: org!.id, key, name: `Workspace ${key}`, is_default: false });
}

/** A workflow-run group and a session whose texts need escaping (quotes, newlines, unicode, labels): the shapes the JSON built by PostgreSQL must match. */
export const ESCAPED_GROUP = { kind: 'workflow_run', title: 'run "one" ünïcødé', worker: 'w-1', capability: 'cap', capability_version: '1.2.3' } as const;
export const ESCAPED_SESSION = { agent: 'agent-x', title: 'quotes " \\ and\nnewlines 🚀', labels: { tier: ['gold', 'silver'], 'ünï': ['cødé'] } };
