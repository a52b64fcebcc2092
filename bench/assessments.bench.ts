import crypto from 'node:crypto';
import http from 'node:http';
import { QueryTypes } from 'sequelize';
import { database } from '../src/db/database';
import { signAccessToken } from '../src/modules/accounts/jwt';
import { generateApiKey } from '../src/modules/api-keys/api-keys.service';
import { captureStatements, replayer, replayPool } from './capture';
import { startHandwritten } from './handwritten-server';
import { log, startService, withBenchDatabase } from './harness';
import { load, percentile, type LoadResult } from './load';
import { measureRounds, roundsLine } from './rounds';
import { wrkAvailable, wrkLoad } from './wrk';

/**
 * Red-team assessments:
 *
 * 1. Ingest: 100,000 attack spans (BENCH_SPANS) into one assessment in
 *    batches of 500 by 4 concurrent writers over HTTP; spans per second,
 *    p50/p99 per batch, and at the end `overall_asr` against the mean
 *    recomputed from scratch (must be equal: nothing lost under concurrency).
 * 2. Reads of a 10,000-span assessment: its attack list and its analytics
 *    over loopback HTTP at 2 and 20 connections, beside exactly the statements
 *    the service sent for that request replayed directly (bench/capture.ts).
 *    Target: HTTP p50 at most 1.5× the direct SQL p50 at 2 connections.
 *
 * Options: BENCH_DATABASE_URL, BENCH_SPANS, BENCH_REQUESTS (default 200),
 * BENCH_SECONDS (default 15).
 */
const SPANS = Number(process.env.BENCH_SPANS ?? 100_000);
const BATCH = 500;
const WRITERS = 4;
const READ_SPANS = 10_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
/** Rounds at 2 connections (direct SQL, then HTTP, alternated); the medians are reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SQL_SECONDS = 5;

const CATEGORIES = ['jailbreak', 'prompt_injection', 'data_exfiltration', 'harmful_content'];
const GOALS = ['prompt_leak', 'pii', 'malware', 'self_harm', 'fraud'];

function batch(offset: number): { attacks: Record<string, unknown>[] } {
  return {
    attacks: Array.from({ length: BATCH }, (_, index) => {
      const n = offset + index;
      const asr = ((n * 7919) % 1000) / 1000;
      return {
        attack_name: ['tap', 'pair', 'crescendo', 'gcg'][n % 4],
        goal: `goal ${n % 50}`,
        goal_category: GOALS[n % GOALS.length],
        category: CATEGORIES[n % CATEGORIES.length],
        asr,
        is_jailbreak: asr > 0.8,
        best_score: asr * 10,
        finished_trials: 1 + (n % 5),
        total_trials: 5,
        execution_time_s: 0.5 + (n % 10) / 10,
        transforms: n % 3 === 0 ? ['base64'] : [],
      };
    }),
  };
}

async function fixture(): Promise<{ token: string; apiKey: string; base: string; stop: () => Promise<void>; path: string }> {
  const db = database();
  const suffix = crypto.randomBytes(3).toString('hex');
  const [user] = await db.query<{ id: string }>(
    `INSERT INTO users (email, username, full_name, password_hash) VALUES ($email, $username, 'AIRT bench', 'not-a-hash') RETURNING id`,
    { type: QueryTypes.SELECT, bind: { email: `airt-${suffix}@example.test`, username: `airt-${suffix}` } },
  );
  const [org] = await db.query<{ id: string }>(`INSERT INTO organizations (key, name) VALUES ($key, 'AIRT bench') RETURNING id`, {
    type: QueryTypes.SELECT,
    bind: { key: `airt-${suffix}` },
  });
  await db.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($org, $user, 'owner')`, { bind: { org: org.id, user: user.id } });
  const [ws] = await db.query<{ id: string }>(`INSERT INTO workspaces (organization_id, key, name, is_default) VALUES ($org, 'default', 'Default', true) RETURNING id`, {
    type: QueryTypes.SELECT,
    bind: { org: org.id },
  });
  await db.query(`INSERT INTO projects (organization_id, workspace_id, key, name, is_default) VALUES ($org, $ws, 'default', 'Default', true)`, {
    bind: { org: org.id, ws: ws.id },
  });
  // The hand-written yardstick authenticates with an API key, as in `npm run bench -- requests`.
  const key = generateApiKey();
  await db.query(`INSERT INTO api_keys (user_id, name, key_hash, masked_key, allow_self_revoke, last_used_at) VALUES ($user, 'bench', $hash, $masked, false, now())`, {
    bind: { user: user.id, hash: key.hash, masked: key.masked },
  });
  const service = await startService();
  return {
    token: signAccessToken({ id: user.id, token_version: 0 }),
    apiKey: key.key,
    base: service.base,
    stop: service.stop,
    path: `/api/v1/org/airt-${suffix}/ws/default/airt/assessments`,
  };
}

/** Sequential requests per coding for the compression table. */
const COMPRESSION_RUNS = 20;

