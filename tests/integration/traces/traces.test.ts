import crypto from 'node:crypto';
import zlib from 'node:zlib';
import protobuf from 'protobufjs';
import path from 'node:path';
import { addMember, createOrgWithRoles, createUser, type TestUser } from '../../factories/accounts';
import { createApiKey } from '../../factories/api-keys';
import { createEvaluation, items, publishVerifiedTask } from '../../factories/evaluations';
import { gql, rest } from '../../helpers/http';
import { countStatements } from '../../helpers/statements';
import { useTestApp } from '../../helpers/test-app';
import { config, overrideConfig } from '../../../src/config/config';
import { database } from '../../../src/db/database';
import { QueryTypes } from 'sequelize';
import { NEWEST_FIRST, traceSummariesSql } from '../../../src/modules/traces/traces.sql';
import { evaluationTraceItemsSql } from '../../../src/modules/traces/traces.service';

interface PlanNode {
  'Node Type': string;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

const api = useTestApp();
let roles: Awaited<ReturnType<typeof createOrgWithRoles>>;
let owner: TestUser;
let outsider: TestUser;
let key: string;
let outsiderKey: string;
let WS: string;

const hex = (bytes: number) => crypto.randomBytes(bytes).toString('hex');
const nowNs = () => BigInt(Date.now()) * 1_000_000n;

interface SpanSpec {
  traceId: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  attributes?: Record<string, string | number | boolean>;
  startNs?: bigint;
  durationMs?: number;
  error?: boolean;
}

/** An OTLP/JSON span as an exporter writes it. */
function span(spec: SpanSpec) {
  const start = spec.startNs ?? nowNs();
  return {
    traceId: spec.traceId,
    spanId: spec.spanId ?? hex(8),
    ...(spec.parentSpanId ? { parentSpanId: spec.parentSpanId } : {}),
    name: spec.name ?? 'span',
    kind: 1,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + BigInt((spec.durationMs ?? 5) * 1_000_000)),
    attributes: Object.entries(spec.attributes ?? {}).map(([k, v]) => ({
      key: k,
      value: typeof v === 'number' ? (Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v }) : typeof v === 'boolean' ? { boolValue: v } : { stringValue: v },
    })),
    status: spec.error ? { code: 2, message: 'failed' } : { code: 1 },
  };
}
const exportOf = (spans: unknown[]) => ({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'test' } }] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] });

function send(body: unknown, options: { apiKey?: string; org?: string; headers?: Record<string, string>; raw?: string } = {}) {
  return rest(api, 'POST', `/org/${options.org ?? owner.orgKey}/otel/traces`, {
    headers: { 'x-api-key': options.apiKey ?? key, ...options.headers },
    ...(options.raw !== undefined ? { rawBody: options.raw } : { body }),
  });
}

