import crypto from 'node:crypto';
import { rest } from '../helpers/http';
import type { TestApp } from '../helpers/test-app';
import type { TestUser } from './accounts';

export interface TestSecret {
  id: string;
  name: string;
  provider: string | null;
  masked_value: string;
  created_at: string;
  updated_at: string;
}

/** A fresh environment-variable name. */
export function secretName(prefix = 'TEST'): string {
  return `${prefix}_${crypto.randomBytes(4).toString('hex').toUpperCase()}`;
}

/** Creates a user secret through REST (asserting 201). */
export async function createSecret(api: TestApp, user: TestUser, body: { name?: string; value?: string } = {}): Promise<TestSecret> {
  const res = await rest(api, 'POST', '/user/secrets', { token: user.token, body: { name: secretName(), value: `value-${crypto.randomUUID()}`, ...body } });
  if (res.status !== 201) throw new Error(`secret creation answered ${res.status}: ${res.text}`);
  return res.body;
}
