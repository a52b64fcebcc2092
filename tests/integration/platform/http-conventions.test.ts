import http from 'node:http';
import zlib from 'node:zlib';
import { config, overrideConfig } from '../../../src/config/config';
import { STREAM_CHUNK_CHARS } from '../../../src/http/respond';
import { createMetricsServer } from '../../../src/http/ops-routes';
import { UserModel } from '../../../models';
import { createUser, type TestUser } from '../../factories/accounts';
import { gql, rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';

/**
 * What an HTTP client expects of any well-run API: negotiated compression,
 * entity tags and 304, HEAD, 405 with Allow, OPTIONS, CORS preflights,
 * security headers, and the production switches (introspection, field
 * suggestions, metrics).
 */
const api = useTestApp();
let owner: TestUser;

beforeAll(async () => {
  owner = await createUser();
});

interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as sent (compressed when it was). */
  raw: Buffer;
}

/** A request without fetch's own Accept-Encoding and decompression. */
function raw(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${api.baseUrl}${path}`, { method, headers }, (reply) => {
      const chunks: Buffer[] = [];
      reply.on('data', (chunk: Buffer) => chunks.push(chunk));
      reply.on('end', () => resolve({ status: reply.statusCode ?? 0, headers: reply.headers, raw: Buffer.concat(chunks) }));
      reply.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

const decoded = (reply: RawReply) => {
  const coding = reply.headers['content-encoding'];
  if (coding === 'gzip') return zlib.gunzipSync(reply.raw).toString();
  if (coding === 'br') return zlib.brotliDecompressSync(reply.raw).toString();
  return reply.raw.toString();
};

describe('compression', () => {
  it('sends a body over 1 KiB in the coding the client prefers, and a small one as it is', async () => {
    const identity = await raw('GET', '/api/v1/openapi.json');
    expect([identity.headers['content-encoding'], identity.headers.vary]).toEqual([undefined, 'Origin, Accept-Encoding']);
    for (const [accept, coding] of [
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['gzip;q=0.5, br', 'br'],
      ['br;q=0.1, gzip;q=0.9', 'gzip'],
      ['deflate', undefined],
      ['identity', undefined],
    ] as const) {
      const reply = await raw('GET', '/api/v1/openapi.json', { 'Accept-Encoding': accept });
      expect([accept, reply.status, reply.headers['content-encoding']]).toEqual([accept, 200, coding]);
      expect(Number(reply.headers['content-length'])).toBe(reply.raw.length);
      expect(decoded(reply)).toBe(identity.raw.toString());
      if (coding) expect(reply.raw.length).toBeLessThan(identity.raw.length / 4);
    }
    const small = await raw('GET', '/api/v1/health', { 'Accept-Encoding': 'gzip, br' });
    expect([small.headers['content-encoding'], small.raw.toString()]).toEqual([undefined, '{"status":"ok"}']);
  });

  it('compresses a streamed attack list as it is written', async () => {
    const base = `/org/${owner.orgKey}/ws/default/airt/assessments`;
    const id = (await rest(api, 'POST', base, { token: owner.token, body: { name: 'compressed' } })).body.id as string;
    const attacks = Array.from({ length: 1000 }, (_, index) => ({ attack_name: 'tap', goal: `goal ${index}`, goal_category: 'harm', best_candidate: 'x'.repeat(100) }));
    expect((await rest(api, 'POST', `${base}/${id}/traces/attacks`, { token: owner.token, body: { attacks } })).status).toBe(201);
    const path = `/api/v1${base}/${id}/traces/attacks`;
    const plain = await raw('GET', path, { Authorization: `Bearer ${owner.token}` });
    expect(plain.raw.length).toBeGreaterThan(STREAM_CHUNK_CHARS);
    for (const coding of ['gzip', 'br']) {
      const reply = await raw('GET', path, { Authorization: `Bearer ${owner.token}`, 'Accept-Encoding': coding });
      expect([reply.status, reply.headers['content-encoding'], reply.headers['transfer-encoding']]).toEqual([200, coding, 'chunked']);
      expect(JSON.parse(decoded(reply))).toEqual(JSON.parse(plain.raw.toString()));
      expect(reply.raw.length).toBeLessThan(plain.raw.length / 5);
    }
    // Streamed, it carries no tag (known only after its last byte); If-None-Match: * matches it all the same.
    expect(plain.headers.etag).toBeUndefined();
    const any = await raw('GET', path, { Authorization: `Bearer ${owner.token}`, 'If-None-Match': '*', 'Accept-Encoding': 'gzip' });
    expect([any.status, any.raw.length, any.headers.vary]).toEqual([304, 0, 'Origin, Accept-Encoding']);
    expect((await raw('GET', path, { Authorization: `Bearer ${owner.token}`, 'If-None-Match': '"other"' })).status).toBe(200);
  });
});

describe('entity tags', () => {
  it('answers 304 to If-None-Match on a JSON reply and a static asset, in any coding', async () => {
    for (const path of ['/api/v1/openapi.json', '/graphql/assets/graphiql.min.css']) {
      const first = await raw('GET', path, { 'Accept-Encoding': 'gzip' });
      const tag = first.headers.etag!;
      expect(tag).toMatch(/^"[A-Za-z0-9_-]+\.gzip"$/);
      const again = await raw('GET', path, { 'If-None-Match': tag });
      expect([again.status, again.raw.length, again.headers.etag]).toEqual([304, 0, tag.replace('.gzip', '')]);
      expect((await raw('GET', path, { 'If-None-Match': '"something-else"' })).status).toBe(200);
      expect((await raw('GET', path, { 'If-None-Match': `"other", W/${tag}` })).status).toBe(304);
      // Only a tag as this server writes it names the body: not another suffix, not a tag left unclosed.
      const digest = tag.slice(1, -'.gzip"'.length);
      for (const other of [`"${digest}.foo"`, `"${digest}`, digest]) expect((await raw('GET', path, { 'If-None-Match': other })).status).toBe(200);
    }
  });

  it("gives each media type of one body its own tag (GraphQL's JSON and graphql-response+json are two representations)", async () => {
    const path = `/graphql?query=${encodeURIComponent('{ __typename }')}`;
    // A GET names itself a non-browser request (Apollo's CSRF prevention), as a client's GET does.
    const get = (headers: Record<string, string>) => raw('GET', path, { 'Apollo-Require-Preflight': 'true', ...headers });
    const json = await get({ Accept: 'application/json' });
    const graphql = await get({ Accept: 'application/graphql-response+json' });
    expect([json.headers['content-type'], graphql.headers['content-type']]).toEqual(['application/json; charset=utf-8', 'application/graphql-response+json; charset=utf-8']);
    expect(json.raw.equals(graphql.raw)).toBe(true);
    expect(json.headers.etag).not.toBe(graphql.headers.etag);
    // The other media type's tag does not make a 304: the cached copy has another Content-Type.
    expect((await get({ Accept: 'application/graphql-response+json', 'If-None-Match': json.headers.etag! })).status).toBe(200);
    expect((await get({ Accept: 'application/graphql-response+json', 'If-None-Match': graphql.headers.etag! })).status).toBe(304);
  });

  it('tags authenticated GET replies too, changing with the data', async () => {
    const first = await rest(api, 'GET', '/user/api-keys', { token: owner.token });
    const tag = first.headers.get('etag')!;
    expect((await rest(api, 'GET', '/user/api-keys', { token: owner.token, headers: { 'If-None-Match': tag } })).status).toBe(304);
    expect((await rest(api, 'POST', '/user/api-keys', { token: owner.token, body: { name: 'changes the list' } })).status).toBe(201);
    const changed = await rest(api, 'GET', '/user/api-keys', { token: owner.token, headers: { 'If-None-Match': tag } });
    expect([changed.status, changed.headers.get('etag') === tag]).toEqual([200, false]);
  });
});

