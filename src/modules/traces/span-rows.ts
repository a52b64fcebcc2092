import { PayloadTooLargeError } from '../../core/errors';
import { isUuid } from '../../core/scalars';
import { attribute, cutText, readExport, type ExportEncoding, type ExportLimits, type Rejection, type SpanRecord } from './otlp';

/**
 * An export's spans as rows of `spans` in COPY's text format (decisions
 * §15), written before their projects are known: every column after the
 * first four (organization, workspace, project, `project_inferred`: the
 * row's head, HEAD_BYTES of text) is the span's own. `readSpans` reads
 * the export, `writeRows` writes the rows with room for their heads,
 * keeping of each span only what placing it needs; the ingest
 * (traces.ingest.ts) places the spans and writes the heads
 * (`placedRows`). The span records are garbage before the look-up answers:
 * none survives the young generation's collections that other exports'
 * reading sets off while it waits.
 */

/** What an export is read within: the OTLP_MAX_* limits and the window of times TRACE_RETENTION_DAYS keeps (start and end in it). */
export interface ExportRules extends ExportLimits {
  /** OTLP_MAX_INFLATED_BYTES, also what the export's resources, stored with each of its spans, may come to. */
  maxResourceBytes: number;
  retentionDays: number;
  /** Start times in [oldestUs, newestUs) microseconds, end times before newestUs (span-partitions.ts acceptedWindow). */
  oldestUs: number;
  newestUs: number;
}

/** The span of each row, what placing it needs (one entry per row, in row order). */
export interface RowSpans {
  traceIds: string[];
  spanIds: string[];
  parentIds: (string | null)[];
  /** The project a span names: its own `dreadnode.project`, else its resource's. */
  refs: (string | null)[];
  /** `dreadnode.type` (`study` and `trial` are red-team spans). */
  types: (string | null)[];
}

/**
 * An export read and written as rows: row i is the bytes [offsets[i],
 * offsets[i + 1]) of `memory`, its first HEAD_BYTES left for its head.
 * Also the spans refused one by one and the pending-span copies dropped.
 */
export interface PreparedExport {
  spans: RowSpans;
  rejected: Rejection[];
  pendingCopies: number;
  repeats: SpanKey[];
  offsets: Uint32Array;
  memory: ArrayBuffer;
}

/** A span by its ids. */
export interface SpanKey {
  trace_id: string;
  span_id: string;
}

/** Where a span is stored. */
export interface Placement {
  project_id: string;
  workspace_id: string;
  project_inferred: boolean;
}

/** A row's head: three UUIDs and `project_inferred` as t or f, each followed by a tab but the last. */
export const HEAD_BYTES = 3 * 37 + 1;
const TAB = 0x09;
/** `!`, not a UUID's character: a row sent with its head unwritten fails its COPY (22P02) rather than store it under whoever's head the memory held. */
const UNWRITTEN_HEAD = 0x21;

/**
 * The memory rows are written into, used again once their COPY has
 * succeeded (`giveRowMemory`: PostgreSQL has then read every byte). Rows
 * are outside the JavaScript heap, and new memory there at the rate exports
 * arrive (about 1 MiB per 512 spans) made V8 run a full collection every
 * few dozen exports; kept, it is allocated once per export in flight. At
 * most SPARE_ROW_MEMORY of at most MAX_SPARE_ROW_BYTES each are kept (a
 * rare large export's memory is let go); memory a failed COPY used is let
 * go too (the socket may still hold it).
 */
const SPARE_ROW_MEMORY = 8;
const MAX_SPARE_ROW_BYTES = 4 * 1024 * 1024;
/** New memory is at least this, rounded up to a power of two, so that it serves the next exports (larger ones get their size). */
const MIN_ROW_BYTES = 1024 * 1024;
const spareRowMemory: ArrayBuffer[] = [];

/** At least `bytes` of memory, spare when some is large enough. */
function takeRowMemory(bytes: number): ArrayBuffer {
  const index = spareRowMemory.findLastIndex((memory) => memory.byteLength >= bytes);
  if (index >= 0) return spareRowMemory.splice(index, 1)[0];
  return Buffer.allocUnsafeSlow(bytes > MAX_SPARE_ROW_BYTES ? bytes : Math.max(MIN_ROW_BYTES, 2 ** Math.ceil(Math.log2(bytes)))).buffer as ArrayBuffer;
}

