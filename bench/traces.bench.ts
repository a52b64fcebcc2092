import crypto from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { Worker } from 'node:worker_threads';
import zlib from 'node:zlib';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import protobuf from 'protobufjs';
import { QueryTypes } from 'sequelize';
import { database } from '../src/db/database';
import { generateApiKey } from '../src/modules/api-keys/api-keys.service';
import { signAccessToken } from '../src/modules/accounts/jwt';
import { ensureSpanPartitions } from '../src/modules/traces/span-partitions';
import { COPY_SPANS_SQL, spanBytes } from '../src/modules/traces/traces.sql';
import { captureStatements, replayer, replayPool } from './capture';
import { log, procStats, spawnService, startService, withBenchDatabase } from './harness';
import { percentile } from './load';
import { measureRounds, roundsLine } from './rounds';

/**
 * Traces (issue 23):
 *
 * 1. Ingest: OTLP/HTTP protobuf exports of 512 spans (the exporter's batch
 *    size), gzip, by 2 and by 8 concurrent connections, in spans per
 *    second; beside the same rows written by COPY directly (512 rows per
 *    COPY, same concurrency) in the same run, in an even number of rounds
 *    that alternate which goes first (the lower middle round is reported). Target:
 *    HTTP at least half of COPY's rate. The server's memory (RSS, heap) is sampled while it
 *    ingests (the bench's client runs in the same process, so this is an
 *    upper bound), and the CPU time per export of every PostgreSQL process
 *    and of this process (the service with its client, or the bench
 *    sending COPY), from /proc: on two cores both runs are CPU-bound, so
 *    these say where the difference goes.
 * 2. Reads at 1,000,000 spans (BENCH_TRACE_SPANS): the trace list and the
 *    1,000 spans of one trace over loopback HTTP at 2 connections (p50,
 *    p99), beside exactly the statements the service sent replayed directly.
 *
 * Options: BENCH_DATABASE_URL, BENCH_TRACE_BATCHES (per round, default
 * 200), BENCH_TRACE_SPANS (default 1,000,000), BENCH_SECONDS (default 8),
 * BENCH_ROUNDS (ingest rounds and read rounds, default 3),
 * BENCH_TRACE_ROOT_PROJECT=1 (each trace's root names a project other than
 * the default one, as the SDK's do: the export then looks for children
 * waiting for its roots after its commit, one statement more).
 */
const BATCH = 512;
const BATCHES = Number(process.env.BENCH_TRACE_BATCHES ?? 200);
const TOTAL_SPANS = Number(process.env.BENCH_TRACE_SPANS ?? 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Ingest rounds: BENCH_ROUNDS made even, so HTTP and COPY go first equally often. */
const INGEST_ROUNDS = Math.max(2, ROUNDS + (ROUNDS % 2));
/** The key of the project roots name with BENCH_TRACE_ROOT_PROJECT=1 (not the default project). */
const ROOT_PROJECT = process.env.BENCH_TRACE_ROOT_PROJECT === '1' ? 'traced' : null;
/** The service's HTTP workers (WEB_CONCURRENCY) in the ingest runs: one, and one per core (BENCH_TRACE_WORKERS). */
const WORKERS = [...new Set([1, Number(process.env.BENCH_TRACE_WORKERS ?? os.cpus().length)])];

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => path.resolve(__dirname, '../src/modules/traces/proto', target);
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
const Request = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

interface BenchSpan {
  traceId: Buffer;
  spanId: Buffer;
  parentSpanId: Buffer | null;
  name: string;
  type: string;
  startNs: bigint;
  attributes: Record<string, string | number>;
}

/** One export's spans: 8 traces of 64 spans (a root, its children), SDK-like attributes. */
function batchSpans(seed: number): BenchSpan[] {
  const spans: BenchSpan[] = [];
  const now = BigInt(Date.now()) * 1_000_000n;
  for (let t = 0; t < BATCH / 64; t += 1) {
    const traceId = crypto.randomBytes(16);
    const rootId = crypto.randomBytes(8);
    for (let s = 0; s < 64; s += 1) {
      spans.push({
        traceId,
        spanId: s === 0 ? rootId : crypto.randomBytes(8),
        parentSpanId: s === 0 ? null : rootId,
        name: s === 0 ? 'task run' : `tool call ${s % 7}`,
        type: s === 0 ? 'task' : 'tool',
        startNs: now + BigInt(seed * 1000 + s) * 1000n,
        attributes: {
          'dreadnode.type': s === 0 ? 'task' : 'tool',
          'dreadnode.run.id': `run-${seed}`,
          'tool.name': `tool-${s % 7}`,
          'llm.tokens': s * 13,
          input: 'x'.repeat(200),
          ...(s === 0 && ROOT_PROJECT ? { 'dreadnode.project': ROOT_PROJECT } : {}),
        },
      });
    }
  }
  return spans;
}

function encodeExport(spans: BenchSpan[]): Buffer {
  const message = Request.fromObject({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] },
        scopeSpans: [
          {
            scope: { name: 'dreadnode' },
            spans: spans.map((span) => ({
              traceId: span.traceId,
              spanId: span.spanId,
              ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
              name: span.name,
              kind: 1,
              startTimeUnixNano: String(span.startNs),
              endTimeUnixNano: String(span.startNs + 5_000_000n),
              attributes: Object.entries(span.attributes).map(([key, value]) => ({ key, value: typeof value === 'number' ? { intValue: value } : { stringValue: value } })),
              status: { code: 1 },
            })),
          },
        ],
      },
    ],
  });
  return zlib.gzipSync(Buffer.from(Request.encode(message).finish()));
}