describe('methods', () => {
  it('answers HEAD like GET without the body', async () => {
    for (const [path, headers] of [
      ['/api/v1/health', {}],
      ['/api/v1/user', { Authorization: `Bearer ${owner.token}` }],
      ['/api/v1/openapi.json', {}],
    ] as const) {
      const get = await raw('GET', path, headers);
      const head = await raw('HEAD', path, headers);
      expect([path, head.status, head.raw.length, head.headers['content-length'], head.headers.etag]).toEqual([
        path,
        200,
        0,
        get.headers['content-length'],
        get.headers.etag,
      ]);
    }
  });

  it('answers a known path asked with another method 405 with Allow, and OPTIONS with the methods', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/api/v1/user/organizations', 'GET, HEAD, OPTIONS'],
      ['POST', '/api/v1/health', 'GET, HEAD, OPTIONS'],
      ['PUT', `/api/v1/org/${owner.orgKey}/ws`, 'GET, HEAD, POST, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      const reply = await raw(method, path, { Authorization: `Bearer ${owner.token}` });
      expect([method, path, reply.status, reply.headers.allow, JSON.parse(reply.raw.toString()).type]).toEqual([method, path, 405, allow, 'method_not_allowed_error']);
      const options = await raw('OPTIONS', path);
      expect([options.status, options.headers.allow, options.raw.length]).toEqual([204, allow, 0]);
    }
    expect((await raw('OPTIONS', '/api/v1/nothing/here')).status).toBe(404);
    expect((await raw('PATCH', '/api/v1/nothing/here')).status).toBe(404);
  });
});