async function sendRaw(body: Buffer, headers: Record<string, string>, apiKey = key) {
  const response = await fetch(`${api.baseUrl}/api/v1/org/${owner.orgKey}/otel/traces`, { method: 'POST', headers: { 'x-api-key': apiKey, ...headers }, body: new Uint8Array(body) });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

/** A project of a new workspace of the owner's organization (not the default one). */
async function otherProject(): Promise<{ project: { id: string; key: string }; workspaceKey: string }> {
  const workspace = await rest(api, 'POST', `/org/${owner.orgKey}/ws`, { token: owner.token, body: { key: `ws-${hex(3)}`, name: 'Elsewhere' } });
  const project = await rest(api, 'POST', `/org/${owner.orgKey}/ws/${workspace.body.key}/projects`, { token: owner.token, body: { key: `p-${hex(3)}`, name: 'Traced' } });
  expect([workspace.status, project.status]).toEqual([201, 201]);
  return { project: project.body, workspaceKey: workspace.body.key };
}

/** The daily partition of spans starting at `ns` (migration 0060, span-partitions.ts). */
const partitionOf = (ns: bigint) => `spans_p${new Date(Number(ns / 1_000_000n)).toISOString().slice(0, 10).replace(/-/g, '')}`;

/** Returns once a statement waits for a lock on `table`. */
async function waitingOn(table: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const [row] = await database().query<{ n: number }>('SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = $table::regclass', {
      bind: { table },
      type: QueryTypes.SELECT,
    });
    if (row.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nothing waited on ${table}`);
}

async function stats(traceId: string, token = owner.token) {
  return rest(api, 'GET', `${WS}/traces/${traceId}/stats`, { token });
}

beforeAll(async () => {
  roles = await createOrgWithRoles();
  owner = roles.owner;
  outsider = await createUser();
  key = (await createApiKey(api, owner)).key;
  outsiderKey = (await createApiKey(api, outsider)).key;
  WS = `/org/${owner.orgKey}/ws/default`;
});

describe('POST /org/{org}/otel/traces', () => {
  it('stores a retried export once, keyed by (trace_id, span_id)', async () => {
    const traceId = hex(16);
    const root = span({ traceId, name: 'root' });
    const body = exportOf([root, span({ traceId, parentSpanId: root.spanId, name: 'child' })]);
    expect((await send(body)).body).toEqual({ accepted: 2, rejected: 0 });
    expect((await send(body)).body).toEqual({ accepted: 2, rejected: 0 });
    expect((await stats(traceId)).body.total_spans).toBe(2);
    const list = await rest(api, 'GET', `${WS}/traces`, { token: owner.token });
    expect(list.body.traces.filter((item: { trace_id: string }) => item.trace_id === traceId)).toHaveLength(1);
  });

  it('stores only its own rows when its COPY text is written into the memory of a larger export before it', async () => {
    const large = hex(16);
    const spans = Array.from({ length: 40 }, (_, index) => span({ traceId: large, name: `large ${index} ${'x'.repeat(2000)}` }));
    expect((await send(exportOf(spans))).body).toEqual({ accepted: 40, rejected: 0 });
    const small = hex(16);
    expect((await send(exportOf([span({ traceId: small, name: 'small' })]))).body).toEqual({ accepted: 1, rejected: 0 });
    const stored = await database().query<{ trace_id: string; name: string; bytes: number }>(
      'SELECT trace_id, name, bytes FROM spans WHERE trace_id IN (:large, :small) ORDER BY name',
      { replacements: { large, small }, type: QueryTypes.SELECT },
    );
    expect(stored.filter((row) => row.trace_id === large)).toHaveLength(40);
    expect(stored.filter((row) => row.trace_id === small).map((row) => row.name)).toEqual(['small']);
    // Its size is its own row's, not the larger rows' written there before.
    expect(stored.find((row) => row.trace_id === small)!.bytes).toBeLessThan(1000);
  });

  it('writes an export in one COPY of its own, and moves children waiting for a root after it in one transaction', async () => {
    // (The process's first export also makes sure of the partitions.)
    await send(exportOf([span({ traceId: hex(16) })]));
    const traceId = hex(16);
    const root = span({ traceId, name: 'root' });
    const whole = await countStatements(() => send(exportOf([root, span({ traceId, parentSpanId: root.spanId })])));
    expect(whole.result.body).toEqual({ accepted: 2, rejected: 0 });
    // The key, the projects, the COPY.
    expect(whole.statements).toHaveLength(3);
    expect(whole.statements[2]).toMatch(/^COPY spans/);
    // Sequelize logs its transaction statements as `Executing (id): …`.
    const verbsOf = (statements: string[]) => statements.map((sql) => sql.replace(/^Executing \(\S+\): /, '').trim().split(/\s+/)[0]);
    // A root that names no project lands where its waiting children are (the default project): nothing to move.
    const home = hex(16);
    const homeRoot = hex(8);
    await send(exportOf([span({ traceId: home, parentSpanId: homeRoot, name: 'child first' })]));
    const staying = await countStatements(() => send(exportOf([span({ traceId: home, spanId: homeRoot, name: 'root last' })])));
    expect(verbsOf(staying.statements)).toEqual(['SELECT', 'SELECT', 'COPY']);
    expect((await stats(home)).body.total_spans).toBe(2);
    // A root naming another project: after its COPY, one look for waiting children, then one transaction moves them.
    const { project } = await otherProject();
    const late = hex(16);
    const rootId = hex(8);
    await send(exportOf([span({ traceId: late, parentSpanId: rootId, name: 'child first' })]));
    const moving = await countStatements(() => send(exportOf([span({ traceId: late, spanId: rootId, name: 'root last', attributes: { 'dreadnode.project': project.id } })])));
    // The key, the projects, the COPY, the look, then the traces' lock and the move (returning the red-team spans it moved).
    expect(verbsOf(moving.statements)).toEqual(['SELECT', 'SELECT', 'COPY', 'SELECT', 'START', 'SELECT', 'WITH', 'COMMIT;']);
  });

  it('places a child with its root when the two exports run at once, whichever commits last (a lock holds one back)', async () => {
    const { project, workspaceKey } = await otherProject();
    for (const heldBack of ['root', 'child'] as const) {
      const traceId = hex(16);
      const rootId = hex(8);
      const rootStart = nowNs();
      // The child starts the next day (a long trace): its own partition, so one export can be held back and not the other.
      const childStart = rootStart + 86_400_000_000_000n;
      const root = span({ traceId, spanId: rootId, name: 'root', startNs: rootStart, attributes: { 'dreadnode.project': project.id } });
      const child = span({ traceId, parentSpanId: rootId, name: 'child', startNs: childStart });
      const [first, second] = heldBack === 'root' ? [root, child] : [child, root];
      const partition = partitionOf(heldBack === 'root' ? rootStart : childStart);
      // The first export reads (its placement, its projects) before its COPY waits on the lock; the second runs whole meanwhile.
      const lock = await database().transaction();
      const held = database()
        .query(`LOCK TABLE ${partition} IN SHARE MODE`, { transaction: lock })
        .then(() => send(exportOf([first])));
      try {
        await waitingOn(partition);
        expect((await send(exportOf([second]))).status).toBe(200);
      } finally {
        await lock.rollback();
      }
      expect((await held).status).toBe(200);
      const spans = await rest(api, 'GET', `/org/${owner.orgKey}/ws/${workspaceKey}/traces/${traceId}/spans`, { token: owner.token });
      expect({ heldBack, names: spans.body.data.map((row: { name: string }) => row.name).sort() }).toEqual({ heldBack, names: ['child', 'root'] });
    }
  });

  it('stores the spans once when the same export arrives several times at once', async () => {
    const traceId = hex(16);
    const root = span({ traceId, name: 'root' });
    const body = exportOf([root, ...Array.from({ length: 20 }, () => span({ traceId, parentSpanId: root.spanId }))]);
    const replies = await Promise.all(Array.from({ length: 6 }, () => send(body)));
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect((await stats(traceId)).body.total_spans).toBe(21);
  });

  it('drops logfire pending-span copies and never counts them', async () => {
    const traceId = hex(16);
    const root = span({ traceId, name: 'root' });
    const pending = span({ traceId, parentSpanId: root.spanId, name: 'root', attributes: { 'logfire.span_type': 'pending_span' } });
    expect((await send(exportOf([pending]))).status).toBe(200);
    expect((await send(exportOf([root]))).status).toBe(200);
    expect((await stats(traceId)).body).toMatchObject({ total_spans: 1 });
  });

  it('answers 401 without a key, 404 for another tenant\'s organization and 403 for a reader', async () => {
    const body = exportOf([span({ traceId: hex(16) })]);
    expect((await rest(api, 'POST', `/org/${owner.orgKey}/otel/traces`, { body })).status).toBe(401);
    const foreign = await send(body, { apiKey: outsiderKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body.type).toBe('not_found_error');
    const readerKey = (await createApiKey(api, roles.reader)).key;
    const reader = await send(body, { apiKey: readerKey });
    expect(reader.status).toBe(403);
  });

  it('keeps a workspace-limited key to its workspace: spans naming another workspace\'s project are rejected (partial success)', async () => {
    const created = await rest(api, 'POST', `/org/${owner.orgKey}/ws`, { token: owner.token, body: { key: `ws-${hex(3)}`, name: 'Second' } });
    expect(created.status).toBe(201);
    const second = created.body;
    const limited = (await createApiKey(api, owner, { workspace_id: second.id })).key;
    const inDefault = hex(16);
    const inSecond = hex(16);
    const defaultProject = (await rest(api, 'GET', `${WS}/projects/default`, { token: owner.token })).body;
    // `default` names the key's own workspace's default project; the default workspace's one is named by its id.
    // The refused span is sent twice: its repeat counts as refused with it (the refusal names its trace).
    const outside = span({ traceId: inDefault, attributes: { 'dreadnode.project': defaultProject.id } });
    const res = await send(exportOf([outside, span({ traceId: inSecond, attributes: { 'dreadnode.project': 'default' } }), outside]), { apiKey: limited });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 1, rejected: 2, partialSuccess: { rejectedSpans: 2, errorMessage: expect.stringContaining("outside the API key's workspace") } });
    // The unplaced span went to the key's workspace's default project.
    expect((await rest(api, 'GET', `/org/${owner.orgKey}/ws/${second.key}/traces/${inSecond}`, { token: owner.token })).status).toBe(200);
    expect((await rest(api, 'GET', `${WS}/traces/${inSecond}`, { token: owner.token })).status).toBe(404);
    expect((await rest(api, 'GET', `${WS}/traces/${inDefault}`, { token: owner.token })).status).toBe(404);
  });

  it('places children sent before their root with the root once it arrives, in another workspace too', async () => {
    const workspace = await rest(api, 'POST', `/org/${owner.orgKey}/ws`, { token: owner.token, body: { key: `ws-${hex(3)}`, name: 'Elsewhere' } });
    expect(workspace.status).toBe(201);
    const created = await rest(api, 'POST', `/org/${owner.orgKey}/ws/${workspace.body.key}/projects`, { token: owner.token, body: { key: `p-${hex(3)}`, name: 'Traced' } });
    expect(created.status).toBe(201);
    const traceId = hex(16);
    const rootId = hex(8);
    // The child comes first (an SDK exports a span when it ends): placed by default, waiting for its root.
    await send(exportOf([span({ traceId, parentSpanId: rootId, name: 'child' })]));
    await send(exportOf([span({ traceId, spanId: rootId, name: 'root', attributes: { 'dreadnode.project': created.body.id } })]));
    const list = await rest(api, 'GET', `/org/${owner.orgKey}/ws/${workspace.body.key}/traces`, { token: owner.token, query: { project_id: created.body.id } });
    // Counted in the root's workspace: the child moved there.
    expect(list.body.traces).toEqual([expect.objectContaining({ trace_id: traceId, span_count: 2, project_id: created.body.id })]);
    const spans = await rest(api, 'GET', `/org/${owner.orgKey}/ws/${workspace.body.key}/traces/${traceId}/spans`, { token: owner.token });
    expect(spans.body.data.map((row: { name: string }) => row.name).sort()).toEqual(['child', 'root']);
    // A later export of the same trace's spans moves nothing and stores them where the root is.
    await send(exportOf([span({ traceId, parentSpanId: rootId, name: 'late child' })]));
    const again = await rest(api, 'GET', `/org/${owner.orgKey}/ws/${workspace.body.key}/traces`, { token: owner.token, query: { project_id: created.body.id } });
    expect(again.body.traces).toEqual([expect.objectContaining({ trace_id: traceId, span_count: 3 })]);
  });

  it("moves a study's attack with the study when its root arrives last naming another workspace's project", async () => {
    const workspace = (await rest(api, 'POST', `/org/${owner.orgKey}/ws`, { token: owner.token, body: { key: `ws-${hex(3)}`, name: 'Red team' } })).body;
    const project = (await rest(api, 'POST', `/org/${owner.orgKey}/ws/${workspace.key}/projects`, { token: owner.token, body: { key: `p-${hex(3)}`, name: 'Attacks' } })).body;
    const there = (await rest(api, 'POST', `/org/${owner.orgKey}/ws/${workspace.key}/airt/assessments`, { token: owner.token, body: { name: 'There' } })).body.id;
    const here = (await rest(api, 'POST', `${WS}/airt/assessments`, { token: owner.token, body: { name: 'Here' } })).body.id;
    const attacksOf = async (path: string, assessment: string) => (await rest(api, 'GET', `${path}/airt/assessments/${assessment}/traces/attacks`, { token: owner.token })).body;
    const analyticsOf = async (path: string, assessment: string) => (await rest(api, 'GET', `${path}/airt/assessments/${assessment}/analytics`, { token: owner.token })).body;
    const thereWs = `/org/${owner.orgKey}/ws/${workspace.key}`;
    // Two traces, children first (the SDK exports a span when it ends): a study and its trial, each naming an assessment.
    const sendTrace = async (assessment: string) => {
      const traceId = hex(16);
      const rootId = hex(8);
      const study = span({ traceId, parentSpanId: rootId, name: 'study', attributes: { 'dreadnode.type': 'study', 'dreadnode.airt.assessment_id': assessment } });
      await send(exportOf([study, span({ traceId, parentSpanId: study.spanId, attributes: { 'dreadnode.type': 'trial' } })]));
      return { traceId, rootId };
    };
    const toThere = await sendTrace(there);
    const leavingHere = await sendTrace(here);
    // Placed in the default workspace until their roots arrive: the assessment there has no attack yet; the one here has one.
    expect(await attacksOf(thereWs, there)).toEqual([]);
    expect(await attacksOf(WS, here)).toEqual([expect.objectContaining({ total_trials: 1 })]);
    for (const { traceId, rootId } of [toThere, leavingHere]) {
      expect((await send(exportOf([span({ traceId, spanId: rootId, name: 'root', attributes: { 'dreadnode.project': project.id } })]))).status).toBe(200);
    }
    // The first study moved into its assessment's workspace: its attack is derived there, with its trial.
    expect(await attacksOf(thereWs, there)).toEqual([expect.objectContaining({ total_trials: 1 })]);
    expect(await analyticsOf(thereWs, there)).toMatchObject({ total_attacks: 1, total_trials: 1 });
    const trials = await rest(api, 'GET', `${thereWs}/airt/assessments/${there}/traces/trials`, { token: owner.token });
    expect(trials.body).toHaveLength(1);
    // The second left its assessment's workspace: its attack there is gone, and the analytics say so.
    expect(await attacksOf(WS, here)).toEqual([]);
    expect(await analyticsOf(WS, here)).toMatchObject({ total_attacks: 0, total_trials: 0 });
  });

  it("keeps a trace's 100 most frequent span types in its stats, however many distinct types its spans bring", async () => {
    const traceId = hex(16);
    const root = span({ traceId, name: 'root', attributes: { 'dreadnode.type': 'z-most' } });
    const children = Array.from({ length: 150 }, (_, index) => span({ traceId, parentSpanId: root.spanId, attributes: { 'dreadnode.type': `t${String(index).padStart(3, '0')}` } }));
    const again = span({ traceId, parentSpanId: root.spanId, attributes: { 'dreadnode.type': 'z-most' } });
    expect((await send(exportOf([root, ...children, again]))).body).toEqual({ accepted: 152, rejected: 0 });
    const res = await stats(traceId);
    expect(res.body.total_spans).toBe(152);
    // The most frequent first, then ties by type: z-most (2) and t000…t098.
    expect(Object.keys(res.body.span_types).sort()).toEqual(['z-most', ...children.slice(0, 99).map((_, index) => `t${String(index).padStart(3, '0')}`)].sort());
    expect(res.body.span_types['z-most']).toBe(2);
  });

  it('counts a span the export repeats as its first copy counted: accepted, or rejected with it', async () => {
    const traceId = hex(16);
    const kept = span({ traceId, name: 'kept' });
    const old = span({ traceId, name: 'old', startNs: nowNs() - 400n * 86_400_000_000_000n });
    const res = await send(exportOf([kept, old, kept, old, kept]));
    // Five sent: the kept span three times (stored once), the old one twice (refused each time).
    expect(res.body).toMatchObject({ accepted: 3, rejected: 2, partialSuccess: { rejectedSpans: 2, errorMessage: expect.stringMatching(/^2 span\(s\) rejected: start time outside/) } });
    expect((await rest(api, 'GET', `${WS}/traces/${traceId}/spans`, { token: owner.token })).body.data.map((item: { name: string }) => item.name)).toEqual(['kept']);
  });

  it('rejects spans outside the retention window, ending past it, and malformed ids one by one', async () => {
    const traceId = hex(16);
    const old = span({ traceId, startNs: nowNs() - 400n * 86_400_000_000_000n });
    const badId = { ...span({ traceId }), spanId: 'zz' };
    // The largest end OTLP can say (2^64 − 1 ns, the year 2554), and one a week from now.
    const endless = { ...span({ traceId, name: 'endless' }), endTimeUnixNano: '18446744073709551615' };
    const nextWeek = span({ traceId, name: 'next week', durationMs: 7 * 86_400_000 });
    const good = span({ traceId, name: 'kept', durationMs: 86_400_000 });
    const res = await send(exportOf([old, badId, endless, nextWeek, good]));
    expect(res.body).toMatchObject({ accepted: 1, rejected: 4, partialSuccess: { rejectedSpans: 4, errorMessage: expect.stringContaining('end time in the future') } });
    expect((await rest(api, 'GET', `${WS}/traces/${traceId}/spans`, { token: owner.token })).body.data.map((item: { name: string }) => item.name)).toEqual(['kept']);
  });

  it('answers the protobuf ExportTraceServiceResponse, with partial_success when spans were rejected', async () => {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => path.resolve(__dirname, '../../../src/modules/traces/proto', target);
    root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
    const Request = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
    const Response = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
    const start = nowNs();
    const message = Request.fromObject({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                { traceId: crypto.randomBytes(16), spanId: crypto.randomBytes(8), name: 'ok', startTimeUnixNano: String(start), endTimeUnixNano: String(start + 1000n) },
                { traceId: Buffer.alloc(16), spanId: crypto.randomBytes(8), name: 'zero trace id', startTimeUnixNano: String(start), endTimeUnixNano: String(start + 1000n) },
                // The largest fixed64 end (2^64 − 1 ns): past the window of accepted times.
                { traceId: crypto.randomBytes(16), spanId: crypto.randomBytes(8), name: 'endless', startTimeUnixNano: String(start), endTimeUnixNano: '18446744073709551615' },
              ],
            },
          ],
        },
      ],
    });
    const res = await sendRaw(zlib.gzipSync(Buffer.from(Request.encode(message).finish())), { 'content-type': 'application/x-protobuf', 'content-encoding': 'gzip' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect(Response.toObject(Response.decode(res.body), { longs: Number })).toMatchObject({ partialSuccess: { rejectedSpans: 2, errorMessage: expect.stringContaining('end time in the future') } });

    // A clean export: the empty response, every time; 64-bit integers and microseconds as sent.
    const traceId = crypto.randomBytes(16);
    // 0.999999 s into a second, ending 2.5 ms later in the next: both times keep their microseconds (zeros included).
    const second = Math.floor(Date.now() / 1000);
    const at = BigInt(second) * 1_000_000_000n + 999_999_000n;
    const clean = Request.fromObject({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId,
                  spanId: crypto.randomBytes(8),
                  name: 'ints',
                  startTimeUnixNano: String(at),
                  endTimeUnixNano: String(at + 2_500_000n),
                  attributes: [
                    { key: 'small', value: { intValue: 42 } },
                    { key: 'negative', value: { intValue: -7 } },
                    { key: 'big', value: { intValue: '9007199254740993' } },
                    { key: 'most_negative', value: { intValue: '-9223372036854775808' } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    });
    for (let round = 0; round < 2; round += 1) {
      const ok = await sendRaw(Buffer.from(Request.encode(clean).finish()), { 'content-type': 'application/x-protobuf' });
      expect(ok.status).toBe(200);
      expect(ok.body.length).toBe(0);
    }
    const stored = await rest(api, 'GET', `${WS}/traces/${traceId.toString('hex')}`, { token: owner.token });
    expect(stored.body.attributes).toEqual({ small: 42, negative: -7, big: '9007199254740993', most_negative: '-9223372036854775808' });
    expect(stored.body.duration_ms).toBe(2.5);
    const [times] = await database().query<{ start: string; end: string }>(
      `SELECT extract(epoch FROM start_time)::numeric(20,6)::text AS start, extract(epoch FROM end_time)::numeric(20,6)::text AS end FROM spans WHERE trace_id = $id`,
      { type: QueryTypes.SELECT, bind: { id: traceId.toString('hex') } },
    );
    expect(times).toEqual({ start: `${second}.999999`, end: `${second + 1}.002499` });
  });

  it('refuses a gzip bomb with 413 and the envelope without inflating it whole', async () => {
    const bomb = zlib.gzipSync(Buffer.alloc(200 * 1024 * 1024, 0x20), { level: 9 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const res = await sendRaw(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body.toString())).toMatchObject({ code: 413, type: 'invalid_error', detail: expect.stringContaining('inflated') });
  });

  it('refuses with 413 a small gzip export whose resource, stored with each span, would multiply past OTLP_MAX_INFLATED_BYTES', async () => {
    const resource = { attributes: [0, 1].map((index) => ({ key: `big.${index}`, value: { stringValue: String(index).repeat(60_000) } })) };
    const exportWith = (count: number, traceId: string) => ({ resourceSpans: [{ resource, scopeSpans: [{ spans: Array.from({ length: count }, () => span({ traceId })) }] }] });
    // 120 KB of resource × 100 spans: 12 MB stored from a 2 KB body.
    const hostile = hex(16);
    const body = zlib.gzipSync(Buffer.from(JSON.stringify(exportWith(100, hostile))));
    expect(body.length).toBeLessThan(4096);
    const res = await sendRaw(body, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body.toString())).toMatchObject({ code: 413, detail: expect.stringContaining('OTLP_MAX_INFLATED_BYTES') });
    const [{ stored }] = await database().query<{ stored: number }>('SELECT count(*)::int AS stored FROM spans WHERE trace_id = $trace', { type: QueryTypes.SELECT, bind: { trace: hostile } });
    expect(stored).toBe(0);
    // The same resource over 10 spans (1.2 MB) is stored.
    const fine = hex(16);
    expect((await sendRaw(zlib.gzipSync(Buffer.from(JSON.stringify(exportWith(10, fine)))), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status).toBe(200);
    expect((await stats(fine)).body).toMatchObject({ total_spans: 10 });
  });

  it('stores a span whose attribute is JSON text nested thousands deep, kept as text', async () => {
    const traceId = hex(16);
    const deep = `${'['.repeat(6000)}1${']'.repeat(6000)}`;
    const res = await send(exportOf([span({ traceId, attributes: { deep } })]));
    expect(res.status).toBe(200);
    const spans = await rest(api, 'GET', `${WS}/traces/${traceId}/spans`, { token: owner.token });
    expect(spans.body.data[0].attributes.deep).toBe(deep);
  });

  it('refuses a body over the limit as sent with 413, and says 415 for another encoding or type', async () => {
    const big = Buffer.alloc(9 * 1024 * 1024, 0x20);
    expect((await sendRaw(big, { 'content-type': 'application/json' })).status).toBe(413);
    expect((await sendRaw(Buffer.from('{}'), { 'content-type': 'application/json', 'content-encoding': 'br' })).status).toBe(415);
    expect((await sendRaw(Buffer.from('{}'), { 'content-type': 'text/plain' })).status).toBe(415);
  });

  it('answers 400 with the envelope for a malformed payload (not retried by exporters)', async () => {
    const garbage = await sendRaw(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), { 'content-type': 'application/x-protobuf' });
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body.toString())).toMatchObject({ code: 400, type: 'invalid_error' });
    expect((await send(undefined, { raw: '{"resourceSpans": 7}' })).status).toBe(400);
    expect((await sendRaw(zlib.gzipSync(Buffer.from('{}')).subarray(0, 8), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status).toBe(400);
    const notJson = await send(undefined, { raw: '{"resourceSpans": [' });
    expect(notJson.status).toBe(422);
    expect(notJson.body.errors[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    // JSON that is not UTF-8 (a Latin-1 é in a span's name) is not read with U+FFFD in its place.
    const latin1 = await sendRaw(Buffer.concat([Buffer.from('{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "caf'), Buffer.from([0xe9]), Buffer.from('"}]}]}]}')]), { 'content-type': 'application/json' });
    expect(latin1.status).toBe(422);
    expect(JSON.parse(latin1.body.toString()).errors[0]).toMatchObject({ loc: ['body'], msg: 'JSON decode error: the body is not valid UTF-8', type: 'json_invalid' });
    // protobufjs's own words stay out of the reply: where the bytes broke is said instead.
    const truncated = await sendRaw(Buffer.from([0x79, 0x01, 0x02]), { 'content-type': 'application/x-protobuf' });
    expect(JSON.parse(truncated.body.toString())).toMatchObject({ code: 400, detail: expect.stringMatching(/^Not an OTLP ExportTraceServiceRequest: malformed at byte \d+$/) });
    // A tag or length past 32 bits is malformed, not read as its low 32 bits (2^32 + 2 as 2, 2^63 as 0); so is a span's
    // last field, its name, whose length runs past the end (protobufjs cut it short: the span was refused, the export 200),
    // and a group (an unknown field of wire type 3).
    const nameRunsPast = [0x0a, 0x08, 0x12, 0x06, 0x12, 0x04, 0x2a, 0x10, 0x61, 0x62];
    for (const bytes of [[0x0a, 0x82, 0x80, 0x80, 0x80, 0x10, 0x0a, 0x00], [0x0a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01], nameRunsPast, [0x7b, 0x08, 0x01, 0x7c]]) {
      const overlong = await sendRaw(Buffer.from(bytes), { 'content-type': 'application/x-protobuf' });
      expect([overlong.status, JSON.parse(overlong.body.toString()).detail]).toEqual([400, expect.stringMatching(/^Not an OTLP ExportTraceServiceRequest/)]);
    }
    // Lists where an export's objects belong are not an empty export.
    for (const raw of ['{"resourceSpans": [["x", 1]]}', '{"resourceSpans": [{"scopeSpans": [5]}]}', '{"resourceSpans": [{"scopeSpans": [{"spans": [[]]}]}]}']) {
      const res = await send(undefined, { raw });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 400, type: 'invalid_error', detail: expect.stringContaining('holds a non-object') });
    }
  });

  it('refuses an export nested past 128 levels unparsed (JSON.parse of 8 MiB of brackets takes seconds)', async () => {
    const levels = 4 * 1024 * 1024;
    const res = await sendRaw(zlib.gzipSync(Buffer.from(`${'['.repeat(levels)}${']'.repeat(levels)}`)), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res.status).toBe(422);
    expect(JSON.parse(res.body.toString()).errors[0]).toEqual({ loc: ['body'], msg: 'JSON decode error: nested more than 128 levels deep', type: 'json_invalid' });
  });

  it('refuses with 413, unparsed, a small gzip export whose JSON would build more arrays and objects than OTLP_MAX_INFLATED_BYTES / 8', async () => {
    // 8 MB of `{},` (2.7 million empty objects, about 20 times their text in memory) from a body of a few KB.
    const traceId = hex(16);
    const spanText = JSON.stringify(span({ traceId })).replace(/}$/, ',"x":[');
    const inflated = Buffer.from(`{"resourceSpans":[{"scopeSpans":[{"spans":[${spanText}${'{},'.repeat(2_700_000)}{}]}]}]}]}`);
    const body = zlib.gzipSync(inflated, { level: 9 });
    expect(body.length).toBeLessThan(16 * 1024);
    const res = await sendRaw(body, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body.toString())).toMatchObject({ code: 413, type: 'invalid_error', detail: expect.stringContaining('1048576 arrays and objects (OTLP_MAX_INFLATED_BYTES / 8)') });
    const [{ stored }] = await database().query<{ stored: number }>('SELECT count(*)::int AS stored FROM spans WHERE trace_id = $trace', { type: QueryTypes.SELECT, bind: { trace: traceId } });
    expect(stored).toBe(0);
  });

  it('refuses an export of more spans than OTLP_MAX_SPANS with 413', async () => {
    const traceId = hex(16);
    const spans = Array.from({ length: 5001 }, () => ({ traceId, spanId: hex(8), name: 's', startTimeUnixNano: '1', endTimeUnixNano: '2' }));
    const res = await send(exportOf(spans));
    expect(res.status).toBe(413);
    expect(res.body.detail).toContain('OTLP_MAX_SPANS');
  });

  it('answers 429 with Retry-After once the key spends its request quota (the exporter drops the batch)', async () => {
    const fresh = (await createApiKey(api, owner)).key;
    const before = config();
    overrideConfig({ RATE_LIMIT_PER_MINUTE: 2 });
    try {
      const statuses = [];
      for (let index = 0; index < 3; index += 1) statuses.push((await send(exportOf([span({ traceId: hex(16) })]), { apiKey: fresh })).status);
      expect(statuses).toEqual([200, 200, 429]);
      const limited = await send(exportOf([span({ traceId: hex(16) })]), { apiKey: fresh });
      expect(limited.body).toMatchObject({ code: 429, type: 'usage_limit_exceeded_error' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      overrideConfig({ RATE_LIMIT_PER_MINUTE: before.RATE_LIMIT_PER_MINUTE });
    }
  });

  it('keeps tabs, newlines, backslashes and quotes exactly, and removes NUL characters PostgreSQL cannot hold', async () => {
    const traceId = hex(16);
    const name = 'tab\there\nnew line \\ back "quoted"';
    const res = await send(exportOf([span({ traceId, name, attributes: { text: 'a\\b\t"c"\r\n', nul: 'before\u0000after', json: '{"path": "C:\\\\dir"}' } })]));
    expect(res.body).toEqual({ accepted: 1, rejected: 0 });
    const read = await rest(api, 'GET', `${WS}/traces/${traceId}`, { token: owner.token });
    expect(read.body.name).toBe(name);
    expect(read.body.attributes).toEqual({ text: 'a\\b\t"c"\r\n', nul: 'beforeafter', json: { path: 'C:\\dir' } });
  });

  it('stores NUL characters and lone surrogates anywhere in a span without a 500 (removed or replaced by U+FFFD)', async () => {
    const traceId = hex(16);
    const raw = JSON.stringify(exportOf([{ ...span({ traceId, name: 'bad\ud800name', attributes: { k: 'v\udc00', json: '["a\\ud800", {"\\ud800k": 1}]' } }), status: { code: 2, message: 'a\u0000b' } }]));
    const res = await send(undefined, { raw });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 1 });
    const read = await rest(api, 'GET', `${WS}/traces/${traceId}/spans`, { token: owner.token });
    expect(read.body.data[0]).toMatchObject({ name: 'bad\ufffdname', status_message: 'ab', attributes: { k: 'v\ufffd', json: ['a\ufffd', { '\ufffdk': 1 }] } });
  });

  it('cuts long values without splitting a character made of two UTF-16 units, on the COPY and the retry path alike', async () => {
    const limit = config().OTLP_MAX_ATTRIBUTE_LENGTH;
    // An emoji (two UTF-16 units) across the limit, and across the 255 characters kept of a run id.
    const long = `${'x'.repeat(limit - 1)}🙂`;
    const runId = `${'r'.repeat(254)}🙂`;
    const traceId = hex(16);
    const first = span({ traceId, attributes: { 'llm.output': long } });
    const copied = await send(exportOf([first]));
    expect(copied.status).toBe(200);
    expect(copied.body).toEqual({ accepted: 1, rejected: 0 });
    // A retried export (its first span stored already) goes through a temporary table and INSERT … ON CONFLICT.
    const retried = await send(exportOf([first, span({ traceId, parentSpanId: first.spanId, attributes: { 'dreadnode.run.id': runId, 'llm.output': long } })]));
    expect(retried.status).toBe(200);
    expect(retried.body).toEqual({ accepted: 2, rejected: 0 });
    const read = await rest(api, 'GET', `${WS}/traces/${traceId}/spans`, { token: owner.token });
    expect(read.body.data).toHaveLength(2);
    for (const stored of read.body.data) expect(stored.attributes['llm.output']).toBe('x'.repeat(limit - 1));
    const [row] = await database().query<{ run_id: string }>('SELECT run_id FROM spans WHERE trace_id = $trace AND run_id IS NOT NULL', { bind: { trace: traceId }, type: QueryTypes.SELECT });
    expect(row.run_id).toBe('r'.repeat(254));
  });

  it('answers another method with 405 and Allow', async () => {
    const res = await rest(api, 'GET', `/org/${owner.orgKey}/otel/traces`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it("accepts the SDK client's {traces: [...]} form", async () => {
    const traceId = hex(16);
    const res = await send({ traces: [exportOf([span({ traceId })]), exportOf([span({ traceId })])] });
    expect(res.body).toEqual({ accepted: 2, rejected: 0 });
    // Both forms at once: 400, nothing stored (the top-level spans were neither stored nor counted).
    const both = await send({ ...exportOf([span({ traceId: hex(16) })]), traces: [exportOf([span({ traceId: hex(16) })])] });
    expect([both.status, both.body.type, both.body.detail]).toEqual([400, 'invalid_error', 'send either resourceSpans (an OTLP export) or traces (a list of them), not both']);
  });
});

describe('red-team spans arriving in separate exports at once', () => {
  it('counts every trial whether it or its study commits first (exports of one trace take turns)', async () => {
    const created = await rest(api, 'POST', `${WS}/airt/assessments`, { token: owner.token, body: { name: 'Racing exports' } });
    const assessmentId = created.body.id;
    const studies = 12;
    await Promise.all(
      Array.from({ length: studies }, async (_, index) => {
        const traceId = hex(16);
        const study = span({ traceId, name: `study ${index}`, attributes: { 'dreadnode.type': 'study', 'dreadnode.airt.assessment_id': assessmentId, 'dreadnode.airt.attack_name': `attack-${index}` } });
        const trials = [0, 1].map(() => span({ traceId, parentSpanId: study.spanId, attributes: { 'dreadnode.type': 'trial', 'dreadnode.airt.judge_score': 0.5 } }));
        // The study and each trial in an export of their own, all sent at once.
        const replies = await Promise.all([send(exportOf([study])), ...trials.map((trial) => send(exportOf([trial])))]);
        expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200]);
      }),
    );
    const attacks = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/traces/attacks`, { token: owner.token });
    expect(attacks.body).toHaveLength(studies);
    expect(attacks.body.map((attack: { total_trials: number }) => attack.total_trials)).toEqual(Array(studies).fill(2));
    const analytics = await rest(api, 'GET', `${WS}/airt/assessments/${assessmentId}/analytics`, { token: owner.token });
    expect(analytics.body).toMatchObject({ total_attacks: studies, total_trials: studies * 2 });
  });
});

