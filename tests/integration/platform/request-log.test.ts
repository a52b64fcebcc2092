import net from 'node:net';
import { logger } from '../../../src/config/logger';
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

/** A GET of `target` exactly as written (a dot segment, an absolute-form URL), which fetch would normalize first: its status and headers. */
function rawGet(target: string): Promise<{ status: number; headers: Headers }> {
  const { hostname, port } = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write(`GET ${target} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head] = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n', 1);
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = new Headers(lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
  });
}

describe('the request log line', () => {
  it('names the resolved organization and workspace of a workspace request', async () => {
    const line = await logLineOf(() => rest(api, 'GET', `/org/${user.orgKey}/ws/default/projects`, { token: user.token }));
    expect(line).toMatchObject({ org: user.orgKey, workspace: 'default', route: 'Query.projects', status: 200, user_id: user.id });
  });

  it("names the W3C trace of the caller's traceparent (tracing off: nothing else is loaded), and none for a malformed one", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const line = await logLineOf(() => rest(api, 'GET', `/org/${user.orgKey}/ws/default/projects`, { token: user.token, headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } }));
    expect(line.trace_id).toBe(traceId);
    const bad = await logLineOf(() => rest(api, 'GET', `/org/${user.orgKey}/ws/default/projects`, { token: user.token, headers: { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` } }));
    expect(bad.trace_id).toBeUndefined();
    expect(Object.keys(require.cache).some((file) => file.includes('@opentelemetry/sdk-trace-node'))).toBe(false);
  });

  it("shows a device code in the path as [redacted] (the CLI polls it every 2 s; whoever reads the logs could exchange it)", async () => {
    const grant = (await rest(api, 'POST', '/auth/device/code')).body as { device_code: string };
    const line = await logLineOf(() => rest(api, 'GET', `/auth/device/code/${grant.device_code}`));
    expect(line).toMatchObject({ path: '/api/v1/auth/device/code/[redacted]', route: 'Query.device_code_status', status: 200 });
    expect(JSON.stringify(line)).not.toContain(grant.device_code);
    // Whatever the method: a 405, an OPTIONS and a CORS preflight on the same path are logged redacted too.
    const url = `${api.baseUrl}/api/v1/auth/device/code/${grant.device_code}`;
    const preflight = { method: 'OPTIONS', headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'GET' } };
    for (const [init, status] of [[{ method: 'POST' }, 405], [{ method: 'OPTIONS' }, 204], [preflight, 204]] as const) {
      const other = await logLineOf(() => fetch(url, init));
      expect(other).toMatchObject({ path: '/api/v1/auth/device/code/[redacted]', status });
      expect(JSON.stringify(other)).not.toContain(grant.device_code);
    }
    // A path no route matches that still holds it (a trailing slash, `//`, an encoded, twice encoded or capital letter, a
    // segment more or fewer, a dot segment): everything past the route's parent is redacted.
    const code = grant.device_code;
    const near = [`code/${code}/`, `/code/${code}`, `%63ode/${code}`, `code%252F${code}`, `CODE/${code}`, `code/${code}/x`, code];
    for (const tail of near) {
      const slip = await logLineOf(() => fetch(`${api.baseUrl}/api/v1/auth/device/${tail}`));
      expect(slip).toMatchObject({ path: '/api/v1/auth/device/[redacted]', status: 404 });
      expect(JSON.stringify(slip)).not.toContain(code);
    }
    const dotted = await logLineOf(() => rawGet(`/api/v1/auth/device/./code/${code}`));
    expect(dotted).toMatchObject({ path: '/api/v1/auth/device/[redacted]', status: 404 });
    // An absolute-form target is routed by its path, and logged by it: redacted.
    const absolute = await logLineOf(() => rawGet(`${api.baseUrl}/api/v1/auth/device/code/${code}`));
    expect(absolute).toMatchObject({ path: '/api/v1/auth/device/code/[redacted]', route: 'Query.device_code_status', status: 200 });
    expect(JSON.stringify([dotted, absolute])).not.toContain(code);
    // The routes under the same parent are logged as sent.
    const created = await logLineOf(() => fetch(`${api.baseUrl}/api/v1/auth/device/code`, { method: 'POST' }));
    expect(created).toMatchObject({ path: '/api/v1/auth/device/code', status: 200 });
    // Other paths are logged as sent, query left out.
    const plain = await logLineOf(() => rest(api, 'GET', `/org/${user.orgKey}/members?page=1`, { token: user.token }));
    expect(plain.path).toBe(`/api/v1/org/${user.orgKey}/members`);
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

describe('every reply (src/http/respond.ts writes them all)', () => {
  /** Runs one raw request with info logging on; its reply and the request's log lines. */
  async function withLines(path: string, init: RequestInit = {}): Promise<{ res: Response; text: string; lines: Record<string, unknown>[] }> {
    const level = logger.level;
    logger.level = 'info';
    const spy = jest.spyOn(logger, 'info').mockImplementation(() => undefined);
    try {
      const res = await fetch(`${api.baseUrl}${path}`, init);
      const text = await res.text();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const requestId = res.headers.get('x-request-id');
      const lines = spy.mock.calls
        .filter(([fields, message]) => message === 'request' && (fields as { request_id?: string }).request_id === requestId)
        .map(([fields]) => fields as unknown as Record<string, unknown>);
      return { res, text, lines };
    } finally {
      spy.mockRestore();
      logger.level = level;
    }
  }

  it('carries X-Request-Id and Content-Length and is logged exactly once, whatever answered it', async () => {
    // Uncompressed (fetch asks for gzip by default), so Content-Length is the text's own length.
    const identity = { 'accept-encoding': 'identity' };
    const graphql = { method: 'POST', headers: { ...identity, 'content-type': 'application/json', authorization: `Bearer ${user.token}` } };
    const cases: [string, string, RequestInit, number][] = [
      ['health', '/api/v1/health', { headers: identity }, 200],
      ['REST read', `/api/v1/org/${user.orgKey}/ws/default/projects`, { headers: { ...identity, authorization: `Bearer ${user.token}` } }, 200],
      ['REST 401', `/api/v1/org/${user.orgKey}/ws/default/projects`, { headers: identity }, 401],
      ['REST 404 route', '/api/v1/nope', { headers: identity }, 404],
      ['REST 422', `/api/v1/org/${user.orgKey}/ws/default/sessions?limit=0`, { headers: { ...identity, authorization: `Bearer ${user.token}` } }, 422],
      ['GraphQL', '/graphql', { ...graphql, body: JSON.stringify({ query: '{ user { id } }' }) }, 200],
      ['GraphQL refused', '/graphql', { ...graphql, body: JSON.stringify({ query: '{ nope }' }) }, 422],
      ['metrics', '/metrics', { headers: identity }, 200],
      ['docs page', '/api/docs', { headers: identity }, 200],
    ];
    for (const [name, path, init, status] of cases) {
      const { res, text, lines } = await withLines(path, init);
      expect([name, res.status]).toEqual([name, status]);
      expect([name, res.headers.get('x-request-id')]).toEqual([name, expect.stringMatching(/^[\w.:-]+$/)]);
      expect([name, res.headers.get('content-length'), res.headers.get('transfer-encoding')]).toEqual([name, String(Buffer.byteLength(text)), null]);
      expect([name, lines.length, lines[0]?.status]).toEqual([name, 1, status]);
    }
  });

  it('echoes a client request id', async () => {
    const { res, lines } = await withLines('/api/v1/health', { headers: { 'x-request-id': 'client-id.1' } });
    expect(res.headers.get('x-request-id')).toBe('client-id.1');
    expect(lines).toHaveLength(1);
  });
});
