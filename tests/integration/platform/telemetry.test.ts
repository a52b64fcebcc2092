import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { createUser } from '../../factories/accounts';
import { readProtobufExport } from '../../../src/modules/traces/otlp';
import { closeDatabase, connectDatabase } from '../../../src/db/database';
import { platform } from '../../../src/modules';

/**
 * The service's own spans (OTEL_EXPORTER_OTLP_ENDPOINT): a real server
 * process (the OpenTelemetry exporter loads its transport with a dynamic
 * import, which jest's sandbox refuses) exports to an OTLP receiver on
 * 127.0.0.1 in this test; the receiver decodes the protobuf exports.
 */
const ROOT = path.resolve(__dirname, '../../..');
const STARTUP_MS = 180_000;
jest.setTimeout(STARTUP_MS * 2);

interface Received {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  attributes: Record<string, unknown>;
}

let receiver: http.Server;
const spans: Received[] = [];
let child: ChildProcess | null = null;

beforeAll(async () => {
  connectDatabase(process.env.DATABASE_URL!, { poolMax: 2, models: platform.models });
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = zlib.gunzipSync(body);
      // Read by the ingest's own reader of OTLP protobuf.
      const reading = readProtobufExport(body, { maxSpans: 100_000, maxAttributes: 1000, maxAttributeLength: 1_000_000, maxContainers: 1_000_000 });
      expect(reading.rejected).toEqual([]);
      for (const span of reading.spans) {
        spans.push({ traceId: span.trace_id, spanId: span.span_id, parentSpanId: span.parent_span_id, name: span.name, attributes: span.attributes });
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  child?.kill('SIGKILL');
  await new Promise((resolve) => receiver.close(resolve));
  await closeDatabase();
});

it('exports a server span continuing the caller\'s traceparent, with GraphQL operation and SQL spans beneath, and logs its trace id', async () => {
  const user = await createUser();
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NODE_ENV: 'development', SEED_DEMO: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
  delete env.PASSWORD_SCRYPT_LOG_N;
  child = spawn(process.execPath, ['scripts/run.js', 'src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const base = await new Promise<string>((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const found = /ready on (http:\/\/\S+)/.exec(output)?.[1];
      if (found) {
        clearInterval(poll);
        resolve(found);
      } else if (child!.exitCode !== null || Date.now() - started > STARTUP_MS) {
        clearInterval(poll);
        reject(new Error(`the server did not start\n${output}`));
      }
    }, 100);
  });

  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parentId = '00f067aa0ba902b7';
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${user.token}`, traceparent: `00-${traceId}-${parentId}-01` },
    body: JSON.stringify({ query: 'query Me { user { id } }' }),
  });
  expect(res.status).toBe(200);

  // SIGTERM: the server drains, then flushes its spans before it exits.
  const exited = new Promise((resolve) => child!.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;

  const server = spans.find((span) => span.traceId === traceId && span.parentSpanId === parentId);
  expect(server).toMatchObject({ name: 'POST graphql', attributes: expect.objectContaining({ 'http.route': 'graphql' }) });
  const operation = spans.find((span) => span.traceId === traceId && span.name === 'graphql query Me');
  expect(operation).toBeDefined();
  const statements = spans.filter((span) => span.traceId === traceId && span.name === 'sql');
  expect(statements.length).toBeGreaterThan(0);
  expect(statements.every((span) => typeof span.attributes['db.statement'] === 'string')).toBe(true);
  const line = output.split('\n').find((text) => text.includes('"msg":"request"') && text.includes('"route":"graphql"'));
  expect(line && JSON.parse(line).trace_id).toBe(traceId);
});