describe('CORS', () => {
  const saved = config().CORS_ORIGINS;
  afterEach(() => overrideConfig({ CORS_ORIGINS: saved }));

  it('answers an allowed preflight 204 with the methods and headers, and marks the replies for that origin', async () => {
    overrideConfig({ CORS_ORIGINS: ['https://dashboard.example'] });
    const preflight = await raw('OPTIONS', '/api/v1/user', {
      Origin: 'https://dashboard.example',
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Headers': 'authorization, idempotency-key, x-captcha-token, traceparent, apollo-require-preflight',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': 'https://dashboard.example',
      'access-control-allow-methods': 'GET,HEAD,POST,PUT,PATCH,DELETE',
      'access-control-allow-headers': 'Authorization,Content-Type,X-API-Key,X-Request-Id,X-Client-Version,Idempotency-Key,X-Captcha-Token,traceparent,Apollo-Require-Preflight,X-Apollo-Operation-Name',
      'access-control-max-age': '600',
    });
    const reply = await raw('GET', '/api/v1/user', { Origin: 'https://dashboard.example', Authorization: `Bearer ${owner.token}` });
    expect(reply.headers['access-control-allow-origin']).toBe('https://dashboard.example');
    expect(reply.headers['access-control-expose-headers']).toContain('X-Request-Id');
    expect(reply.headers.vary).toContain('Origin');
    // A compressible reply depends on both.
    const document = await raw('GET', '/api/v1/openapi.json', { Origin: 'https://dashboard.example', 'Accept-Encoding': 'gzip' });
    expect(document.headers.vary).toBe('Origin, Accept-Encoding');
  });

  it('refuses a preflight of an origin not listed, and gives its replies no permission', async () => {
    overrideConfig({ CORS_ORIGINS: ['https://dashboard.example'] });
    const preflight = await raw('OPTIONS', '/graphql', { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' });
    expect([preflight.status, preflight.headers['access-control-allow-origin'], JSON.parse(preflight.raw.toString()).type]).toEqual([403, undefined, 'forbidden_error']);
    const reply = await raw('GET', '/api/v1/health', { Origin: 'https://evil.example' });
    expect([reply.status, reply.headers['access-control-allow-origin']]).toEqual([200, undefined]);
  });

  it("refuses a POST a page of another origin could send without a preflight (no body type, or a form's or text's), before it runs", async () => {
    overrideConfig({ CORS_ORIGINS: ['https://dashboard.example'] });
    const signup = (origin: string | null, type: string | null) => {
      const email = `${Math.random().toString(36).slice(2)}@cross-site.example`;
      const headers: Record<string, string> = { ...(origin ? { Origin: origin } : {}), ...(type ? { 'Content-Type': type } : {}) };
      return raw('POST', '/api/v1/auth/signup', headers, JSON.stringify({ email, password: 'a-Passw0rd-long-enough' })).then((reply) => ({ reply, email }));
    };
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'TEXT/PLAIN;charset=UTF-8']) {
      for (const origin of ['https://evil.example', 'null']) {
        const { reply, email } = await signup(origin, type);
        expect({ type, origin, status: reply.status, error: JSON.parse(reply.raw.toString()).type }).toEqual({ type, origin, status: 403, error: 'forbidden_error' });
        expect(await UserModel.count({ where: { email } })).toBe(0);
      }
    }
    // No body type at all (a form-less fetch): the anonymous device-code route is refused the same way.
    expect((await raw('POST', '/api/v1/auth/device/code', { Origin: 'https://evil.example' })).status).toBe(403);
    // Run: a listed origin's page, a client that is no page (no Origin), a JSON body (its page's preflight was refused), this server's own origin.
    expect((await signup('https://dashboard.example', 'text/plain')).reply.status).toBe(201);
    expect((await signup(null, 'application/x-www-form-urlencoded')).reply.status).toBe(201);
    expect((await signup('https://evil.example', 'application/json')).reply.status).toBe(201);
    expect((await signup(new URL(api.baseUrl).origin, 'text/plain')).reply.status).toBe(201);
    // A page of this origin whose referrer policy hides it sends Origin: null; its browser says it is this origin's.
    const email = `${Math.random().toString(36).slice(2)}@same-site.example`;
    const own = await raw('POST', '/api/v1/auth/signup', { Origin: 'null', 'Sec-Fetch-Site': 'same-origin', 'Content-Type': 'text/plain' }, JSON.stringify({ email, password: 'a-Passw0rd-long-enough' }));
    expect(own.status).toBe(201);
    // Reads stay as they were: no permission in the reply, nothing refused.
    expect((await raw('GET', '/api/v1/health', { Origin: 'https://evil.example' })).status).toBe(200);
  });

  it('allows loopback origins by default outside production, none in production', async () => {
    overrideConfig({ CORS_ORIGINS: undefined });
    const asked = { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'GET' };
    expect((await raw('OPTIONS', '/api/v1/health', asked)).status).toBe(204);
    const env = config().NODE_ENV;
    overrideConfig({ NODE_ENV: 'production' });
    try {
      expect((await raw('OPTIONS', '/api/v1/health', asked)).status).toBe(403);
    } finally {
      overrideConfig({ NODE_ENV: env });
    }
  });
});

