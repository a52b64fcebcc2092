import { rest } from '../helpers/http';
import type { TestApp } from '../helpers/test-app';
import type { TestUser } from './accounts';

export interface TestApiKey {
  id: string;
  key: string;
  masked_key: string;
}

/** Creates an API key for `user` through the API. */
export async function createApiKey(api: TestApp, user: TestUser, body: Record<string, unknown> = {}): Promise<TestApiKey> {
  const res = await rest(api, 'POST', '/user/api-keys', { token: user.token, body: { name: 'test key', ...body } });
  if (res.status !== 201) throw new Error(`api key creation answered ${res.status}: ${res.text}`);
  return res.body;
}
