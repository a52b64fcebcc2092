import { config } from '../../config/config';
import { isUuid } from '../../core/scalars';
import type { AppContext } from '../../core/context';
import { InvalidError, PayloadTooLargeError } from '../../core/errors';
import { requireScope, resolveOrg, type OrgScope } from '../../core/tenancy/tenant-scope';
import { database } from '../../db/database';
import { copyIn, plainQuery } from '../../db/hot';
import type { Transaction } from 'sequelize';
import { deriveAttacksFromSpans, type StoredSpan } from '../assessments/trace-attacks';
import { attribute, cutText, type ExportLimits, type ExportReading, type Rejection, type SpanRecord } from './otlp';
import { acceptedWindow, ensureSpanPartitions } from './span-partitions';
import { COPY_SPANS_SQL, EXPORT_PROJECTS_SQL, INSERT_SPANS_SQL, LOCK_TRACES_SQL, REHOME_SQL, STORED_ROOTS_SQL, UNSETTLED_TRACES_SQL } from './traces.sql';

/**
 * OTLP span ingest (decisions §15): an export's spans, each placed in a
 * project and its workspace, stored in one transaction (one COPY), then the
 * attacks of red-team assessments derived from the `study` and `trial` spans
 * that arrived.
 */
export const TRACES_WRITE = 'traces:write' as const;

const uuidOr = (value: unknown): string | null => (isUuid(value) ? value.toLowerCase() : null);
const textOr = (value: unknown): string | null => (typeof value === 'string' && value ? cutText(value, 255) : typeof value === 'number' ? String(value) : null);

export interface IngestResult {
  accepted: number;
  rejected: number;
  message: string;
}

interface ProjectRow {
  id: string;
  key: string;
  workspace_id: string;
  is_default: boolean;
  workspace_is_default: boolean;
}

interface Placement {
  project_id: string;
  workspace_id: string;
  project_inferred: boolean;
}

/** The caller may write spans to the organization (checked before the body is read). */
export async function authorizeIngest(ctx: AppContext, orgKey: string): Promise<OrgScope> {
  const scope = await resolveOrg(ctx, orgKey);
  requireScope(scope, TRACES_WRITE);
  return scope;
}

/** The project reference a span names: its own `dreadnode.project`, else its resource's. */
function projectRef(span: SpanRecord): string | null {
  return textOr(attribute(span.attributes, 'dreadnode.project')) ?? textOr(attribute(span.resource, 'dreadnode.project'));
}

/** The limits an export is read within (OTLP_MAX_*). */
export function exportLimits(): ExportLimits {
  const settings = config();
  return { maxSpans: settings.OTLP_MAX_SPANS, maxAttributes: settings.OTLP_MAX_ATTRIBUTES, maxAttributeLength: settings.OTLP_MAX_ATTRIBUTE_LENGTH };
}

/**
 * Stores the spans of an export (`read` runs either encoding's reader,
 * within exportLimits()). The export's span records are let go once its
 * COPY text is written: while PostgreSQL runs the COPY (most of an export's
 * time) the worker holds that text and the export's body, both outside the
 * JavaScript heap, which is what keeps collecting the garbage of exports in
 * flight cheap (an export with red-team spans keeps its rows for the
 * attacks they derive). The rare export whose spans were partly stored
 * already is read and placed again for its INSERT.
 */
export async function ingestExport(scope: OrgScope, read: () => ExportReading): Promise<IngestResult> {
  let batch = await placeExport(scope, read(), 'copy');
  try {
    await storeBatch(scope, batch);
  } catch (error) {
    // Some spans were stored already (a retried export, or two exports of the same spans at once).
    if (!isUniqueViolation(error)) throw error;
    batch = await placeExport(scope, read(), 'insert');
    await storeBatch(scope, batch);
  }
  await settleTraces(scope, batch.settling);
  return batch.result;
}

