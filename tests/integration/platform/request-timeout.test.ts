import { overrideConfig } from '../../../src/config/config';
import { logger } from '../../../src/config/logger';
import { rest, sendRaw } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * REQUEST_TIMEOUT_MS: a request's head and body must arrive within it, or
 * the reply is 408 with the envelope and the connection closes. Without it,
 * a client trickling a body held the part it had sent (up to the route's
 * body limit, 50 MiB for a publish) and the connection for Node's 300 s.
 */
overrideConfig({ REQUEST_TIMEOUT_MS: 1000 });
const api = useTestApp();

function parse(reply: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head, body] = reply.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

/** Sends `bytes`, then nothing more, and times how long the server takes to answer and close. */
async function stall(bytes: string): Promise<{ reply: ReturnType<typeof parse>; ms: number }> {
  const started = Date.now();
  const reply = parse(await sendRaw(api, bytes));
  return { reply, ms: Date.now() - started };
}

const EXPECTED = { code: 408, detail: 'The request did not arrive within 1000 ms (REQUEST_TIMEOUT_MS)', errors: null, type: 'invalid_error' };

describe('REQUEST_TIMEOUT_MS', () => {
  let warnings: jest.SpyInstance;
  beforeEach(() => {
    warnings = jest.spyOn(logger, 'warn');
  });
  afterEach(() => warnings.mockRestore());

  it('answers a body that stops arriving with 408 and the envelope, and closes the connection', async () => {
    const head = 'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n';
    const { reply, ms } = await stall(`${head}{"email": "someone@example.com", "password": "`);
    expect(reply.status).toBe(408);
    expect(reply.body).toEqual(EXPECTED);
    expect(reply.headers.connection).toBe('close');
    expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    // Node checks every quarter of the timeout: the answer comes between 1 and 1.25 s (and well before Node's own 300 s).
    expect(ms).toBeGreaterThanOrEqual(1000);
    expect(ms).toBeLessThan(30_000);
    expect(warnings).toHaveBeenCalledWith(expect.objectContaining({ status: 408, code: 'ERR_HTTP_REQUEST_TIMEOUT' }), 'request timed out');
  });

  it('answers a head that stops arriving with 408 too', async () => {
    const { reply } = await stall('GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    // The detail names the limit that fired: the head's (the smaller of 30 s and REQUEST_TIMEOUT_MS).
    expect([reply.status, reply.body]).toEqual([408, { ...EXPECTED, detail: "The request's head did not arrive within 1000 ms" }]);
  });

  it('sends no second reply when a request answered before its body arrived stops sending it: the connection ends', async () => {
    // 401 before the body is read; the connection stays open while Node reads the rest, which never comes.
    const reply = await sendRaw(api, 'POST /api/v1/org/someone/capabilities HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name": "');
    expect(reply.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 401']);
    expect(warnings).not.toHaveBeenCalledWith(expect.anything(), 'request timed out');
  });

  it('serves requests that arrive in time as before', async () => {
    const res = await rest(api, 'GET', '/health');
    expect(res.status).toBe(200);
  });
});