/** A prepared export's memory back, once nothing reads it any more. */
export function giveRowMemory(memory: ArrayBuffer): void {
  if (spareRowMemory.length < SPARE_ROW_MEMORY && memory.byteLength <= MAX_SPARE_ROW_BYTES) spareRowMemory.push(memory);
}

/** An export read (readSpans): its spans kept, what placing each needs (`spans`), and what writeRows needs. */
export interface ReadExport {
  spans: RowSpans;
  rejected: Rejection[];
  pendingCopies: number;
  /** Spans the export repeats (the same trace and span id again): stored once, each counted as its first copy is. */
  repeats: SpanKey[];
  records: SpanRecord[];
  columns: SpanColumns[];
  resources: Map<object, { text: string; bytes: number }>;
}

/**
 * The export read (readExport), its spans kept once each, starting within
 * the retention window and ending before its end (the others refused). An
 * export over maxSpans, or whose resources come to more than
 * maxResourceBytes, is refused whole (413).
 */
export function readSpans(body: Uint8Array, encoding: ExportEncoding, rules: ExportRules): ReadExport {
  const { spans: found, rejected, pendingCopies, overLimit } = readExport(body, encoding, rules);
  if (overLimit) throw new PayloadTooLargeError(`An export holds at most ${rules.maxSpans} spans (OTLP_MAX_SPANS); send smaller batches`);
  const records: SpanRecord[] = [];
  const repeats: SpanKey[] = [];
  const seen = new SpanKeys();
  for (const span of found) {
    // The same span twice in one export is stored once.
    if (!seen.add(span.trace_id, span.span_id)) {
      repeats.push({ trace_id: span.trace_id, span_id: span.span_id });
      continue;
    }
    if (span.start_us < rules.oldestUs || span.start_us >= rules.newestUs) {
      rejected.push({ span_id: span.span_id, trace_id: span.trace_id, reason: `start time outside the ${rules.retentionDays}-day retention window` });
    } else if (span.end_us >= rules.newestUs) {
      // A finished span cannot end days from now: such an end is a broken clock or a made-up number, and its duration would be too.
      rejected.push({ span_id: span.span_id, trace_id: span.trace_id, reason: 'end time in the future, past the window of accepted times' });
    } else {
      records.push(span);
    }
  }
  const resources = resourceTexts(records, rules.maxResourceBytes);
  const spans: RowSpans = { traceIds: [], spanIds: [], parentIds: [], refs: [], types: [] };
  const columns = records.map((span) => {
    const derived = spanColumns(span);
    spans.traceIds.push(span.trace_id);
    spans.spanIds.push(span.span_id);
    spans.parentIds.push(span.parent_span_id);
    spans.refs.push(textOr(attribute(span.attributes, 'dreadnode.project')) ?? textOr(attribute(span.resource, 'dreadnode.project')));
    spans.types.push(derived.span_type);
    return derived;
  });
  return { spans, rejected, pendingCopies, repeats, records, columns, resources };
}

/** The spans read written as rows, each with room for its head. */
export function writeRows({ spans, rejected, pendingCopies, repeats, records, columns, resources }: ReadExport): PreparedExport {
  const tails = new Array<string>(records.length);
  let bytes = 0;
  records.forEach((span, index) => {
    const tail = copyTail(span, columns[index], resources.get(span.resource)!.text);
    tails[index] = tail;
    // The head, a tab, the tail, a tab, the row's size (at most 10 digits) and a newline.
    bytes += HEAD_BYTES + Buffer.byteLength(tail) + 13;
  });
  const memory = takeRowMemory(bytes);
  const data = Buffer.from(memory);
  const offsets = new Uint32Array(records.length + 1);
  let length = 0;
  tails.forEach((tail, index) => {
    offsets[index] = length;
    // Until placedRows writes it, the head is text no COPY accepts (the memory may hold another export's head).
    data.fill(UNWRITTEN_HEAD, length, length + HEAD_BYTES);
    length += HEAD_BYTES;
    data[length++] = TAB;
    const size = data.write(tail, length);
    length += size;
    length += data.write(`\t${HEAD_BYTES + 1 + size}\n`, length, 'latin1');
  });
  offsets[records.length] = length;
  return { spans, rejected, pendingCopies, repeats, offsets, memory };
}