describe('security headers', () => {
  it('sends nosniff on every reply, and no-store on replies made for a credential', async () => {
    const health = await raw('GET', '/api/v1/health');
    expect([health.headers['x-content-type-options'], health.headers['cache-control']]).toEqual(['nosniff', undefined]);
    const mine = await raw('GET', '/api/v1/user', { Authorization: `Bearer ${owner.token}` });
    expect([mine.headers['x-content-type-options'], mine.headers['cache-control']]).toEqual(['nosniff', 'no-store']);
    const missing = await raw('GET', '/api/v1/nothing', { Authorization: `Bearer ${owner.token}` });
    expect([missing.status, missing.headers['x-content-type-options']]).toEqual([404, 'nosniff']);
    const graphql = await gql(api, '{ user { id } }', {}, owner.token);
    expect(graphql.headers.get('cache-control')).toBe('no-store');
  });

  it('challenges a 401 with WWW-Authenticate, on REST and GraphQL', async () => {
    const rest401 = await raw('GET', '/api/v1/user');
    const graphql401 = await raw('POST', '/graphql', { 'Content-Type': 'application/json', Authorization: 'Bearer not-a-token' }, JSON.stringify({ query: '{ user { id } }' }));
    expect([rest401.status, rest401.headers['www-authenticate'], graphql401.status, graphql401.headers['www-authenticate']]).toEqual([401, 'Bearer', 401, 'Bearer']);
  });

  it('serves the playground on GET /graphql only to a client preferring HTML, and says the reply varies with Accept', async () => {
    const query = `?query=${encodeURIComponent('{ __typename }')}`;
    const browser = await raw('GET', `/graphql${query}`, { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    expect([browser.status, browser.headers['content-type'], browser.headers.vary]).toEqual([200, 'text/html; charset=utf-8', expect.stringMatching(/(^|, )Accept(,|$)/)]);
    const refusing = await raw('GET', `/graphql${query}`, { Accept: 'application/json, text/html;q=0', 'apollo-require-preflight': '1' });
    expect([refusing.status, refusing.headers['content-type'], refusing.headers.vary]).toEqual([200, 'application/json; charset=utf-8', expect.stringMatching(/(^|, )Accept(,|$)/)]);
    expect(JSON.parse(refusing.raw.toString())).toEqual({ data: { __typename: 'Query' } });
  });

  it('puts a Content-Security-Policy on the HTML pages', async () => {
    for (const [path, accept] of [
      ['/api/docs', 'text/html'],
      ['/graphql', 'text/html'],
    ]) {
      const page = await raw('GET', path, { Accept: accept });
      expect([path, page.status, page.headers['content-security-policy']]).toEqual([path, 200, expect.stringContaining("script-src 'self'")]);
      expect(page.raw.toString()).not.toMatch(/<script>/);
    }
  });
});

describe('production switches', () => {
  const saved = { ...config() };
  afterEach(() =>
    overrideConfig({
      GRAPHQL_INTROSPECTION: saved.GRAPHQL_INTROSPECTION,
      GRAPHQL_FIELD_SUGGESTIONS: saved.GRAPHQL_FIELD_SUGGESTIONS,
      METRICS_TOKEN: saved.METRICS_TOKEN,
      NODE_ENV: saved.NODE_ENV,
    }),
  );

  it('keeps /metrics behind METRICS_TOKEN, and off the main port in production without one', async () => {
    expect((await raw('GET', '/metrics')).status).toBe(200);
    overrideConfig({ METRICS_TOKEN: 'a-metrics-token-of-some-length' });
    expect((await raw('GET', '/metrics')).status).toBe(401);
    expect((await raw('GET', '/metrics', { Authorization: 'Bearer wrong-token-of-the-same-size' })).status).toBe(401);
    const allowed = await raw('GET', '/metrics', { Authorization: 'Bearer a-metrics-token-of-some-length' });
    expect([allowed.status, allowed.raw.toString()]).toEqual([200, expect.stringContaining('http_requests_total')]);
    overrideConfig({ METRICS_TOKEN: undefined, NODE_ENV: 'production' });
    expect((await raw('GET', '/metrics')).status).toBe(404);
    // Not there at all: no other method or OPTIONS says it exists.
    expect((await raw('POST', '/metrics')).status).toBe(404);
    expect((await raw('OPTIONS', '/metrics')).status).toBe(404);
  });

  it('serves /metrics alone on METRICS_PORT, in production too, the token still required when set', async () => {
    overrideConfig({ METRICS_TOKEN: undefined, NODE_ENV: 'production' });
    const server = createMetricsServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const metrics = await fetch(`${base}/metrics`);
      expect([metrics.status, await metrics.text()]).toEqual([200, expect.stringContaining('http_requests_total')]);
      expect((await fetch(`${base}/api/v1/health`)).status).toBe(404);
      // An absolute-form target is served by its path here too.
      const absolute = await new Promise<number>((resolve, reject) => {
        const request = http.request({ host: '127.0.0.1', port: new URL(base).port, path: `${base}/metrics`, headers: { Connection: 'close' } }, (reply) => {
          reply.resume();
          resolve(reply.statusCode ?? 0);
        });
        request.on('error', reject);
        request.end();
      });
      expect(absolute).toBe(200);
      overrideConfig({ METRICS_TOKEN: 'a-metrics-token-of-some-length' });
      expect((await fetch(`${base}/metrics`)).status).toBe(401);
      expect((await fetch(`${base}/metrics`, { headers: { Authorization: 'Bearer a-metrics-token-of-some-length' } })).status).toBe(200);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