describe('red-team spans from hostile or repeated exports', () => {
  it('keeps one attack per study span stored twice, reads null transforms as absent, and never counts another workspace\'s trials', async () => {
    const assessment = (await rest(api, 'POST', `${WS}/airt/assessments`, { token: owner.token, body: { name: 'Hostile spans' } })).body.id;
    const traceId = hex(16);
    const studyId = hex(8);
    const study = (startNs: bigint) =>
      span({ traceId, spanId: studyId, startNs, attributes: { 'dreadnode.type': 'study', 'dreadnode.airt.assessment_id': assessment, 'dreadnode.airt.transforms': '["b64", null]' } });
    await send(exportOf([study(nowNs())]));
    await send(exportOf([study(nowNs() + 1n)]));
    await send(exportOf([span({ traceId, parentSpanId: studyId, attributes: { 'dreadnode.type': 'trial', 'dreadnode.airt.transforms': '[null, "rot13"]' } })]));
    // A key limited to another workspace sends a trial under the same study: it stays in its workspace and counts nowhere here.
    const created = await rest(api, 'POST', `/org/${owner.orgKey}/ws`, { token: owner.token, body: { key: `ws-${hex(3)}`, name: 'Elsewhere' } });
    const limited = (await createApiKey(api, owner, { workspace_id: created.body.id })).key;
    expect((await send(exportOf([span({ traceId, parentSpanId: studyId, attributes: { 'dreadnode.type': 'trial' } })]), { apiKey: limited })).body.accepted).toBe(1);

    const attacks = await rest(api, 'GET', `${WS}/airt/assessments/${assessment}/traces/attacks`, { token: owner.token });
    expect(attacks.body).toHaveLength(1);
    expect(attacks.body[0]).toMatchObject({ transforms: ['b64'], total_trials: 1 });
    const trials = await rest(api, 'GET', `${WS}/airt/assessments/${assessment}/traces/trials`, { token: owner.token });
    expect(trials.status).toBe(200);
    expect(trials.body.map((trial: { transforms: string[] }) => trial.transforms)).toEqual([['rot13']]);
  });

  it('counts a trial stored twice under two start times once, with its newest copy\'s status, in every read (attacks, analytics, statistics, trials)', async () => {
    const assessment = (await rest(api, 'POST', `${WS}/airt/assessments`, { token: owner.token, body: { name: 'Trial twice' } })).body.id;
    const traceId = hex(16);
    const studyId = hex(8);
    const trialId = hex(8);
    const start = nowNs();
    const study = span({ traceId, spanId: studyId, startNs: start, attributes: { 'dreadnode.type': 'study', 'dreadnode.airt.assessment_id': assessment, 'dreadnode.airt.execution_time_s': 4 } });
    const trial = (offsetMs: number, status: string) =>
      span({ traceId, spanId: trialId, parentSpanId: studyId, startNs: start + BigInt(offsetMs) * 1_000_000n, attributes: { 'dreadnode.type': 'trial', 'dreadnode.airt.trial_status': status } });
    expect((await send(exportOf([study, trial(100, 'running')]))).body.accepted).toBe(2);
    expect((await send(exportOf([trial(101, 'finished')]))).body.accepted).toBe(1);

    const attacks = await rest(api, 'GET', `${WS}/airt/assessments/${assessment}/traces/attacks`, { token: owner.token });
    expect(attacks.body[0]).toMatchObject({ total_trials: 1, finished_trials: 1 });
    expect((await rest(api, 'GET', `${WS}/airt/assessments/${assessment}/analytics`, { token: owner.token })).body.total_trials).toBe(1);
    const stats = await rest(api, 'GET', `${WS}/airt/assessments/${assessment}/traces`, { token: owner.token });
    expect(stats.body).toMatchObject({ trial_spans: 1, avg_trial_time_ms: 4000 });
    expect((await rest(api, 'GET', `${WS}/airt/assessments/${assessment}/traces/trials`, { token: owner.token })).body).toHaveLength(1);
  });

  it('lists under an assessment only the traces rooted in its workspace (GraphQL), whatever the key', async () => {
    const { project, workspaceKey } = await otherProject();
    const assessment = (await rest(api, 'POST', `/org/${owner.orgKey}/ws/${workspaceKey}/airt/assessments`, { token: owner.token, body: { name: 'Elsewhere' } })).body.id;
    const traceId = hex(16);
    const root = span({ traceId });
    // The root stays in the default workspace; its study names a project of the assessment's workspace and goes there.
    const study = span({ traceId, parentSpanId: root.spanId, attributes: { 'dreadnode.type': 'study', 'dreadnode.project': project.key, 'dreadnode.airt.assessment_id': assessment } });
    expect((await send(exportOf([root, study]))).body.accepted).toBe(2);
    const query = 'query($org: String!, $ws: String!, $id: UUID!) { assessment(org: $org, workspace: $ws, assessment_id: $id) { traces(limit: 5) { trace_id } } }';
    const read = await gql(api, query, { org: owner.orgKey, ws: workspaceKey, id: assessment }, owner.token);
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.assessment.traces).toEqual([]);
    // A root of the assessment's workspace is listed.
    const ownTrace = hex(16);
    const ownRoot = span({ traceId: ownTrace, attributes: { 'dreadnode.type': 'study', 'dreadnode.project': project.key, 'dreadnode.airt.assessment_id': assessment } });
    await send(exportOf([ownRoot]));
    expect((await gql(api, query, { org: owner.orgKey, ws: workspaceKey, id: assessment }, owner.token)).body.data.assessment.traces).toEqual([{ trace_id: ownTrace }]);
  });

  it('reads numbers past double precision as the bounds of the attack ingest, never a 500 (1e999, 1e-999, 64 digits)', async () => {
    const assessment = (await rest(api, 'POST', `${WS}/airt/assessments`, { token: owner.token, body: { name: 'Huge numbers' } })).body.id;
    const traceId = hex(16);
    const study = span({
      traceId,
      attributes: {
        'dreadnode.type': 'study',
        'dreadnode.airt.assessment_id': assessment,
        'dreadnode.airt.best_score': '1e999',
        'dreadnode.airt.asr': '-1e999',
        'dreadnode.airt.execution_time_s': '1e-999',
        'dreadnode.airt.is_jailbreak': 1,
      },
    });
    const start = nowNs();
    const trials = ['1e999', `-${'9'.repeat(64)}`, '9'.repeat(65), '1e-999', '0.25'].map((score, index) =>
      span({ traceId, parentSpanId: study.spanId, startNs: start + BigInt(index) * 1000n, attributes: { 'dreadnode.type': 'trial', 'dreadnode.airt.judge_score': score, 'dreadnode.airt.execution_time_ms': '1e999' } }),
    );
    // Twice: the second study export re-derives its attack and sums the analytics again.
    expect((await send(exportOf([study, ...trials]))).status).toBe(200);
    expect((await send(exportOf([{ ...study, spanId: hex(8) }]))).status).toBe(200);

    const attacks = await rest(api, 'GET', `${WS}/airt/assessments/${assessment}/traces/attacks`, { token: owner.token });
    expect(attacks.status).toBe(200);
    expect(attacks.body[0]).toMatchObject({ best_score: 1e9, asr: 0, execution_time_s: 0, is_jailbreak: true, total_trials: 5 });
    const analytics = await rest(api, 'GET', `${WS}/airt/assessments/${assessment}/analytics`, { token: owner.token });
    expect(analytics.status).toBe(200);
    const read = await rest(api, 'GET', `${WS}/airt/assessments/${assessment}/traces/trials`, { token: owner.token });
    expect(read.status).toBe(200);
    // 64 digits make a number (clamped); 65 do not (absent: 0).
    expect(read.body.map((trial: { score: number; execution_time_ms: number }) => [trial.score, trial.execution_time_ms])).toEqual([
      [1e9, 1e12],
      [-1e9, 1e12],
      [0, 1e12],
      [0, 1e12],
      [0.25, 1e12],
    ]);
  });
});

