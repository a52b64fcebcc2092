import crypto from 'node:crypto';
import { Client } from 'pg';
import { QueryTypes } from 'sequelize';
import { logger, type Logger } from '../../../src/config/logger';
import { database } from '../../../src/db/database';
import { STREAM_CHUNK_CHARS } from '../../../src/http/respond';
import { createUser, randomKey, type TestUser } from '../../factories/accounts';
import { gql, rest } from '../../helpers/http';
import { countStatements } from '../../helpers/statements';
import { useIsolatedTestApp } from '../../helpers/isolated-database';

/**
 * statement_timeout on the service's own connections: a statement that runs
 * too long is cancelled by PostgreSQL and the request answers 504
 * gateway_timeout_error with the envelope. The slow statement is real: a
 * member being invited waits for the organization row, which another
 * connection holds locked.
 */
const api = useIsolatedTestApp({ statementTimeoutMs: 300 });
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  owner = await createUser();
  other = await createUser();
});

async function holdOrganizationLock<T>(orgKey: string, run: () => Promise<T>): Promise<T> {
  const { host, port, database: name, username, password } = database().config;
  const client = new Client({ host, port: Number(port), database: name, user: username, password: password ?? undefined });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT id FROM organizations WHERE key = $1 FOR UPDATE', [orgKey]);
    return await run();
  } finally {
    await client.query('ROLLBACK');
    await client.end();
  }
}

describe('statement timeouts', () => {
  it('answers 504 gateway_timeout_error when a statement runs past statement_timeout', async () => {
    const started = Date.now();
    const res = await holdOrganizationLock(owner.orgKey, () =>
      rest(api, 'POST', `/org/${owner.orgKey}/members`, { token: owner.token, body: { email: other.email, role: 'reader' } }),
    );
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ code: 504, detail: expect.any(String), errors: null, type: 'gateway_timeout_error' });
    expect(res.text).not.toMatch(/SELECT|statement|canceling/i);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('logs the cancelled statement at warn level with the request id', async () => {
    // Each request logs through a child logger bound to its request id; watch the children's warn.
    const children: Logger[] = [];
    const original = logger.child.bind(logger);
    const child = jest.spyOn(logger, 'child').mockImplementation(((...args: Parameters<Logger['child']>) => {
      const made = original(...args);
      jest.spyOn(made, 'warn');
      children.push(made as unknown as Logger);
      return made;
    }) as never);
    try {
      const res = await holdOrganizationLock(owner.orgKey, () =>
        rest(api, 'POST', `/org/${owner.orgKey}/members`, { token: owner.token, body: { email: other.email, role: 'reader' } }),
      );
      expect(res.status).toBe(504);
      const logged = children.filter((made) => made.bindings().request_id === res.headers.get('x-request-id'));
      const calls = logged.flatMap((made) => (made.warn as unknown as jest.Mock).mock.calls);
      expect(calls).toEqual([[expect.objectContaining({ type: 'gateway_timeout_error', status: 504, cause: expect.stringMatching(/statement timeout/) }), expect.any(String)]]);
    } finally {
      child.mockRestore();
    }
  });

  it('answers the same timeout in GraphQL with the 504 in the error extensions', async () => {
    const res = await holdOrganizationLock(owner.orgKey, () =>
      gql(api, 'mutation($o: String!, $i: InviteMemberInput!) { invite_member(org: $o, input: $i) { status } }', { o: owner.orgKey, i: { email: other.email, role: 'reader' } }, owner.token),
    );
    expect(res.body.errors![0].extensions).toMatchObject({ type: 'gateway_timeout_error', status: 504 });
  });

  it('leaves no half-written row behind and serves the next request normally', async () => {
    const members = await rest(api, 'GET', `/org/${owner.orgKey}/members`, { token: owner.token });
    expect(members.status).toBe(200);
    expect(members.body.map((member: { user_id: string }) => member.user_id)).toEqual([owner.id]);
    const created = await rest(api, 'POST', `/org/${owner.orgKey}/ws`, { token: owner.token, body: { key: randomKey('ws'), name: 'After' } });
    expect(created.status).toBe(201);
  });
});

describe('statement timeouts on the prepared hot path', () => {
  it('answers 504 when the one-statement session read is cancelled by statement_timeout', async () => {
    const session = await rest(api, 'POST', `/org/${owner.orgKey}/ws/default/sessions`, { token: owner.token, body: { id: crypto.randomUUID(), model: 'm' } });
    expect(session.status).toBe(201);
    const { host, port, database: name, username, password } = database().config;
    const client = new Client({ host, port: Number(port), database: name, user: username, password: password ?? undefined });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query('LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE');
      const { result: res, statements } = await countStatements(() => rest(api, 'GET', `/org/${owner.orgKey}/ws/default/sessions/${session.body.id}`, { token: owner.token }));
      expect(res.status).toBe(504);
      expect(res.body).toMatchObject({ code: 504, type: 'gateway_timeout_error' });
      // The cancelled statement is not run again by the resolvers (twice the wait, on a database already slow).
      expect(statements.filter((sql) => /\bsessions\b/.test(sql))).toHaveLength(1);
      const graphql = await countStatements(() => gql(api, `{ sessions(org: "${owner.orgKey}", workspace: "default") { total } }`, {}, owner.token));
      expect(graphql.result.body.errors![0].extensions).toMatchObject({ type: 'gateway_timeout_error', status: 504 });
      expect(graphql.statements.filter((sql) => /\bsessions\b/.test(sql))).toHaveLength(1);
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  });
});