/**
 * The same spans as COPY text rows of `spans`: every column the ingest
 * stores for them (COPY_COLUMNS, in that order), with the values it stores.
 */
function copyRows(spans: BenchSpan[], ids: { org: string; ws: string; project: string }): string {
  const escape = (text: string) => text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
  return (
    spans
      .map((span) => {
        const start = new Date(Number(span.startNs / 1_000_000n)).toISOString();
        const end = new Date(Number((span.startNs + 5_000_000n) / 1_000_000n)).toISOString();
        const fields = [
          ids.org, ids.ws, ids.project, 'false', span.traceId.toString('hex'), span.spanId.toString('hex'), span.parentSpanId ? span.parentSpanId.toString('hex') : '\\N',
          span.name, span.type, '1', start, end, '5', '1', '\\N', escape(JSON.stringify(span.attributes)), escape(JSON.stringify({ 'service.name': 'bench' })), '[]',
          String(span.attributes['dreadnode.run.id']), '\\N', '\\N', '\\N', '\\N',
        ].join('\t');
        // The last column, `bytes`: the size of the fields before it, as the ingest writes it.
        return `${fields}\t${Buffer.byteLength(fields)}`;
      })
      .join('\n') + '\n'
  );
}

async function fixture() {
  const db = database();
  const suffix = crypto.randomBytes(3).toString('hex');
  const [user] = await db.query<{ id: string }>(
    `INSERT INTO users (email, username, full_name, password_hash) VALUES ($email, $username, 'Trace bench', 'not-a-hash') RETURNING id`,
    { type: QueryTypes.SELECT, bind: { email: `traces-${suffix}@example.test`, username: `traces-${suffix}` } },
  );
  const [org] = await db.query<{ id: string }>(`INSERT INTO organizations (key, name) VALUES ($key, 'Trace bench') RETURNING id`, { type: QueryTypes.SELECT, bind: { key: `traces-${suffix}` } });
  await db.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($org, $user, 'owner')`, { bind: { org: org.id, user: user.id } });
  const [ws] = await db.query<{ id: string }>(`INSERT INTO workspaces (organization_id, key, name, is_default) VALUES ($org, 'default', 'Default', true) RETURNING id`, {
    type: QueryTypes.SELECT,
    bind: { org: org.id },
  });
  const [project] = await db.query<{ id: string }>(
    `INSERT INTO projects (organization_id, workspace_id, key, name, is_default) VALUES ($org, $ws, 'default', 'Default', true) RETURNING id`,
    { type: QueryTypes.SELECT, bind: { org: org.id, ws: ws.id } },
  );
  // With BENCH_TRACE_ROOT_PROJECT, the roots name another project, and their children follow them there.
  const [named] = ROOT_PROJECT
    ? await db.query<{ id: string }>(`INSERT INTO projects (organization_id, workspace_id, key, name, is_default) VALUES ($org, $ws, $key, 'Traced', false) RETURNING id`, {
        type: QueryTypes.SELECT,
        bind: { org: org.id, ws: ws.id, key: ROOT_PROJECT },
      })
    : [project];
  const key = generateApiKey();
  await db.query(`INSERT INTO api_keys (user_id, name, key_hash, masked_key, allow_self_revoke, last_used_at) VALUES ($user, 'bench', $hash, $masked, false, now())`, {
    bind: { user: user.id, hash: key.hash, masked: key.masked },
  });
  return { orgKey: `traces-${suffix}`, ids: { org: org.id, ws: ws.id, project: named.id }, apiKey: key.key, token: signAccessToken({ id: user.id, token_version: 0 }) };
}

/**
 * The exporters' side, in a worker thread: `connections` keep-alive
 * connections, each POSTing the pre-encoded exports back to back and
 * reading each reply's head and Content-Length body. Written on node:net
 * so that the load generator takes as little as it can of the two cores it
 * shares with the service and PostgreSQL (a real exporter runs elsewhere):
 * node:http's client took about 1.4 ms of CPU per export, this about 0.75
 * (fetch about twice node:http's). Each request's bytes are made before
 * the clock starts, like its body. Posts back the per-export latencies and
 * failures (a status other than 200; a reply it cannot read fails the run).
 */
const CLIENT = `
const net = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { url, apiKey, bodies, connections } = workerData;
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error('the exporters only target 127.0.0.1');
  const head = (length) => 'POST ' + target.pathname + ' HTTP/1.1\\r\\nHost: ' + target.host + '\\r\\nX-Api-Key: ' + apiKey +
    '\\r\\nContent-Type: application/x-protobuf\\r\\nContent-Encoding: gzip\\r\\nContent-Length: ' + length + '\\r\\n\\r\\n';
  const requests = bodies.map((body) => Buffer.concat([Buffer.from(head(body.length), 'latin1'), body]));
  // noDelay as node:http's agent sets it: a request goes out at once.
  const open = () => new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(target.port), host: target.hostname, noDelay: true }, () => resolve(socket));
    socket.once('error', reject);
  });
  // One request on a connection and its whole reply; its status.
  const exchange = (socket, request) => new Promise((resolve, reject) => {
    // A connection the service closed after a reply (Connection: close) fails the run rather than hang it.
    if (socket.destroyed || socket.readyState !== 'open') return reject(new Error('the service closed the connection'));
    let received = null;
    const finish = (error, status) => {
      socket.off('data', onData);
      socket.off('error', finish);
      socket.off('close', onClose);
      if (error) reject(error);
      else resolve(status);
    };
    const onClose = () => finish(new Error('the service closed the connection'));
    const onData = (chunk) => {
      received = received ? Buffer.concat([received, chunk]) : chunk;
      const end = received.indexOf('\\r\\n\\r\\n');
      if (end < 0) return;
      const headText = received.toString('latin1', 0, end);
      const length = /\\r\\ncontent-length: *(\\d+)/i.exec(headText);
      if (!length) return finish(new Error('a reply without Content-Length: ' + headText));
      const size = end + 4 + Number(length[1]);
      if (received.length < size) return;
      if (received.length > size) return finish(new Error('bytes after the reply'));
      finish(null, Number(headText.slice(9, 12)));
    };
    socket.on('data', onData);
    socket.on('error', finish);
    socket.on('close', onClose);
    socket.write(request);
  });
  const sockets = await Promise.all(Array.from({ length: connections }, open));
  let next = 0;
  let failures = 0;
  const latencies = [];
  const started = performance.now();
  await Promise.all(sockets.map(async (socket) => {
    while (next < requests.length) {
      const request = requests[next];
      next += 1;
      const t0 = performance.now();
      const status = await exchange(socket, request);
      latencies.push(performance.now() - t0);
      if (status !== 200) failures += 1;
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  for (const socket of sockets) socket.destroy();
  parentPort.postMessage({ latencies, failures, seconds });
})();
`;

type Service = Awaited<ReturnType<typeof spawnService>>;

/**
 * `bodies` sent by `connections` exporters (a worker thread of this process)
 * to the service; spans per second, per-export p50/p99, the service's memory
 * (RSS of its processes) sampled meanwhile, and CPU per export.
 */
async function ingest(service: Service, apiKey: string, orgKey: string, bodies: Buffer[], connections: number) {
  let rssPeak = 0;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, service.rss())), 100);
  const before = cpuSeconds(service);
  const worker = new Worker(CLIENT, {
    eval: true,
    workerData: { url: `${service.base}/api/v1/org/${orgKey}/otel/traces`, apiKey, bodies: bodies.map((body) => new Uint8Array(body)), connections },
  });
  const result = await new Promise<{ latencies: number[]; failures: number; seconds: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const cpu = perExport(before, cpuSeconds(service), bodies.length);
  await worker.terminate();
  clearInterval(sampler);
  const latencies = result.latencies.sort((a, b) => a - b);
  return { perSecond: (bodies.length * BATCH) / result.seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failures: result.failures, rssPeak, cpu };
}

/** The same rows by COPY (their text encoded beforehand, as the service writes it), one COPY per batch, `connections` at a time. */
async function copyIngest(pool: pg.Pool, texts: Buffer[], connections: number) {
  let next = 0;
  const cpuBefore = cpuSeconds();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      const client = await pool.connect();
      try {
        while (next < texts.length) {
          const text = texts[next];
          next += 1;
          // Sent as the service sends its rows (db/hot.ts copyIn).
          const copy = client.query(copyFrom(COPY_SPANS_SQL));
          copy.end(text);
          await finished(copy);
        }
      } finally {
        client.release();
      }
    }),
  );
  return { perSecond: (texts.length * BATCH) / ((performance.now() - started) / 1000), cpu: perExport(cpuBefore, cpuSeconds(), texts.length) };
}

/** CPU milliseconds per export between two readings. */
function perExport(before: ReturnType<typeof cpuSeconds>, after: ReturnType<typeof cpuSeconds>, exports: number) {
  const ms = (key: keyof typeof before) => ((after[key] - before[key]) * 1000) / exports;
  return { postgres: ms('postgres'), service: ms('service'), bench: ms('bench') };
}

/** CPU seconds (user + system) so far of every PostgreSQL process, of the service's processes, and of this one (the bench: exporters, or COPY). */
function cpuSeconds(service?: Service): { postgres: number; service: number; bench: number } {
  // A backend that ended (a pool closing an idle connection) is counted in its postmaster's children's time (fields 13, 14).
  const postgres = procStats()
    .filter((stat) => stat.command === 'postgres')
    .reduce((sum, { fields }) => sum + (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / 100, 0);
  const usage = process.cpuUsage();
  return { postgres, service: service?.cpuSeconds() ?? 0, bench: (usage.user + usage.system) / 1e6 };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

export async function main(): Promise<void> {
  await withBenchDatabase('traces', 20, async (url) => {
    await ensureSpanPartitions(true);
    const { orgKey, ids, apiKey, token } = await fixture();
    const pool = replayPool(url, 20);
    const lines: string[] = [];
    let service: Awaited<ReturnType<typeof startService>> | null = null;
    try {
      // 1. Ingest over HTTP beside COPY: the service in processes of its own (src/server.ts) with 1 and WORKERS
      // HTTP workers, at 2 and 8 connections.
      for (const workers of WORKERS) {
        const spawned = await spawnService(url, workers);
        try {
          for (const connections of [2, 8]) {
            // An even number of rounds, HTTP and COPY taking turns at going first (the one that goes second meets a larger
            // table, and autovacuum or a checkpoint after a run lands on it); the lower of the two middle rounds is reported,
            // with every round's ratio.
            const rounds: { http: Awaited<ReturnType<typeof ingest>>; copy: Awaited<ReturnType<typeof copyIngest>>; ratio: number }[] = [];
            const rssBefore = spawned.rss();
            for (let round = 0; round < INGEST_ROUNDS; round += 1) {
              log(`encoding ${BATCHES} exports of ${BATCH} spans (round ${round + 1} of ${INGEST_ROUNDS}, ${workers} worker(s), ${connections} connections)`);
              const bodies = Array.from({ length: BATCHES }, (_, index) => encodeExport(batchSpans(index)));
              const copyTexts = Array.from({ length: BATCHES }, (_, index) => Buffer.from(copyRows(batchSpans(index), ids)));
              let copy = round % 2 ? await copyIngest(pool, copyTexts, connections) : null;
              const http = await ingest(spawned, apiKey, orgKey, bodies, connections);
              copy ??= await copyIngest(pool, copyTexts, connections);
              rounds.push({ http, copy, ratio: http.perSecond / copy.perSecond });
            }
            const ratios = rounds.map((item) => item.ratio);
            const { http, copy, ratio } = [...rounds].sort((a, b) => a.ratio - b.ratio)[rounds.length / 2 - 1];
            const line =
              `| ${workers} | ${connections} | ${http.perSecond.toFixed(0)} | ${http.p50.toFixed(1)} | ${http.p99.toFixed(1)} | ${copy.perSecond.toFixed(0)} | ` +
              `${ratio.toFixed(2)} (${ratios.map((value) => value.toFixed(2)).join(', ')}) | ${ratio >= 0.5 ? 'met' : 'MISSED'} | ` +
              `${http.cpu.postgres.toFixed(1)} + ${http.cpu.service.toFixed(1)} + ${http.cpu.bench.toFixed(1)} | ${copy.cpu.postgres.toFixed(1)} + ${copy.cpu.bench.toFixed(1)} | ` +
              `${mb(rssBefore)} → ${mb(Math.max(...rounds.map((item) => item.http.rssPeak)))} | ${rounds.reduce((sum, item) => sum + item.http.failures, 0)} |`;
            lines.push(line);
            log(line);
          }
        } finally {
          await spawned.stop();
        }
      }

      // 2. Reads at exactly TOTAL_SPANS spans (the ingested ones removed): 1,000 spans of one trace, the rest in traces of 100.
      await database().query('TRUNCATE spans');
      const missing = TOTAL_SPANS - 1000;
      log(`filling to ${TOTAL_SPANS.toLocaleString('en-US')} spans (${missing.toLocaleString('en-US')} more by INSERT … SELECT)`);
      await database().query(
        `INSERT INTO spans (organization_id, workspace_id, project_id, trace_id, span_id, parent_span_id, name, span_type, kind, start_time, end_time, duration_ms, status_code, attributes)
         SELECT $org, $ws, $project, md5('t' || (n / 100)), substr(md5('s' || n), 1, 16), CASE WHEN n % 100 = 0 THEN NULL ELSE substr(md5('s' || (n / 100 * 100)), 1, 16) END,
                CASE WHEN n % 100 = 0 THEN 'task run' ELSE 'step' END, CASE WHEN n % 100 = 0 THEN 'task' ELSE 'tool' END, 1,
                now() - (n || ' milliseconds')::interval, now() - (n || ' milliseconds')::interval + interval '5 ms', 5, CASE WHEN n % 37 = 0 THEN 2 ELSE 1 END,
                jsonb_build_object('dreadnode.type', 'tool', 'n', n)
           FROM generate_series(1, $count::int) AS n`,
        { bind: { ...ids, count: missing } },
      );
      const bigTrace = crypto.randomBytes(16).toString('hex');
      await database().query(
        `INSERT INTO spans (organization_id, workspace_id, project_id, trace_id, span_id, parent_span_id, name, span_type, kind, start_time, end_time, duration_ms, status_code, attributes)
         SELECT $org, $ws, $project, $trace, CASE WHEN n = 0 THEN 'aaaaaaaaaaaaaaaa' ELSE substr(md5('b' || n), 1, 16) END, CASE WHEN n = 0 THEN NULL ELSE 'aaaaaaaaaaaaaaaa' END,
                'span ' || n, CASE WHEN n = 0 THEN 'study' ELSE 'trial' END, 1, now() + (n || ' milliseconds')::interval, now() + (n || ' milliseconds')::interval + interval '3 ms', 3, 1,
                jsonb_build_object('dreadnode.type', 'trial', 'n', n)
           FROM generate_series(0, 999) AS n`,
        { bind: { ...ids, trace: bigTrace } },
      );
      // Spans stored by the ingest carry their size (spans.bytes); these were written by SQL, so they are given theirs.
      await database().query(`UPDATE spans s SET bytes = ${spanBytes('s')}`);
      // Steady state: autovacuum would have set the visibility map by now (the list's count is an index-only scan then).
      // A VACUUM right after the fill sometimes sets none of it (no snapshot held the horizon back when checked
      // just after; a second VACUUM sets it), and the list then read 3–4 times slower from run to run: vacuum until
      // nine pages in ten are all-visible.
      let visible = 0;
      for (let attempt = 0; attempt < 10 && visible < 90; attempt += 1) {
        if (attempt) await new Promise((resolve) => setTimeout(resolve, 1000));
        await database().query('VACUUM ANALYZE spans');
        [{ visible }] = await database().query<{ visible: number }>(
          `SELECT round(100.0 * sum(relallvisible) / greatest(sum(relpages), 1))::int AS visible FROM pg_class WHERE relname LIKE 'spans_p%' AND relkind = 'r'`,
          { type: QueryTypes.SELECT },
        );
        log(`VACUUM ANALYZE spans: ${visible}% of the pages all-visible`);
      }
      service = await startService();
      const base = `${service.base}/api/v1/org/${orgKey}/ws/default/traces`;
      const reads = [
        { name: 'trace list (page of 20)', url: base },
        { name: 'spans of a 1,000-span trace (limit 1000)', url: `${base}/${bigTrace}/spans?limit=1000` },
      ];
      const readLines: string[] = [];
      for (const read of reads) {
        const statements = await captureStatements(async () => {
          const response = await fetch(read.url, { headers: { authorization: `Bearer ${token}` } });
          if (response.status !== 200) throw new Error(`${read.name}: HTTP ${response.status} ${await response.text()}`);
          await response.arrayBuffer();
        });
        const measured = await measureRounds(read.name, read.url, replayer(pool, statements), { token, connections: 2, rounds: ROUNDS, seconds: SECONDS, sqlSeconds: 5, requests: 200 });
        log(roundsLine(read.name, 2, measured, statements.length));
        readLines.push(
          `| ${read.name} | ${statements.length} | ${measured.sqlP50.toFixed(2)} | ${measured.result.p50_ms.toFixed(2)} | ${measured.result.p99_ms.toFixed(2)} | ${measured.result.req_per_s.toFixed(1)} | ${(measured.result.p50_ms / measured.sqlP50).toFixed(2)} |`,
        );
      }

      console.log(`\nIngest: OTLP protobuf exports of ${BATCH} spans (gzip), ${BATCHES} per round, beside COPY of the same rows (${BATCH} per COPY); the lower middle of ${INGEST_ROUNDS} rounds\n`);
      console.log(
        '| HTTP workers | connections | HTTP spans/s | per export p50 (ms) | p99 (ms) | COPY spans/s | HTTP / COPY (every round) | target (≥ 0.5) | ' +
          'CPU ms per export, HTTP: PostgreSQL + service + exporters | COPY: PostgreSQL + bench | service RSS before → peak | failed exports |',
      );
      console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
      for (const line of lines) console.log(line);
      console.log(`\nReads at ${TOTAL_SPANS.toLocaleString('en-US')} spans, 2 connections\n`);
      console.log('| read | statements | direct SQL p50 (ms) | HTTP p50 (ms) | HTTP p99 (ms) | req/s | HTTP p50 / SQL p50 |');
      console.log('|---|---|---|---|---|---|---|');
      for (const line of readLines) console.log(line);
    } finally {
      await pool.end();
      await service?.stop();
    }
  });
}