/** One GET over node:http (no decompression): the bytes received and the time to the last one. */
function timedGet(url: string, headers: Record<string, string>): Promise<{ bytes: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    http
      .get(url, { headers }, (reply) => {
        let bytes = 0;
        reply.on('data', (chunk: Buffer) => (bytes += chunk.length));
        reply.on('end', () => (reply.statusCode === 200 ? resolve({ bytes, ms: performance.now() - started }) : reject(new Error(`HTTP ${reply.statusCode}`))));
      })
      .on('error', reject);
  });
}

async function post(url: string, token: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

export async function main(): Promise<void> {
  await withBenchDatabase('assessments', 20, async (url) => {
    const { token, apiKey, base, stop, path } = await fixture();
    const pool = replayPool(url, 20);
    const handwritten = await startHandwritten(url);
    const handBase = `http://127.0.0.1:${handwritten.port}`;
    try {
      // 1. Ingest.
      const created = await post(`${base}${path}`, token, { name: 'ingest bench', attack_manifest: [{ attack: 'tap' }] });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
      const ingestUrl = `${base}${path}/${created.body.id}/traces/attacks`;
      const latencies: number[] = [];
      let next = 0;
      let failures = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          while (next < SPANS) {
            const offset = next;
            next += BATCH;
            const t0 = performance.now();
            const res = await post(ingestUrl, token, batch(offset));
            latencies.push(performance.now() - t0);
            if (res.status !== 201) failures += 1;
            if ((offset / BATCH) % 40 === 39) log(`  ${(offset + BATCH).toLocaleString('en-US')} spans`);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const [check] = await database().query<{ overall_asr: number; recomputed: number; spans: string }>(
        `SELECT a.overall_asr, (SELECT avg(s.asr) FROM airt_attack_spans s WHERE s.assessment_id = a.id) AS recomputed,
                (SELECT count(*) FROM airt_attack_spans s WHERE s.assessment_id = a.id) AS spans
           FROM airt_assessments a WHERE a.id = $id`,
        { type: QueryTypes.SELECT, bind: { id: created.body.id } },
      );
      const exact = Math.abs(Number(check.overall_asr) - Number(check.recomputed)) < 1e-9 && Number(check.spans) === SPANS;
      log(
        `ingest: ${SPANS.toLocaleString('en-US')} spans in ${seconds.toFixed(1)} s = ${(SPANS / seconds).toFixed(0)} spans/s; per batch of ${BATCH} ` +
          `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; ${failures} failed batches; ` +
          `stored ${check.spans}, overall_asr ${Number(check.overall_asr).toFixed(6)} vs recomputed ${Number(check.recomputed).toFixed(6)}: ${exact ? 'equal' : 'DIFFERENT'}`,
      );

      // 2. Reads of a 10,000-span assessment.
      const read = await post(`${base}${path}`, token, { name: 'read bench', attack_manifest: [] });
      for (let offset = 0; offset < READ_SPANS; offset += BATCH) await post(`${base}${path}/${read.body.id}/traces/attacks`, token, batch(offset));
      // The floor: a minimal node:http + pg server (bench/handwritten-server.ts) answering the same read at 2 connections.
      const scenarios = [
        { name: `attack list (${READ_SPANS.toLocaleString('en-US')} spans)`, url: `${base}${path}/${read.body.id}/traces/attacks`, hand: `${handBase}${path}/${read.body.id}/traces/attacks` },
        { name: 'analytics', url: `${base}${path}/${read.body.id}/analytics`, hand: `${handBase}${path}/${read.body.id}/analytics` },
        { name: 'trace stats', url: `${base}${path}/${read.body.id}/traces`, hand: null },
      ];
      const rows: { name: string; statements: number; sqlP50: number; connections: number; result: LoadResult; handP50: number | null }[] = [];
      for (const scenario of scenarios) {
        let status = 0;
        await new Promise((resolve) => setTimeout(resolve, 5000)); // requests of the previous run still finishing are not this one's
        const statements = await captureStatements(async () => {
          const response = await fetch(scenario.url, { headers: { authorization: `Bearer ${token}` } });
          status = response.status;
          await response.arrayBuffer();
        });
        if (status !== 200) throw new Error(`${scenario.name}: HTTP ${status}`);
        // Rounds of (direct SQL, HTTP) at 2 connections, alternated, medians reported; then one round at 20.
        const direct = replayer(pool, statements);
        await load(scenario.url, { token, connections: 2, count: 10, seconds: 5 });
        for (const connections of [2, 20]) {
          const measured = await measureRounds(scenario.name, scenario.url, direct, {
            token, connections, rounds: connections === 2 ? ROUNDS : 1, seconds: SECONDS, sqlSeconds: SQL_SECONDS, requests: REQUESTS,
          });
          let handP50: number | null = null;
          if (scenario.hand && connections === 2 && wrkAvailable()) {
            const check = await fetch(scenario.hand, { headers: { 'x-api-key': apiKey } });
            if (check.status !== 200) throw new Error(`${scenario.name}: hand-written HTTP ${check.status}`);
            await check.arrayBuffer();
            handP50 = (await wrkLoad(scenario.hand, { headers: { 'x-api-key': apiKey }, connections, seconds: SECONDS })).p50_ms;
          }
          rows.push({ name: scenario.name, statements: statements.length, sqlP50: measured.sqlP50, connections, result: measured.result, handP50 });
          log(roundsLine(scenario.name, connections, measured, statements.length) + (handP50 === null ? '' : `; hand-written node:http + pg HTTP p50 ${handP50.toFixed(2)} ms`));
        }
      }
      console.log(`\nIngest: ${(SPANS / seconds).toFixed(0)} spans/s with ${WRITERS} writers; batch p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; overall_asr ${exact ? 'equals' : 'DIFFERS FROM'} the recomputed mean\n`);
      console.log('| read | statements | direct SQL p50 at the same concurrency (ms) | connections | HTTP p50 (ms) | HTTP p99 (ms) | req/s | HTTP p50 / SQL p50 | target (≤ 1.5× at 2) | hand-written HTTP p50 (ms) / SQL p50 |');
      console.log('|---|---|---|---|---|---|---|---|---|---|');
      for (const row of rows) {
        const ratio = row.result.p50_ms / row.sqlP50;
        console.log(
          `| ${row.name} | ${row.statements} | ${row.sqlP50.toFixed(2)} | ${row.connections} | ${row.result.p50_ms.toFixed(2)} | ${row.result.p99_ms.toFixed(2)} | ` +
            `${row.result.req_per_s.toFixed(1)} | ${ratio.toFixed(2)} | ${row.connections === 2 ? (ratio <= 1.5 ? 'met' : 'MISSED') : '–'} | ` +
            `${row.handP50 === null ? '–' : `${row.handP50.toFixed(2)} / ${(row.handP50 / row.sqlP50).toFixed(2)}`} |`,
        );
      }
      // 3. The attack list's bytes on the wire and time to its last byte, uncompressed and in each coding (sequential requests).
      const attackUrl = `${base}${path}/${read.body.id}/traces/attacks`;
      console.log(`\n| attack list (${READ_SPANS.toLocaleString('en-US')} spans), Accept-Encoding | bytes on the wire | share of identity | time to last byte p50 (ms) | p90 (ms) |`);
      console.log('|---|---|---|---|---|');
      let identityBytes = 0;
      for (const coding of ['identity', 'gzip', 'br']) {
        const times: number[] = [];
        let bytes = 0;
        for (let run = 0; run < COMPRESSION_RUNS; run += 1) {
          const measured = await timedGet(attackUrl, { authorization: `Bearer ${token}`, 'accept-encoding': coding });
          times.push(measured.ms);
          bytes = measured.bytes;
        }
        if (coding === 'identity') identityBytes = bytes;
        times.sort((a, b) => a - b);
        console.log(`| ${coding} | ${bytes.toLocaleString('en-US')} | ${((bytes / identityBytes) * 100).toFixed(1)} % | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 90).toFixed(1)} |`);
      }
    } finally {
      handwritten.server.closeAllConnections();
      await new Promise<void>((resolve) => handwritten.server.close(() => resolve()));
      await handwritten.pool.end();
      await pool.end();
      await stop();
    }
  });
}
