import crypto from 'node:crypto';
import net from 'node:net';
import zlib from 'node:zlib';
import { logger } from '../../../src/config/logger';
import { MAX_HEADER_BYTES } from '../../../src/app';
import { createUser } from '../../factories/accounts';
import { rest, sendRaw } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * Requests Node's HTTP parser refuses before any handler runs still get the
 * spec's envelope, a request id (always a fresh one: nothing of the request
 * was parsed), a warn line with it, and a count in the metrics.
 */
const api = useTestApp();

/** Sends raw bytes and reads until the server closes the connection. */
const raw = (bytes: string) => sendRaw(api, bytes);

function parse(reply: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head, body] = reply.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) };
}

async function warned(run: () => Promise<string>): Promise<{ reply: ReturnType<typeof parse>; lines: Record<string, unknown>[] }> {
  const level = logger.level;
  logger.level = 'warn';
  const spy = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  try {
    const reply = parse(await run());
    return { reply, lines: spy.mock.calls.filter(([, message]) => message === 'malformed request').map(([fields]) => fields as unknown as Record<string, unknown>) };
  } finally {
    spy.mockRestore();
    logger.level = level;
  }
}

describe('requests refused by the HTTP parser', () => {
  it('answers a malformed request head with the 400 envelope, a fresh request id and a warn line', async () => {
    const { reply, lines } = await warned(() => raw('GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Request-Id: chosen-by-client\r\nBad Header Line\r\n\r\n'));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 400, detail: 'Malformed HTTP request', errors: null, type: 'invalid_error' });
    expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(reply.body))));
    expect(lines).toEqual([expect.objectContaining({ request_id: reply.headers['x-request-id'], status: 400 })]);
  });

  it('answers an HTTP/1.1 request without Host with the 400 envelope (Node would answer a bare 400), and HTTP/1.0 without one as usual', async () => {
    const reply = parse(await raw('GET /api/v1/health HTTP/1.1\r\nConnection: close\r\n\r\n'));
    expect([reply.status, reply.body]).toEqual([400, { code: 400, detail: 'An HTTP/1.1 request must carry a Host header', errors: null, type: 'invalid_error' }]);
    expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(parse(await raw('GET /api/v1/health HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('serves an absolute-form target (RFC 9112 §3.2.2) by its path, the health and document routes as every other', async () => {
    const { port } = new URL(api.baseUrl);
    for (const path of ['/api/v1/health', '/api/v1/openapi.json']) {
      const reply = await raw(`GET http://127.0.0.1:${port}${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
      expect(reply.split(' ', 2)[1]).toBe('200');
    }
  });

  it('answers headers over the limit with the 400 envelope that says so', async () => {
    const big = 'x'.repeat(MAX_HEADER_BYTES + 1024);
    const { reply, lines } = await warned(() => raw(`GET /api/v1/health HTTP/1.1\r\nHost: x\r\nX-Big: ${big}\r\n\r\n`));
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 400, detail: `Request headers exceed ${MAX_HEADER_BYTES} bytes`, errors: null, type: 'invalid_error' });
    expect(lines).toEqual([expect.objectContaining({ request_id: reply.headers['x-request-id'], code: 'HPE_HEADER_OVERFLOW' })]);
  });

  it('counts them in the metrics', async () => {
    await raw('NOT A REQUEST\r\n\r\n');
    const metrics = await rest(api, 'GET', '/metrics');
    expect(metrics.text).toMatch(/http_requests_total\{method="UNKNOWN",route="malformed",status="400"\} [1-9]/);
  });
});

/** Sends `parts` on one connection; what came back and how the connection ended (or `open` when it did not within the guard). */
function exchange(parts: string[], guardMs = 10_000): Promise<{ received: string; ended: 'end' | 'reset' | 'open' }> {
  const { port } = new URL(api.baseUrl);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    const done = (ended: 'end' | 'reset' | 'open') => {
      clearTimeout(guard);
      socket.destroy();
      resolve({ received, ended });
    };
    // A deadlock guard, not a timing: the refused connection must end well before the 65 s keep-alive timeout.
    const guard = setTimeout(() => done('open'), guardMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => done('end'));
    // Writes still queued when the server closes fail with EPIPE or ECONNRESET: the connection is closed all the same.
    socket.on('error', () => done('reset'));
    for (const part of parts) socket.write(part);
  });
}

/** Runs `run` with info logging on and collects the root logger's lines until the request's own line is written. */
async function withLogLines<T>(run: () => Promise<T>): Promise<{ result: T; lines: { level: string; message: string; fields: Record<string, unknown> }[] }> {
  const level = logger.level;
  logger.level = 'info';
  const lines: { level: string; message: string; fields: Record<string, unknown> }[] = [];
  const spies = (['info', 'warn', 'error'] as const).map((name) =>
    jest.spyOn(logger, name).mockImplementation(((fields: Record<string, unknown>, message: string) => {
      lines.push({ level: name, message, fields });
    }) as never),
  );
  try {
    const result = await run();
    for (let waited = 0; !lines.some((line) => line.message === 'request') && waited < 5000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    return { result, lines };
  } finally {
    for (const spy of spies) spy.mockRestore();
    logger.level = level;
  }
}

const chunked = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;

describe('request bodies', () => {
  it.each(['null', '5', '[]', '{"query": 5}', '{"query": "{ __typename }", "variables": 5}', '{"query": "{ __typename }", "operationName": []}'])(
    'answers a GraphQL body that is not a request (%s) with 422 in the status and in the error alike',
    async (body) => {
      const res = await rest(api, 'POST', '/graphql', { rawBody: body });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].extensions).toMatchObject({ status: 422, type: 'validation_error' });
    },
  );

  it.each([
    ['an operation name the document does not have', { query: 'query A { __typename }', operationName: 'Z' }, 'Unknown operation named "Z".'],
    ['an unknown name among several operations', { query: 'query A { __typename } query B { __typename }', operationName: 'C' }, 'Unknown operation named "C".'],
    ['no query', { variables: {} }, 'GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.'],
    ['an empty object', {}, 'POST body missing, invalid Content-Type, or JSON object has no keys.'],
    ['a subscription (graphql-js 16 would execute it into data: null with 200)', { query: 'subscription S { __typename }' }, 'This API does not offer subscription operations'],
    ['an automatic persisted query (Apollo answers 200)', { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } }, 'PersistedQueryNotSupported'],
  ])('answers a GraphQL request with %s with 422 in the status and in the error alike', async (_, body, message) => {
    const res = await rest(api, 'POST', '/graphql', { body });
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ message, extensions: { status: 422, type: 'validation_error' } });
  });

  it('answers what Apollo itself refuses (CSRF prevention, variables that are not JSON) with the status its error carries', async () => {
    const simple = await rest(api, 'POST', '/graphql', { rawBody: '{"query": "{ __typename }"}', headers: { 'content-type': 'text/plain' } });
    const variables = await rest(api, 'GET', '/graphql', { query: { query: '{ __typename }', variables: '{not json' }, headers: { 'apollo-require-preflight': '1' } });
    for (const res of [simple, variables]) {
      expect(res.status).toBe(422);
      expect(res.body.errors[0].extensions).toMatchObject({ status: 422, type: 'validation_error' });
    }
  });

  it('refuses a body nested past 128 levels unparsed, on REST and GraphQL alike (JSON.parse of 1 MiB of brackets takes 180 ms)', async () => {
    const levels = 500 * 1024;
    const body = `{"a":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    for (const path of ['/auth/login', '/graphql']) {
      const res = await rest(api, 'POST', path, { rawBody: body });
      expect(res.status).toBe(422);
      // The 129th level opens at byte 132: `{` is the first, and `{"a":` five bytes. (GraphQL: in the error's extensions.)
      const items = path === '/graphql' ? res.body.errors[0].extensions.errors : res.body.errors;
      expect(items).toEqual([{ loc: ['body', 132], msg: 'JSON decode error: nested more than 128 levels deep', type: 'json_invalid' }]);
    }
  });

  it('refuses a body that is not UTF-8 with 422 json_invalid where it breaks, and stores nothing (a Latin-1 password, a secret)', async () => {
    // Latin-1 é is the byte 0xE9, which UTF-8 never has alone.
    const latin1 = (before: string, after: string) => Buffer.concat([Buffer.from(before), Buffer.from([0xe9, 0xe9, 0xe9]), Buffer.from(after)]);
    const email = `latin1-${crypto.randomUUID()}@example.com`;
    const before = `{"email":"${email}","username":"latin1${Date.now()}","password":"`;
    const signup = await rest(api, 'POST', '/auth/signup', { rawBody: latin1(before, 'Zq7!long-enough"}') });
    expect(signup.status).toBe(422);
    expect(signup.body.errors).toEqual([{ loc: ['body', before.length], msg: 'JSON decode error: the body is not valid UTF-8', type: 'json_invalid' }]);
    expect((await rest(api, 'POST', '/auth/login', { body: { email, password: 'x'.repeat(12) } })).status).toBe(401);
    const user = await createUser();
    const secret = await rest(api, 'POST', '/user/secrets', { token: user.token, rawBody: latin1('{"name":"LATIN1_PW","value":"p', 'ssword-0123456789"}') });
    expect(secret.status).toBe(422);
    expect(secret.body.errors[0]).toMatchObject({ loc: ['body', 30], type: 'json_invalid' });
    expect((await rest(api, 'GET', '/user/secrets', { token: user.token })).body).toMatchObject({ total: 0 });
  });

  it('refuses a JSON body sent with a Content-Encoding with 400, on REST and GraphQL alike (never read as malformed JSON, never ignored)', async () => {
    const query = '{"query": "{ __typename }"}';
    for (const [encoding, body] of [['gzip', zlib.gzipSync(query)], ['br', zlib.brotliCompressSync(query)], ['x-unknown', Buffer.from(query)]] as const) {
      for (const path of ['/graphql', '/auth/login']) {
        const res = await rest(api, 'POST', path, { rawBody: new Uint8Array(body), headers: { 'content-encoding': encoding } });
        const detail = `Content-Encoding ${encoding} is not supported here; send the JSON uncompressed`;
        expect([path, res.status, res.body]).toEqual([
          path,
          400,
          path === '/graphql'
            ? { errors: [{ message: detail, extensions: { code: 'INVALID_ERROR', status: 400, type: 'invalid_error' } }] }
            : { code: 400, detail, errors: null, type: 'invalid_error' },
        ]);
      }
    }
  });

  it('answers a method /graphql does not have with 405 and the methods it has', async () => {
    const res = await rest(api, 'PUT', '/graphql', { body: { query: '{ __typename }' } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    expect(res.body.errors[0].extensions).toEqual({ code: 'METHOD_NOT_ALLOWED_ERROR', status: 405, type: 'method_not_allowed_error' });
  });

  it.each(['/graphql', '/api/v1/auth/login'])('answers a chunked body over 1 MiB on %s with 400 and closes the connection', async (path) => {
    const chunk = 'x'.repeat(64 * 1024);
    // 1.25 MiB and no final chunk: only the limit can end this request.
    const parts = [chunked(path), ...Array.from({ length: 20 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`)];
    const { received, ended } = await exchange(parts);
    expect(ended).not.toBe('open');
    const reply = parse(received);
    expect(reply.status).toBe(400);
    const detail = `Request body exceeds the limit of ${1024 * 1024} bytes`;
    expect(reply.body).toEqual(
      path === '/graphql'
        ? { errors: [{ message: detail, extensions: { code: 'INVALID_ERROR', status: 400, type: 'invalid_error' } }] }
        : { code: 400, detail, errors: null, type: 'invalid_error' },
    );
    expect(reply.headers.connection).toBe('close');
  });

  it('answers a Content-Length over 1 MiB with 400 and closes the connection without reading the body', async () => {
    const { received, ended } = await exchange([`POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n{"query":`]);
    expect(ended).not.toBe('open');
    expect(parse(received)).toMatchObject({ status: 400, headers: { connection: 'close' }, body: { errors: [{ extensions: { type: 'invalid_error' } }] } });
  });

  it('asks for a body sent with Expect: 100-continue only when it reads it: never for one refused unread', async () => {
    // Refused by its declared size, or (REST) for want of a credential: no 100 Continue, and the connection closes.
    const big = await exchange([`POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`]);
    const anonymous = await exchange(['POST /api/v1/user/api-keys HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: 20\r\n\r\n']);
    for (const [{ received, ended }, status] of [[big, 400], [anonymous, 401]] as const) {
      expect(received).not.toContain('100 Continue');
      expect(ended).not.toBe('open');
      expect(parse(received).status).toBe(status);
    }
    // A body the server reads: 100 Continue first, then the reply to the body sent after it.
    const body = JSON.stringify({ query: '{ __typename }' });
    const { port } = new URL(api.baseUrl);
    const received = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('error', reject);
      socket.on('data', (chunk: string) => {
        if (!text.includes('100 Continue') && (text + chunk).includes('100 Continue')) socket.write(body);
        text += chunk;
        if (text.includes('"__typename"')) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.write(`POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${body.length}\r\n\r\n`);
    });
    expect(received.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK')).toBe(true);
  });

  it('logs a malformed chunked body as a malformed request, not as the database being unavailable', async () => {
    const { result, lines } = await withLogLines(() => exchange([chunked('/graphql'), '5\r\nhello\r\nnot-a-chunk-size\r\n']));
    expect(result.ended).not.toBe('open');
    const reply = parse(result.received);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ code: 400, detail: 'Malformed HTTP request', errors: null, type: 'invalid_error' });
    expect(lines.filter((line) => line.level !== 'info')).toEqual([
      { level: 'warn', message: 'malformed request', fields: expect.objectContaining({ status: 400, code: 'HPE_INVALID_CHUNK_SIZE' }) },
    ]);
    // The handler that was reading the body records its request as the client's failure.
    expect(lines.find((line) => line.message === 'request')?.fields).toMatchObject({ route: 'graphql', status: 400 });
  });
});

describe('request targets', () => {
  it.each([
    ['a path that reads as a host with a bad port', 'GET //a:99999/ HTTP/1.1'],
    ['a path that reads as a bad IPv6 host', 'GET //[/ HTTP/1.1'],
    ['the same asked with OPTIONS', 'OPTIONS //a:99999/api/v1/health HTTP/1.1'],
    ['an ops path spelled with a dot segment', 'GET /api/v1/./health HTTP/1.1'],
    ['an ops path spelled with an encoded dot segment', 'GET /api/v1/%2e/health HTTP/1.1'],
    ['a REST path spelled with an encoded dot-dot segment', 'GET /api/v1/user/%2E%2E/user HTTP/1.1'],
    ['a REST path spelled with a dot-dot segment', 'GET /api/v1/user/../user HTTP/1.1'],
    ['a REST path spelled with a backslash', 'GET /api/v1\\user HTTP/1.1'],
    ['the GraphQL path spelled with a dot segment', 'POST /./graphql HTTP/1.1'],
    ['the same asked with OPTIONS', 'OPTIONS /api/v1/user/../user HTTP/1.1'],
  ])('answers %s as a path nothing serves (404 envelope), never 500', async (_label, requestLine) => {
    const reply = parse(await raw(`${requestLine}\r\nHost: x\r\nConnection: close\r\n\r\n`));
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ code: 404, type: 'not_found_error' });
  });
});