describe('trace reads', () => {
  let traceId: string;
  beforeAll(async () => {
    traceId = hex(16);
    const root = span({ traceId, name: 'root', durationMs: 100, attributes: { 'dreadnode.type': 'task', 'dreadnode.airt.transforms': '["a","b"]' } });
    const children = ['b-child', 'a-child', 'c-child'].map((name, index) => span({ traceId, parentSpanId: root.spanId, name, durationMs: 10 * (index + 1), error: name === 'c-child', attributes: { 'dreadnode.type': 'tool' } }));
    await send(exportOf([root, ...children]));
  });

  it('summarises a trace by its root, with the root\'s attributes decoded', async () => {
    const res = await rest(api, 'GET', `${WS}/traces/${traceId}`, { token: owner.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ trace_id: traceId, name: 'root', span_type: 'task', span_count: 4, error_count: 1, status: 'error', duration_ms: 100 });
    expect(res.body.attributes['dreadnode.airt.transforms']).toEqual(['a', 'b']);
  });

  it('orders and windows spans, with the column meta', async () => {
    const byDuration = await rest(api, 'GET', `${WS}/traces/${traceId}/spans`, { token: owner.token, query: { order_by: 'Duration', order_dir: 'DESC', limit: 2, offset: 1 } });
    expect(byDuration.body.data.map((item: { name: string }) => item.name)).toEqual(['c-child', 'a-child']);
    expect(byDuration.body.rows).toBe(2);
    expect(byDuration.body.meta.map((column: { name: string }) => column.name)).toContain('attributes');
  });

  it('filters the list by root span type and checks bounds (422 with loc)', async () => {
    const tasks = await rest(api, 'GET', `${WS}/traces`, { token: owner.token, query: { span_type: 'task', page_size: 100 } });
    expect(tasks.body.traces.every((item: { span_type: string }) => item.span_type === 'task')).toBe(true);
    const bad = await rest(api, 'GET', `${WS}/traces`, { token: owner.token, query: { page_size: 101 } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].loc).toEqual(['query', 'page_size']);
    const spans = await rest(api, 'GET', `${WS}/traces/${traceId}/spans`, { token: owner.token, query: { limit: 1001 } });
    expect(spans.status).toBe(422);
    expect(spans.body.errors[0].loc).toEqual(['query', 'limit']);
  });

  it('pages the trace list deep counting the spans of the page only, not of every root the page skips', async () => {
    const [{ workspace_id }] = await database().query<{ workspace_id: string }>('SELECT workspace_id FROM spans WHERE trace_id = $trace LIMIT 1', { bind: { trace: traceId }, type: QueryTypes.SELECT });
    for (let index = 0; index < 6; index += 1) expect((await send(exportOf([span({ traceId: hex(16), name: `deep ${index}` })]))).status).toBe(200);
    const sql = traceSummariesSql('s.workspace_id = $workspace_id', NEWEST_FIRST, 'LIMIT 2 OFFSET 4');
    const [{ 'QUERY PLAN': [plan] }] = await database().query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, { bind: { workspace_id }, type: QueryTypes.SELECT });
    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
    // The lateral count (an Aggregate) runs once per root of the page: 2, not the 6 the OFFSET reads past.
    const counts = nodes(plan.Plan).filter((node) => node['Node Type'] === 'Aggregate');
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.every((node) => node['Actual Loops'] <= 2)).toBe(true);
    const page = await rest(api, 'GET', `${WS}/traces`, { token: owner.token, query: { page_size: 2, page: 3 } });
    const whole = await rest(api, 'GET', `${WS}/traces`, { token: owner.token, query: { page_size: 6 } });
    expect(page.body.traces).toEqual(whole.body.traces.slice(4, 6));
  });

  it("answers 404 for another tenant and for a trace the workspace does not hold", async () => {
    const other = await createOrgWithRoles();
    for (const suffix of ['', '/spans', '/stats']) {
      expect((await rest(api, 'GET', `/org/${other.orgKey}/ws/default/traces/${traceId}${suffix}`, { token: other.owner.token })).status).toBe(404);
      expect((await rest(api, 'GET', `${WS}/traces/${traceId}${suffix}`, { token: outsider.token })).status).toBe(404);
      expect((await rest(api, 'GET', `${WS}/traces/${hex(16)}${suffix}`, { token: owner.token })).status).toBe(404);
    }
    expect((await rest(api, 'GET', `/org/${other.orgKey}/ws/default/traces`, { token: other.owner.token })).body.total).toBe(0);
  });

  it('navigates workspace → traces → spans and stats in GraphQL in as many statements for 5 traces as for 1', async () => {
    const query = `query($org: String!) { workspace(org: $org, workspace: "default") { traces(limit: LIMIT) { trace_id span_count stats { total_spans span_types } spans(limit: 10) { name span_type } } } }`;
    const run = (limit: number) => countStatements(() => gql(api, query.replace('LIMIT', String(limit)), { org: owner.orgKey }, owner.token));
    const one = await run(1);
    const five = await run(5);
    expect(one.result.body.errors).toBeUndefined();
    expect(five.result.body.data.workspace.traces.length).toBe(5);
    const found = five.result.body.data.workspace.traces.find((item: { trace_id: string }) => item.trace_id === traceId) ?? one.result.body.data.workspace.traces[0];
    expect(found.spans.length).toBe(found.span_count > 10 ? 10 : found.span_count);
    expect(five.statements.length).toBe(one.statements.length);
  });
});