/**
 * How an export's rows are written: an export that holds no red-team span is
 * one statement, the COPY of `data`, its own transaction; otherwise (or for
 * the INSERT of an export stored before) its rows in one transaction with
 * the attacks they derive.
 */
type Store = { data: Buffer } | { rows: SpanRow[]; redTeamTraces: string[]; resources: ResourceTexts; how: 'copy' | 'insert' };

/** An export read and placed: what to store (null when nothing is), the traces to settle after the commit, and the reply. */
interface Batch {
  store: Store | null;
  settling: string[];
  result: IngestResult;
}

/** The spans an export's reading found, each placed in its project, as what storeBatch writes. */
async function placeExport(scope: OrgScope, reading: ExportReading, how: 'copy' | 'insert'): Promise<Batch> {
  const settings = config();
  const { spans: found, rejected, pendingCopies } = reading;
  if (reading.overLimit) {
    throw new PayloadTooLargeError(`An export holds at most ${settings.OTLP_MAX_SPANS} spans (OTLP_MAX_SPANS); send smaller batches`);
  }
  const { oldestUs, newestUs } = acceptedWindow();
  const spans: SpanRecord[] = [];
  const seen = new SpanKeys();
  for (const span of found) {
    // The same span twice in one export is stored once.
    if (!seen.add(span.trace_id, span.span_id)) continue;
    if (span.start_us < oldestUs || span.start_us >= newestUs) {
      rejected.push({ span_id: span.span_id, reason: `start time outside the ${settings.TRACE_RETENTION_DAYS}-day retention window` });
    } else {
      spans.push(span);
    }
  }
  const resources = resourceTexts(spans);
  const { placements, home } = await placeSpans(scope, spans, rejected);
  const rows = spans.flatMap((span, index) => (placements[index] ? [rowOf(span, placements[index])] : []));
  const result = { accepted: rows.length + pendingCopies, rejected: rejected.length, message: rejectionMessage(rejected) };
  if (!rows.length) return { store: null, settling: [], result };
  // The traces of the export's red-team spans (study, trial): locked, and their attacks derived.
  const redTeamTraces = [...new Set(rows.filter((row) => row.span_type === 'study' || row.span_type === 'trial').map((row) => row.trace_id))];
  const store: Store = how === 'copy' && !redTeamTraces.length ? { data: copyData(scope.org.id, rows, resources) } : { rows, redTeamTraces, resources, how };
  return { store, settling: settlingTraces(scope, rows, home), result };
}

async function storeBatch(scope: OrgScope, { store }: Batch): Promise<void> {
  if (!store) return;
  await ensureSpanPartitions();
  if ('data' in store) await copySpans(store.data);
  else await database().transaction((transaction) => storeRows(scope, store, transaction));
}

/**
 * The (trace, span) pairs of an export, by span id (random 64 bits, so
 * almost never shared): a pair is made into one string only for a span id
 * that spans of two traces share.
 */
class SpanKeys {
  private readonly traceOf = new Map<string, string>();
  private readonly shared = new Set<string>();

  /** False when the pair was added before. */
  add(traceId: string, spanId: string): boolean {
    const first = this.traceOf.get(spanId);
    if (first === undefined) {
      this.traceOf.set(spanId, traceId);
      return true;
    }
    if (first === traceId) return false;
    const pair = `${traceId}/${spanId}`;
    if (this.shared.has(pair)) return false;
    this.shared.add(pair);
    return true;
  }
}

type SpanRow = ReturnType<typeof rowOf>;

/**
 * One transaction: the spans written by COPY (or, when some were stored
 * already, by INSERT … ON CONFLICT DO NOTHING, which skips them), attacks
 * derived from what is new.
 */
