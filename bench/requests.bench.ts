import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { database, onStatement } from '../src/db/database';
import { generateApiKey } from '../src/modules/api-keys/api-keys.service';
import { startHandwritten } from './handwritten-server';
import { log, startService, withBenchDatabase } from './harness';
import { seed } from './sessions.bench';

/**
 * The request path against a minimal hand-written node:http + pg server doing
 * the same work (bench/handwritten-server.ts), in one run, over the sessions
 * benchmark's data: wrk at 20 connections (Debian's `wrk`), medians of 3 runs,
 * reporting req/s, p50, p99, SQL statements per request and the ratio
 * service / hand-written. Both servers run one process each (WEB_CONCURRENCY=1)
 * with an API key.
 *
 * Options (environment): BENCH_DATABASE_URL (+ BENCH_ORG to reuse data seeded
 * by an earlier run), BENCH_SESSIONS, BENCH_SECONDS (per wrk run, default 10),
 * BENCH_RUNS (default 3), BENCH_CONNECTIONS (default 20).
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

interface Request {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  /** The target ratio service / hand-written (req/s), and the most statements the service may send. */
  target: number;
  maxStatements?: number;
}

interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
}

function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version']).error === undefined;
}

function toMs(text: string): number {
  const match = /([\d.]+)(us|ms|s)/.exec(text);
  if (!match) return NaN;
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : match[2] === 's' ? value * 1000 : value;
}

async function wrk(base: string, request: Request, apiKey: string, script: string): Promise<WrkResult> {
  const lua = `wrk.method = "${request.method}"
wrk.headers["X-API-Key"] = "${apiKey}"
wrk.headers["Content-Type"] = "application/json"
${request.body ? `wrk.body = [[${JSON.stringify(request.body)}]]` : ''}`;
  fs.writeFileSync(script, lua);
  const child = spawn('wrk', ['-t2', `-c${CONNECTIONS}`, `-d${SECONDS}s`, '--latency', '-s', script, `${base}${request.path}`]);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => child.on('exit', resolve));
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? NaN),
    p50: toMs(/\s50%\s+(\S+)/.exec(output)?.[1] ?? ''),
    p99: toMs(/\s99%\s+(\S+)/.exec(output)?.[1] ?? ''),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0),
  };
}

function median<T>(items: T[], by: (item: T) => number): T {
  return [...items].sort((a, b) => by(a) - by(b))[Math.floor(items.length / 2)];
}

async function once(base: string, request: Request, apiKey: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: request.body ? JSON.stringify(request.body) : undefined,
  });
  return { status: response.status, text: await response.text() };
}

export async function main(): Promise<void> {
  if (!wrkAvailable()) throw new Error('This benchmark needs wrk on the PATH (Debian: apt-get install wrk)');
  await withBenchDatabase('requests', 10, async (url) => {
  const db = database();
  let orgKey = process.env.BENCH_ORG;
  if (!orgKey) {
    log('generating the sessions benchmark data');
    orgKey = (await seed()).orgKey;
    log(`data ready: BENCH_ORG=${orgKey}`);
  }
  const [fixture] = await db.query<{ org_id: string; viewer_id: string; workspace_id: string }>(
    `SELECT o.id AS org_id, m.user_id AS viewer_id, w.id AS workspace_id FROM organizations o
       JOIN memberships m ON m.organization_id = o.id AND m.role = 'owner' JOIN workspaces w ON w.organization_id = o.id AND w.key = 'ws-0'
      WHERE o.key = $key`,
    { bind: { key: orgKey }, type: QueryTypes.SELECT },
  );
  const [target] = await db.query<{ id: string }>(
    `SELECT id FROM sessions WHERE workspace_id = $ws AND group_id IS NOT NULL AND project_id IS NOT NULL AND archived_at IS NULL
        AND (user_id = $viewer OR visibility = 'workspace') ORDER BY updated_at DESC LIMIT 1`,
    { bind: { ws: fixture.workspace_id, viewer: fixture.viewer_id }, type: QueryTypes.SELECT },
  );
  const key = generateApiKey();
  await db.query(`INSERT INTO api_keys (user_id, name, key_hash, masked_key, allow_self_revoke, last_used_at) VALUES ($user, 'bench', $hash, $masked, false, now())`, {
    bind: { user: fixture.viewer_id, hash: key.hash, masked: key.masked },
  });
    const service = await startService();
    const handwritten = await startHandwritten(url);
    const script = path.join(os.tmpdir(), `bench-requests-${process.pid}.lua`);
    try {
      await measure(service.base, `http://127.0.0.1:${handwritten.port}`, handwritten.statements, orgKey, target.id, key.key, script);
    } finally {
      fs.rmSync(script, { force: true });
      handwritten.server.closeAllConnections();
      await new Promise<void>((resolve) => handwritten.server.close(() => resolve()));
      await handwritten.pool.end();
      await service.stop();
    }
  });
}