describe('a streamed reply cut short', () => {
  /** An assessment of 1,000 spans whose span `expensiveSeq` is built on the fly from a million message parts: cancelled by statement_timeout on that row. */
  async function assessmentWithSlowSpan(name: string, expensiveSeq: number): Promise<string> {
    const base = `/org/${owner.orgKey}/ws/default/airt/assessments`;
    const id = (await rest(api, 'POST', base, { token: owner.token, body: { name } })).body.id as string;
    const attacks = Array.from({ length: 1000 }, (_, index) => ({ attack_name: 'pair', goal: `goal ${index} ${'x'.repeat(200)}`, goal_category: 'harm' }));
    expect((await rest(api, 'POST', `${base}/${id}/traces/attacks`, { token: owner.token, body: { attacks } })).status).toBe(201);
    const { host, port, database: dbName, username, password } = database().config;
    const client = new Client({ host, port: Number(port), database: dbName, user: username, password: password ?? undefined });
    await client.connect();
    try {
      await client.query(
        `UPDATE airt_attack_spans SET reply_json = NULL, reply_version = NULL,
                best_candidate_parts = (SELECT jsonb_agg(jsonb_build_object('kind', 'text', 'text', n::text)) FROM generate_series(1, 1000000) n)
          WHERE assessment_id = $1 AND seq = $2`,
        [id, expensiveSeq],
      );
    } finally {
      await client.end();
    }
    return `${base}/${id}/traces/attacks`;
  }

  /** Runs `run` with info and warn lines captured (the suite logs nothing otherwise), the children's too. */
  async function withLogs<T>(run: () => Promise<T>): Promise<{ result: T; lines: Record<string, unknown>[] }> {
    const lines: Record<string, unknown>[] = [];
    const level = logger.level;
    logger.level = 'info';
    const capture = (fields: object, message: string) => void lines.push({ ...(fields as Record<string, unknown>), message });
    const info = jest.spyOn(logger, 'info').mockImplementation(capture as never);
    const original = logger.child.bind(logger);
    const child = jest.spyOn(logger, 'child').mockImplementation(((bindings: Record<string, unknown>) => {
      const made = original(bindings);
      jest.spyOn(made, 'warn').mockImplementation(((fields: object, message: string) => capture({ ...bindings, ...fields }, message)) as never);
      jest.spyOn(made, 'error').mockImplementation(((fields: object, message: string) => capture({ ...bindings, ...fields }, message)) as never);
      return made;
    }) as never);
    try {
      const result = await run();
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { result, lines };
    } finally {
      info.mockRestore();
      child.mockRestore();
      logger.level = level;
    }
  }

  it('answers 504 with the envelope when the statement fails before anything was written, logged as the route’s', async () => {
    const path = await assessmentWithSlowSpan('cut before', 1);
    const { result: res, lines } = await withLogs(() => rest(api, 'GET', path, { token: owner.token }));
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ code: 504, type: 'gateway_timeout_error' });
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(res.text)));
    const requestId = res.headers.get('x-request-id');
    expect(lines.filter((line) => line.request_id === requestId).map((line) => [line.message, line.operation, line.status])).toEqual([
      [expect.any(String), 'Query.assessment_attacks', 504],
      ['request', 'Query.assessment_attacks', 504],
    ]);
  });

  it('cuts the connection when the statement fails after the head was sent, records the request as aborted, and serves the next one', async () => {
    // PostgreSQL has sent the 999 spans before it (far more than one chunk) when statement_timeout cancels the statement.
    const path = await assessmentWithSlowSpan('cut short', 1000);
    const { result: outcome, lines } = await withLogs(async () => {
      const res = await fetch(`${api.baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${owner.token}`, 'accept-encoding': 'identity' } });
      const reader = res.body!.getReader();
      let received = '';
      const decoder = new TextDecoder();
      const ended = await (async () => {
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) return 'ended';
          received += decoder.decode(chunk.value, { stream: true });
        }
      })().catch((error: Error) => `failed: ${error.message}`);
      return { res, received, ended };
    });
    expect([outcome.res.status, outcome.res.headers.get('transfer-encoding')]).toEqual([200, 'chunked']);
    // undici reports the cut connection as "terminated".
    expect(outcome.ended).toMatch(/^failed: /);
    expect(outcome.received.length).toBeGreaterThan(STREAM_CHUNK_CHARS);
    expect(outcome.received.startsWith('[{')).toBe(true);
    expect(() => JSON.parse(outcome.received)).toThrow();
    const requestId = outcome.res.headers.get('x-request-id');
    expect(lines.filter((line) => line.request_id === requestId && line.message === 'request')).toEqual([
      expect.objectContaining({ route: 'Query.assessment_attacks', status: 200, aborted: true }),
    ]);

    const metrics = await rest(api, 'GET', '/metrics');
    expect(metrics.text).toMatch(/http_requests_total\{method="GET",route="Query.assessment_attacks",status="aborted"\} [1-9]/);
    const after = await rest(api, 'GET', path, { token: owner.token, query: { limit: 999 } });
    expect([after.status, after.body.length]).toEqual([200, 999]);
  });
});

describe('connection settings', () => {
  it('runs the service connections with JIT off, the configured statement_timeout and one generic plan per hot statement', async () => {
    const [settings] = await database().query<{ jit: string; statement_timeout: string; plan_cache_mode: string }>(
      "SELECT current_setting('jit') AS jit, current_setting('statement_timeout') AS statement_timeout, current_setting('plan_cache_mode') AS plan_cache_mode",
      { type: QueryTypes.SELECT },
    );
    expect(settings).toEqual({ jit: 'off', statement_timeout: '300ms', plan_cache_mode: 'force_generic_plan' });
  });
});