async function storeRows(scope: OrgScope, { rows, redTeamTraces, resources, how }: Extract<Store, { rows: SpanRow[] }>, transaction: Transaction): Promise<void> {
  // Exports of one red-team trace take turns (a lock per trace, held to commit): a trial and its study arriving
  // in two exports at once would otherwise each miss the other's uncommitted span, and the trial would count nowhere.
  if (redTeamTraces.length) await plainQuery(LOCK_TRACES_SQL, { organization_id: scope.org.id, trace_ids: redTeamTraces }, { transaction });
  let stored: StoredSpan[];
  if (how === 'copy') {
    // Optimistic: an exporter retries only after a failure, so the spans are almost always new. One already
    // stored makes the COPY fail on its key, and the caller runs the export again through INSERT … ON CONFLICT.
    await copySpans(copyData(scope.org.id, rows, resources), transaction);
    stored = rows;
  } else {
    stored = await plainQuery<StoredSpan>(INSERT_SPANS_SQL, { organization_id: scope.org.id, rows: insertRows(scope.org.id, rows, resources) }, { transaction });
  }
  await deriveAttacksFromSpans(scope.org.id, stored, transaction);
}

/**
 * The traces an export may have to settle once committed: those where it
 * placed children by default to wait for their root, and those of its roots
 * placed elsewhere than where such children wait (`home`, the default
 * project of the default workspace; a root placed there leaves them in the
 * right place). A workspace-limited key moves only spans of its own
 * workspace, so its roots settle nothing outside the default workspace.
 */
function settlingTraces(scope: OrgScope, rows: SpanRow[], home: Placement): string[] {
  const keyWorkspace = scope.viewer.apiKey?.workspace_id ?? null;
  const movesHome = !keyWorkspace || keyWorkspace === home.workspace_id;
  const traces = new Set<string>();
  for (const row of rows) {
    if (row.project_inferred || (movesHome && row.parent_span_id === null && row.project_id !== home.project_id)) traces.add(row.trace_id);
  }
  return [...traces];
}

/**
 * Children stored before their root, placed by default, follow it once both
 * are stored, and their attacks with them. Done after the export's commit:
 * of an export holding a root and one holding its children running at once,
 * each read the other's uncommitted spans as absent, and the one that
 * commits last finds both here. Usually one statement that finds nothing;
 * else one transaction under the traces' locks (the moved children may be a
 * study and its trials).
 */
async function settleTraces(scope: OrgScope, traceIds: string[]): Promise<void> {
  if (!traceIds.length) return;
  const organizationId = scope.org.id;
  const unsettled = await plainQuery<{ trace_id: string }>(UNSETTLED_TRACES_SQL, { organization_id: organizationId, trace_ids: traceIds }, { prepare: 'spans-unsettled' });
  if (!unsettled.length) return;
  const ids = unsettled.map((row) => row.trace_id);
  await database().transaction(async (transaction) => {
    await plainQuery(LOCK_TRACES_SQL, { organization_id: organizationId, trace_ids: ids }, { transaction });
    // A workspace-limited key moves only spans of its own workspace; the red-team spans moved come back.
    const moved = await plainQuery<StoredSpan>(
      REHOME_SQL,
      { organization_id: organizationId, trace_ids: ids, key_workspace_id: scope.viewer.apiKey?.workspace_id ?? null },
      { transaction, prepare: 'spans-rehome' },
    );
    await deriveAttacksFromSpans(organizationId, [], transaction, moved);
  });
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23505';
}

/** Microseconds since the epoch as timestamptz text (microsecond precision); spans of one export share their second, formatted once. */
let secondText = '';
let secondOf = NaN;
function timestampText(us: number): string {
  const second = Math.floor(us / 1_000_000);
  if (second !== secondOf) {
    secondOf = second;
    secondText = new Date(second * 1000).toISOString().slice(0, 19);
  }
  return `${secondText}.${String(us - second * 1_000_000).padStart(6, '0')}Z`;
}