async function measure(serviceBase: string, handBase: string, handStatements: () => number, orgKey: string, sessionId: string, apiKey: string, script: string): Promise<void> {
  const ws = `/api/v1/org/${orgKey}/ws/ws-0`;
  const dashboard = (counts: boolean) => ({
    query: `query($org: String!, $workspace: String!) { workspace(org: $org, workspace: $workspace) { sessions(limit: 100) {
      id group { kind status${counts ? ' session_count' : ''} } created_by { username } project { key name } } } }`,
    variables: { org: orgKey, workspace: 'ws-0', counts },
  });
  const requests: Request[] = [
    { name: 'GET WS/sessions/{id}', method: 'GET', path: `${ws}/sessions/${sessionId}`, target: 0.5, maxStatements: 4 },
    { name: 'GET WS/sessions?limit=100', method: 'GET', path: `${ws}/sessions?limit=100`, target: 0.9 },
    { name: 'GraphQL dashboard: workspace → 100 sessions { group { kind status } created_by project }', method: 'POST', path: '/graphql', body: dashboard(false), target: 0.5, maxStatements: 5 },
    { name: 'the same with group { session_count }', method: 'POST', path: '/graphql', body: dashboard(true), target: 0.9, maxStatements: 5 },
    { name: 'GET /api/v1/health', method: 'GET', path: '/api/v1/health', target: 0.8 },
    { name: 'GET WS/sessions/facets (unfiltered)', method: 'GET', path: `${ws}/sessions/facets`, target: 0 },
  ];

  const rows: string[] = [];
  for (const request of requests) {
    const serviceCheck = await once(serviceBase, request, apiKey);
    const handCheck = await once(handBase, request, apiKey);
    if (serviceCheck.status !== 200 || serviceCheck.text.includes('"errors"')) throw new Error(`${request.name}: service ${serviceCheck.status} ${serviceCheck.text.slice(0, 300)}`);
    if (handCheck.status !== 200) throw new Error(`${request.name}: hand-written ${handCheck.status} ${handCheck.text.slice(0, 300)}`);
    const counted: string[] = [];
    const stop = onStatement((sql) => counted.push(sql));
    await once(serviceBase, request, apiKey);
    stop();
    const before = handStatements();
    await once(handBase, request, apiKey);
    const handCount = handStatements() - before;

    const serviceRuns: WrkResult[] = [];
    const handRuns: WrkResult[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      serviceRuns.push(await wrk(serviceBase, request, apiKey, script));
      handRuns.push(await wrk(handBase, request, apiKey, script));
    }
    const s = median(serviceRuns, (item) => item.rps);
    const h = median(handRuns, (item) => item.rps);
    const ratio = s.rps / h.rps;
    const verdicts = [request.target ? (ratio >= request.target ? `≥ ${request.target}× met` : `≥ ${request.target}× MISSED`) : 'no target'];
    if (request.maxStatements) verdicts.push(counted.length <= request.maxStatements ? `≤ ${request.maxStatements} statements met` : `≤ ${request.maxStatements} statements MISSED`);
    const line = `| ${request.name} | ${s.rps.toFixed(0)} | ${s.p50.toFixed(2)} | ${s.p99.toFixed(2)} | ${h.rps.toFixed(0)} | ${h.p50.toFixed(2)} | ${h.p99.toFixed(2)} | ${counted.length} / ${handCount} | ${ratio.toFixed(2)} | ${verdicts.join('; ')} |`;
    rows.push(line);
    log(line + (s.non2xx || h.non2xx ? ` (non-2xx: service ${s.non2xx}, hand-written ${h.non2xx})` : ''));
  }
  console.log(`\n${CONNECTIONS} connections, ${SECONDS} s per run, median of ${RUNS} runs (by req/s); p50/p99 in ms\n`);
  console.log('| request | service req/s | p50 | p99 | hand-written req/s | p50 | p99 | statements (service / hand-written) | service / hand-written | target |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) console.log(row);
}
