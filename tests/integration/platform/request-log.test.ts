import { logger } from '../../../src/core/logger';
import { createUser, type TestUser } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/** The request's log line names the organization and workspace the request resolved to, not what the URL said. */
const api = useTestApp();
let user: TestUser;
let outsider: TestUser;

beforeAll(async () => {
  user = await createUser();
  outsider = await createUser();
});

async function logLineOf(run: () => Promise<{ headers: Headers }>): Promise<Record<string, unknown>> {
  // The suite runs with logging silent: turn info on for this request and keep the line off the output.
  const level = logger.level;
  logger.level = 'info';
  const spy = jest.spyOn(logger, 'info').mockImplementation(() => undefined);
  try {
    const res = await run();
    const requestId = res.headers.get('x-request-id');
    // The line is written when the response finishes; give the event loop a turn.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const call = spy.mock.calls.find(([fields, message]) => message === 'request' && (fields as { request_id?: string }).request_id === requestId);
    return call![0] as unknown as Record<string, unknown>;
  } finally {
    spy.mockRestore();
    logger.level = level;
  }
}

describe('the request log line', () => {
  it('names the resolved organization and workspace of a workspace request', async () => {
    const line = await logLineOf(() => rest(api, 'GET', `/org/${user.orgKey}/ws/default/projects`, { token: user.token }));
    expect(line).toMatchObject({ org: user.orgKey, workspace: 'default', route: 'Query.projects', status: 200, user_id: user.id });
  });

  it('names no organization when the caller is not a member of the one in the URL', async () => {
    const line = await logLineOf(() => rest(api, 'GET', `/org/${user.orgKey}/ws/default/projects`, { token: outsider.token }));
    expect(line).toMatchObject({ status: 404, user_id: outsider.id });
    expect(line.org).toBeUndefined();
    expect(line.workspace).toBeUndefined();
  });

  it('names the organization of an organization-level request and no workspace', async () => {
    const line = await logLineOf(() => rest(api, 'GET', `/org/${user.orgKey}/members`, { token: user.token }));
    expect(line).toMatchObject({ org: user.orgKey, route: 'Query.members', status: 200 });
    expect(line.workspace).toBeUndefined();
  });
});