/** Text in COPY's text format: backslash, tab, newline and carriage return escaped. */
function copyEscape(text: string): string {
  return /[\\\t\n\r]/.test(text) ? text.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r') : text;
}
/** JSON text in COPY's text format: JSON.stringify escapes every control character, so only its backslashes need doubling. */
function copyJson(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('\\') ? json.replace(/\\/g, '\\\\') : json;
}
const copyNullable = (value: string | null) => (value === null ? '\\N' : copyEscape(value));
const copyId = (value: string | null) => value ?? '\\N';

/**
 * Each resource of the spans as COPY text, serialised once however many
 * spans share it. Each span stores its resource, so an export whose small
 * body repeats a large resource over many spans would multiply it: their
 * sum is held to OTLP_MAX_INFLATED_BYTES (413 past it).
 */
type ResourceTexts = Map<object, { text: string; bytes: number }>;
function resourceTexts(spans: SpanRecord[]): ResourceTexts {
  const limit = config().OTLP_MAX_INFLATED_BYTES;
  const texts: ResourceTexts = new Map();
  let stored = 0;
  for (const span of spans) {
    let resource = texts.get(span.resource);
    if (!resource) {
      const text = copyJson(span.resource);
      texts.set(span.resource, (resource = { text, bytes: Buffer.byteLength(text) }));
    }
    stored += resource.bytes;
    if (stored > limit) {
      throw new PayloadTooLargeError(`The export's resources, stored with each of its spans, come to more than ${limit} bytes (OTLP_MAX_INFLATED_BYTES); send smaller batches or fewer resource attributes`);
    }
  }
  return texts;
}

/**
 * A row as COPY text (UTF-8), columns in COPY_COLUMNS order up to the last
 * one (`bytes`): ids, numbers and timestamps need no escaping; the
 * resource's text comes from resourceTexts. Joined from its fields (one flat
 * string, where a template would make a string per piece first). Its UTF-8
 * length is the span's `bytes`, what it counts against MAX_REPLY_BYTES when
 * read (traces.sql.ts spanBytes, core/reply-budget.ts withinBudgetSql).
 */
function copyFields(organizationId: string, row: SpanRow, resourceText: string): string {
  return [
    organizationId, row.workspace_id, row.project_id, row.project_inferred, row.trace_id, row.span_id, copyId(row.parent_span_id),
    copyEscape(row.name), copyNullable(row.span_type), row.kind, timestampText(row.start_us), timestampText(row.end_us), row.duration_ms,
    row.status_code, copyNullable(row.status_message), copyJson(row.attributes), resourceText, row.events.length ? copyJson(row.events) : '[]',
    copyNullable(row.run_id), copyId(row.evaluation_id), copyId(row.evaluation_item_id), copyId(row.session_id), copyId(row.assessment_id),
  ].join('\t');
}

/**
 * The memory COPY text is written into, used again once its COPY has
 * succeeded (PostgreSQL has then read every byte). Each export's text is
 * outside the JavaScript heap, and new memory there at the rate exports
 * arrive (about 1 MiB per 512 spans) made V8 run a full collection every
 * few dozen exports; kept, it is allocated once per export in flight. At
 * most SPARE_COPY_BUFFERS of at most MAX_SPARE_COPY_BYTES each are kept (a
 * rare large export's memory is let go); a COPY that failed lets its memory
 * go too (the socket may still hold it).
 */
const SPARE_COPY_BUFFERS = 8;
const MAX_SPARE_COPY_BYTES = 4 * 1024 * 1024;
/** New memory is at least this, rounded up to a power of two, so that it serves the next exports (larger ones get their size). */
const MIN_COPY_BYTES = 1024 * 1024;
const copyBuffers = {
  spare: [] as ArrayBuffer[],
  /** `bytes` of memory as a Buffer, from a spare one when one is large enough. */
  take(bytes: number): Buffer {
    const index = this.spare.findLastIndex((memory) => memory.byteLength >= bytes);
    const size = bytes > MAX_SPARE_COPY_BYTES ? bytes : Math.max(MIN_COPY_BYTES, 2 ** Math.ceil(Math.log2(bytes)));
    const memory = index >= 0 ? this.spare.splice(index, 1)[0] : Buffer.allocUnsafeSlow(size).buffer;
    return Buffer.from(memory, 0, bytes);
  },
  /** A taken Buffer's memory back, once nothing reads it any more. */
  give(data: Buffer): void {
    const memory = data.buffer as ArrayBuffer;
    if (this.spare.length < SPARE_COPY_BUFFERS && memory.byteLength <= MAX_SPARE_COPY_BYTES) this.spare.push(memory);
  },
};