describe('evaluation traces', () => {
  it('reads the traces of an evaluation by item from spans whose root names it', async () => {
    await publishVerifiedTask(api, owner, { name: 'traced-task' });
    const evaluation = await createEvaluation(api, owner, { task_names: ['traced-task'] });
    const [item] = await items(api, owner, evaluation.id);
    const traceId = hex(16);
    const root = span({ traceId, name: 'eval', durationMs: 50, attributes: { 'dreadnode.type': 'evaluation', 'dreadnode.evaluation.id': evaluation.id, 'dreadnode.evaluation.item_id': item.id } });
    await send(exportOf([root, span({ traceId, parentSpanId: root.spanId, error: true, attributes: { 'dreadnode.type': 'tool' } })]));

    const statsRes = await rest(api, 'GET', `${WS}/evaluation/${evaluation.id}/traces`, { token: owner.token });
    expect(statsRes.status).toBe(200);
    expect(statsRes.body).toMatchObject({ total_spans: 2, error_spans: 1, span_types: { evaluation: 1, tool: 1 } });
    // Roots naming the evaluation with an id that is none of its items (another evaluation's item, a made-up one) count
    // in its statistics but are no item of it.
    const another = await createEvaluation(api, owner, { task_names: ['traced-task'] });
    const [foreignItem] = await items(api, owner, another.id);
    for (const itemId of [foreignItem.id, '00000000-0000-4000-8000-000000000001']) {
      await send(exportOf([span({ traceId: hex(16), attributes: { 'dreadnode.evaluation.id': evaluation.id, 'dreadnode.evaluation.item_id': itemId } })]));
    }
    const byItem = await rest(api, 'GET', `${WS}/evaluation/${evaluation.id}/traces/items`, { token: owner.token });
    expect(byItem.body).toEqual({ items: [{ item_id: item.id, task_name: 'traced-task', trace_ids: [traceId], span_count: 2, error_count: 1, duration_ms: 50 }] });
    const other = await createOrgWithRoles();
    expect((await rest(api, 'GET', `/org/${other.orgKey}/ws/default/evaluation/${evaluation.id}/traces`, { token: other.owner.token })).status).toBe(404);

    // Spans naming the evaluation from elsewhere belong to it nowhere: another workspace of the organization, another organization the viewer is in.
    const elsewhere = (await rest(api, 'POST', `/org/${owner.orgKey}/ws`, { token: owner.token, body: { key: `ws-${hex(3)}`, name: 'Elsewhere' } })).body;
    const elsewhereProject = (await rest(api, 'POST', `/org/${owner.orgKey}/ws/${elsewhere.key}/projects`, { token: owner.token, body: { key: `p-${hex(3)}`, name: 'Elsewhere' } })).body;
    await send(exportOf([span({ traceId: hex(16), attributes: { 'dreadnode.evaluation.id': evaluation.id, 'dreadnode.project': elsewhereProject.id } })]));
    await addMember(other.orgKey, owner, 'owner');
    const otherKey = (await createApiKey(api, other.owner)).key;
    await send(exportOf([span({ traceId: hex(16), attributes: { 'dreadnode.evaluation.id': evaluation.id } })]), { apiKey: otherKey, org: other.orgKey });
    expect((await rest(api, 'GET', `${WS}/evaluation/${evaluation.id}/traces`, { token: owner.token })).body).toMatchObject({ total_spans: 4 });

    const graph = await gql(api, 'query($org: String!, $id: String!) { evaluation(org: $org, workspace: "default", id: $id) { traces(limit: 5) { trace_id span_count } } }', { org: owner.orgKey, id: evaluation.id }, owner.token);
    expect(graph.body.errors).toBeUndefined();
    // The evaluation's traces, those of roots naming no item of it included (newest first).
    expect(graph.body.data.evaluation.traces).toHaveLength(3);
    expect(graph.body.data.evaluation.traces).toContainEqual({ trace_id: traceId, span_count: 2 });
  });

  it('counts each span of an evaluation\'s trace once though its root was stored twice (two start times), in the statistics and by item', async () => {
    await publishVerifiedTask(api, owner, { name: 'twice-rooted' });
    const evaluation = await createEvaluation(api, owner, { task_names: ['twice-rooted'] });
    const [item] = await items(api, owner, evaluation.id);
    const traceId = hex(16);
    const start = nowNs();
    const attributes = { 'dreadnode.evaluation.id': evaluation.id, 'dreadnode.evaluation.item_id': item.id, 'dreadnode.type': 'task' };
    const root = (offsetMs: number) => span({ traceId, spanId: 'ab'.repeat(8), startNs: start + BigInt(offsetMs) * 1_000_000n, attributes });
    await send(exportOf([root(0), span({ traceId, parentSpanId: 'ab'.repeat(8), error: true }), span({ traceId, parentSpanId: 'ab'.repeat(8) })]));
    await send(exportOf([root(1)]));
    const stats = await rest(api, 'GET', `${WS}/evaluation/${evaluation.id}/traces`, { token: owner.token });
    // The trace holds four rows (the root twice): each counted once, not once per root.
    expect(stats.body).toMatchObject({ total_spans: 4, error_spans: 1 });
    const byItem = await rest(api, 'GET', `${WS}/evaluation/${evaluation.id}/traces/items`, { token: owner.token });
    expect(byItem.body.items).toEqual([expect.objectContaining({ item_id: item.id, trace_ids: [traceId], span_count: 4, error_count: 1 })]);
  });

  it('pages the traces by item counting the spans of the page only, not of every item the page skips', async () => {
    const names = ['paged-a', 'paged-b', 'paged-c'];
    for (const name of names) await publishVerifiedTask(api, owner, { name });
    const evaluation = await createEvaluation(api, owner, { task_names: names });
    const all = await items(api, owner, evaluation.id);
    for (const [index, item] of all.entries()) {
      const traceId = hex(16);
      const root = span({ traceId, name: `item ${index}`, attributes: { 'dreadnode.evaluation.id': evaluation.id, 'dreadnode.evaluation.item_id': item.id } });
      await send(exportOf([root, ...Array.from({ length: index + 1 }, () => span({ traceId, parentSpanId: root.spanId }))]));
    }
    const whole = await rest(api, 'GET', `${WS}/evaluation/${evaluation.id}/traces/items`, { token: owner.token });
    // Item i's trace has i + 2 spans (items created together may share their creation time: ordered then by id).
    const spansOf = new Map(all.map((item: { id: string }, index: number) => [item.id, index + 2]));
    expect(whole.body.items.map((item: { item_id: string; span_count: number }) => item.span_count - spansOf.get(item.item_id)!)).toEqual([0, 0, 0]);
    const page = await rest(api, 'GET', `${WS}/evaluation/${evaluation.id}/traces/items`, { token: owner.token, query: { limit: 1, offset: 2 } });
    expect(page.body.items).toEqual(whole.body.items.slice(2));

    const [{ workspace_id }] = await database().query<{ workspace_id: string }>('SELECT workspace_id FROM spans WHERE evaluation_id = $id LIMIT 1', { bind: { id: evaluation.id }, type: QueryTypes.SELECT });
    const [{ 'QUERY PLAN': [plan] }] = await database().query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${evaluationTraceItemsSql}`, {
      bind: { workspace_id, evaluation_id: evaluation.id, limit: 1, offset: 2 },
      type: QueryTypes.SELECT,
    });
    const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
    // The lateral count (an Aggregate over spans x) runs once, for the page's one trace: not for the two skipped.
    const counts = nodes(plan.Plan).filter((node) => node['Node Type'] === 'Aggregate');
    expect(counts.length).toBeGreaterThan(0);
    expect(counts.every((node) => node['Actual Loops'] <= 1)).toBe(true);
  });
});