/** A row's head as COPY text (COPY_COLUMNS' first four): HEAD_BYTES of ASCII. */
export function copyHead(organizationId: string, placement: Placement): string {
  const head = `${organizationId}\t${placement.workspace_id}\t${placement.project_id}\t${placement.project_inferred ? 't' : 'f'}`;
  if (head.length !== HEAD_BYTES) throw new Error(`A span row's head is ${head.length} characters, not ${HEAD_BYTES}`);
  return head;
}

/**
 * The COPY text of the rows placed: each placed row's head written, the
 * rows of spans not placed (null) left out. In the prepared memory, which
 * the COPY then reads.
 */
export function placedRows(organizationId: string, prepared: PreparedExport, placements: (Placement | null)[]): Buffer {
  const data = Buffer.from(prepared.memory);
  const { offsets } = prepared;
  if (placements.length !== offsets.length - 1) throw new Error(`${placements.length} placements for ${offsets.length - 1} rows`);
  let length = 0;
  placements.forEach((placement, index) => {
    if (!placement) return;
    const start = offsets[index];
    const end = offsets[index + 1];
    if (start !== length) data.copyWithin(length, start, end);
    data.write(copyHead(organizationId, placement), length, 'latin1');
    length += end - start;
  });
  return data.subarray(0, length);
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

const uuidOr = (value: unknown): string | null => (isUuid(value) ? value.toLowerCase() : null);
const textOr = (value: unknown): string | null => (typeof value === 'string' && value ? cutText(value, 255) : typeof value === 'number' ? String(value) : null);

/** The columns the rules derive from a span's attributes (decisions §15). */
type SpanColumns = ReturnType<typeof spanColumns>;
function spanColumns(span: SpanRecord) {
  const attributes = span.attributes;
  const spanType = textOr(attribute(attributes, 'dreadnode.type'));
  return {
    span_type: spanType,
    run_id: textOr(attribute(attributes, 'dreadnode.run.id')),
    evaluation_id: uuidOr(attribute(attributes, 'dreadnode.evaluation.id')),
    evaluation_item_id: uuidOr(attribute(attributes, 'dreadnode.evaluation.item_id')),
    session_id: uuidOr(attribute(attributes, 'dreadnode.session.id')),
    assessment_id: spanType === 'study' ? uuidOr(attribute(attributes, 'dreadnode.airt.assessment_id')) : null,
  };
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
 * sum is held to `limit` (413 past it).
 */
function resourceTexts(spans: SpanRecord[], limit: number): Map<object, { text: string; bytes: number }> {
  const texts = new Map<object, { text: string; bytes: number }>();
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
 * A row's columns after its head as COPY text (UTF-8), in COPY_COLUMNS
 * order up to the last one (`bytes`): ids, numbers and timestamps need no
 * escaping; the resource's text comes from resourceTexts. Joined from its
 * fields (one flat string, where a template would make a string per piece
 * first). The head, a tab and this text are the row's fields; their UTF-8
 * length is the span's `bytes`, what it counts against MAX_REPLY_BYTES when
 * read (traces.sql.ts spanBytes, core/reply-budget.ts withinBudgetSql).
 */
function copyTail(span: SpanRecord, columns: SpanColumns, resourceText: string): string {
  return [
    span.trace_id, span.span_id, copyId(span.parent_span_id), copyEscape(span.name), copyNullable(columns.span_type), span.kind,
    timestampText(span.start_us), timestampText(span.end_us), span.duration_ms, span.status_code, copyNullable(span.status_message),
    copyJson(span.attributes), resourceText, span.events.length ? copyJson(span.events.map(eventJson)) : '[]', copyNullable(columns.run_id),
    copyId(columns.evaluation_id), copyId(columns.evaluation_item_id), copyId(columns.session_id), copyId(columns.assessment_id),
  ].join('\t');
}

const eventJson = (event: SpanRecord['events'][number]) => ({ name: event.name, timestamp: new Date(event.time_us / 1000).toISOString(), attributes: event.attributes });