/** COPY text (copyData) into spans; its memory is given back once the COPY succeeded. */
async function copySpans(data: Buffer, transaction?: Transaction): Promise<void> {
  await copyIn(COPY_SPANS_SQL, data, transaction);
  copyBuffers.give(data);
}

/**
 * The rows as COPY text, each line its fields and their size (copyFields),
 * written into one buffer of their size: each row's fields are one string,
 * written as it is (no line string made of it), its size after it.
 */
function copyData(organizationId: string, rows: SpanRow[], resources: ResourceTexts): Buffer {
  const lines = new Array<string>(rows.length);
  let bytes = 0;
  rows.forEach((row, index) => {
    const fields = copyFields(organizationId, row, resources.get(row.resource)!.text);
    lines[index] = fields;
    // The fields, a tab, their size (at most 10 digits) and a newline.
    bytes += Buffer.byteLength(fields) + 12;
  });
  const data = copyBuffers.take(bytes);
  let length = 0;
  for (const fields of lines) {
    const size = data.write(fields, length);
    length += size;
    length += data.write(`\t${size}\n`, length, 'latin1');
  }
  return data.subarray(0, length);
}

/** The rows as the INSERT's JSON (traces.sql.ts ROW_COLUMNS), each with its size as copyData counts it. */
function insertRows(organizationId: string, rows: SpanRow[], resources: ResourceTexts): string {
  return JSON.stringify(rows.map((row) => ({ ...row, bytes: Buffer.byteLength(copyFields(organizationId, row, resources.get(row.resource)!.text)) })));
}

function rejectionMessage(rejected: Rejection[]): string {
  if (!rejected.length) return '';
  const reasons = [...new Set(rejected.map((item) => item.reason))];
  return `${rejected.length} span(s) rejected: ${reasons.slice(0, 5).join('; ')}`;
}

/**
 * Each span's project and workspace: its own `dreadnode.project`, else its
 * root's (in this export, or stored before), else the default project (of
 * the default workspace, or of an API key's own workspace). A span naming a
 * project outside a workspace-limited key's workspace is rejected.
 */
