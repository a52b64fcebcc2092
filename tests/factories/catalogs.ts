import crypto from 'node:crypto';
import { rest } from '../helpers/http';
import type { TestApp } from '../helpers/test-app';
import type { TestUser } from './accounts';

export function catalogName(prefix = 'c'): string {
  return `${prefix}-${crypto.randomBytes(4).toString('hex')}`;
}

async function publish(api: TestApp, user: TestUser, kind: 'datasets' | 'capabilities' | 'tasks', body: Record<string, unknown>, org = user.orgKey) {
  const res = await rest(api, 'POST', `/org/${org}/${kind}`, { token: user.token, body });
  if (res.status !== 201) throw new Error(`publish ${kind} ${JSON.stringify(body).slice(0, 200)} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export function publishDataset(api: TestApp, user: TestUser, body: Record<string, unknown>, org?: string) {
  return publish(api, user, 'datasets', { version: '1.0.0', ...body }, org);
}

export function publishTask(api: TestApp, user: TestUser, body: Record<string, unknown>, org?: string) {
  return publish(api, user, 'tasks', { version: '1.0.0', ...body }, org);
}

export const b64 = (text: string) => Buffer.from(text).toString('base64');

export function capabilityBody(name: string, version = '1.0.0', extra: Record<string, unknown> = {}) {
  return {
    name,
    version,
    description: 'A capability',
    manifest: {
      author: 'Ada',
      license: 'MIT',
      keywords: ['security'],
      components: [{ name: 'scanner', path: 'agents/scanner.md', type: 'agent', description: 'Scans' }],
      secrets: ['API_TOKEN', { name: 'OPTIONAL_KEY', required: false }],
    },
    files: [
      { path: 'agents/scanner.md', content_base64: b64('# scanner') },
      { path: 'README.md', content_base64: b64('# Hello') },
    ],
    ...extra,
  };
}

export function publishCapability(api: TestApp, user: TestUser, body: Record<string, unknown>, org?: string) {
  return publish(api, user, 'capabilities', body, org);
}