async function placeSpans(scope: OrgScope, spans: SpanRecord[], rejected: Rejection[]): Promise<{ placements: (Placement | null)[]; home: Placement }> {
  const keyWorkspace = scope.viewer.apiKey?.workspace_id ?? null;
  // Each span's own reference, read once.
  const ownRefs = spans.map(projectRef);
  const rootRefs = new Map<string, string | null>();
  spans.forEach((span, index) => {
    if (span.parent_span_id === null) rootRefs.set(span.trace_id, ownRefs[index]);
  });
  const refs = [...new Set(ownRefs.filter((ref): ref is string => ref !== null))];
  const projects = await plainQuery<ProjectRow>(
    EXPORT_PROJECTS_SQL,
    { organization_id: scope.org.id, refs: [...refs, ...refs.map((ref) => ref.toLowerCase())], key_workspace_id: keyWorkspace },
    { prepare: 'spans-export-projects' },
  );
  const byRef = new Map<string, ProjectRow>();
  for (const project of projects) {
    // A key names a project in each workspace: the key's workspace first, then the default workspace, then the oldest.
    const rank = (row: ProjectRow) => (row.workspace_id === keyWorkspace ? 0 : row.workspace_is_default ? 1 : 2);
    for (const ref of [project.id, project.key]) {
      const held = byRef.get(ref);
      if (!held || rank(project) < rank(held)) byRef.set(ref, project);
    }
  }
  const fallback = projects.find((row) => row.is_default && (keyWorkspace ? row.workspace_id === keyWorkspace : row.workspace_is_default));
  // Where children wait for their root: the default project of the default workspace.
  const home = projects.find((row) => row.is_default && row.workspace_is_default);
  if (!fallback || !home) throw new InvalidError('The organization has no default project to receive spans');
  // Traces with a span that names no project and no root in this export: their stored root decides.
  const orphanTraces = [...new Set(spans.filter((span, index) => !ownRefs[index] && !rootRefs.has(span.trace_id)).map((span) => span.trace_id))];
  const storedRoots = orphanTraces.length
    ? new Map(
        (await plainQuery<{ trace_id: string; project_id: string; workspace_id: string }>(STORED_ROOTS_SQL, { organization_id: scope.org.id, trace_ids: orphanTraces })).map(
          (row) => [row.trace_id, row],
        ),
      )
    : new Map<string, { project_id: string; workspace_id: string }>();

  const placements = spans.map((span, index) => {
    const ref = ownRefs[index] ?? rootRefs.get(span.trace_id) ?? null;
    const named = ref ? (byRef.get(ref) ?? byRef.get(ref.toLowerCase())) : undefined;
    if (named && keyWorkspace && named.workspace_id !== keyWorkspace) {
      rejected.push({ span_id: span.span_id, reason: `project ${ref} is outside the API key's workspace` });
      return null;
    }
    if (named) return { project_id: named.id, workspace_id: named.workspace_id, project_inferred: false };
    const root = storedRoots.get(span.trace_id);
    if (root && (!keyWorkspace || root.workspace_id === keyWorkspace)) return { project_id: root.project_id, workspace_id: root.workspace_id, project_inferred: false };
    // Nothing names it yet: the default project, until its root arrives naming one (a workspace-limited key's spans stay in its workspace).
    const waitsForRoot = span.parent_span_id !== null && !rootRefs.has(span.trace_id) && !keyWorkspace;
    return { project_id: fallback.id, workspace_id: fallback.workspace_id, project_inferred: waitsForRoot };
  });
  return { placements, home: { project_id: home.id, workspace_id: home.workspace_id, project_inferred: false } };
}

/** A span as a row of the ingest statement (traces.sql.ts ROW_COLUMNS). */
function rowOf(span: SpanRecord, placement: Placement) {
  const attributes = span.attributes;
  const spanType = textOr(attribute(attributes, 'dreadnode.type'));
  return {
    project_id: placement.project_id,
    workspace_id: placement.workspace_id,
    project_inferred: placement.project_inferred,
    trace_id: span.trace_id,
    span_id: span.span_id,
    parent_span_id: span.parent_span_id,
    name: span.name,
    span_type: spanType,
    kind: span.kind,
    start_us: span.start_us,
    end_us: span.end_us,
    duration_ms: span.duration_ms,
    status_code: span.status_code,
    status_message: span.status_message,
    attributes,
    resource: span.resource,
    events: span.events.length === 0 ? [] : span.events.map((event) => ({ name: event.name, timestamp: new Date(event.time_us / 1000).toISOString(), attributes: event.attributes })),
    run_id: textOr(attribute(attributes, 'dreadnode.run.id')),
    evaluation_id: uuidOr(attribute(attributes, 'dreadnode.evaluation.id')),
    evaluation_item_id: uuidOr(attribute(attributes, 'dreadnode.evaluation.item_id')),
    session_id: uuidOr(attribute(attributes, 'dreadnode.session.id')),
    assessment_id: spanType === 'study' ? uuidOr(attribute(attributes, 'dreadnode.airt.assessment_id')) : null,
  };
}

