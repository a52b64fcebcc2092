import path from 'node:path';
import fs from 'node:fs';
import protobuf from 'protobufjs';
import { PayloadTooLargeError, ValidationError } from '../../core/errors';
import { isPlainObject } from '../../core/validation/coerce';
import { MAX_BODY_JSON_DEPTH, parseJsonWithin } from '../../core/validation/json-text';

/**
 * OTLP/HTTP trace exports decoded into span records (decisions §15).
 *
 * The protobuf form is read with protobufjs's wire reader over the
 * OpenTelemetry project's own `.proto` files (opentelemetry-proto v1.11.0,
 * vendored in ./proto with their licence, which give every field number):
 * `@opentelemetry/otlp-transformer` ships request encoders only, and the
 * `.proto` files are the protocol's definition of record. The reader walks
 * the message once and builds the span records straight from its bytes
 * (no message objects in between, which cost more than the records). The
 * JSON form is read from its parsed objects. Both hand the same raw fields
 * to one set of rules (`spanRecord`, `Attributes`, the value conversions),
 * so the two encodings of one export give equal records (tested).
 */

const PROTO_ROOT = [path.join(__dirname, 'proto'), path.resolve(__dirname, '../../../../src/modules/traces/proto')].find((dir) => fs.existsSync(dir))!;

interface OtlpTypes {
  response: protobuf.Type;
  /** The field numbers of the messages a trace export holds, by their camelCase names, as the `.proto` files declare them. */
  fields: Record<'request' | 'resourceSpans' | 'resource' | 'scopeSpans' | 'span' | 'event' | 'status' | 'keyValue' | 'anyValue' | 'arrayValue' | 'keyValueList', Record<string, number>>;
}

let types: OtlpTypes | undefined;
function otlpTypes(): OtlpTypes {
  if (!types) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
    root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
    const ids = (name: string) => Object.fromEntries(Object.values(root.lookupType(name).fields).map((field) => [field.name, field.id]));
    types = {
      response: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
      fields: {
        request: ids('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
        resourceSpans: ids('opentelemetry.proto.trace.v1.ResourceSpans'),
        resource: ids('opentelemetry.proto.resource.v1.Resource'),
        scopeSpans: ids('opentelemetry.proto.trace.v1.ScopeSpans'),
        span: ids('opentelemetry.proto.trace.v1.Span'),
        event: ids('opentelemetry.proto.trace.v1.Span.Event'),
        status: ids('opentelemetry.proto.trace.v1.Status'),
        keyValue: ids('opentelemetry.proto.common.v1.KeyValue'),
        anyValue: ids('opentelemetry.proto.common.v1.AnyValue'),
        arrayValue: ids('opentelemetry.proto.common.v1.ArrayValue'),
        keyValueList: ids('opentelemetry.proto.common.v1.KeyValueList'),
      },
    };
  }
  return types;
}

/** A malformed export: 400, which the exporter does not retry. */
export class MalformedExportError extends Error {}

/** An export request as plain objects (OTLP/JSON's shape). */
export interface ExportRequest {
  resourceSpans?: unknown;
}

/** The protobuf ExportTraceServiceResponse, with partial_success when spans were rejected. */
export function encodeProtobufResponse(rejected: number, message: string): Buffer {
  if (!rejected) return (fullSuccess ??= encodeResponse({}));
  return encodeResponse({ partialSuccess: { rejectedSpans: rejected, errorMessage: message } });
}
let fullSuccess: Buffer | undefined;
function encodeResponse(value: object): Buffer {
  const { response } = otlpTypes();
  return Buffer.from(response.encode(response.fromObject(value)).finish());
}

/** The limits of one export (config OTLP_*). */
export interface ExportLimits {
  maxSpans: number;
  maxAttributes: number;
  maxAttributeLength: number;
  /**
   * The arrays and objects reading an export may build, summed over an
   * OTLP/JSON body's, the lists, key-value lists and events of a protobuf
   * one, and the attribute values sent as JSON text (either encoding): an
   * empty object costs about 20 times its text (`{},`) and an empty list
   * about 15 times its 4 bytes of protobuf, so the body's size alone does
   * not bound what reading it holds in memory.
   */
  maxContainers: number;
}

/** An export's limits while it is read: with the arrays and objects it may still build. */
interface ReadLimits extends ExportLimits {
  containersLeft: number;
}

const startReading = (limits: ExportLimits): ReadLimits => ({ ...limits, containersLeft: limits.maxContainers });

const tooManyContainers = (limits: ExportLimits) =>
  new PayloadTooLargeError(`An OTLP export holds at most ${limits.maxContainers} arrays and objects (OTLP_MAX_INFLATED_BYTES / 8); send smaller batches`);

/** Counts `count` arrays or objects a protobuf export's reading builds; past the limit the export is refused (413), as an OTLP/JSON body is. */
function build(limits: ReadLimits, count: number): void {
  limits.containersLeft -= count;
  if (limits.containersLeft < 0) throw tooManyContainers(limits);
}

/** One span as stored, before its project and workspace are known. */
export interface SpanRecord {
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: number;
  /** Microseconds since the epoch (timestamptz's precision). */
  start_us: number;
  end_us: number;
  duration_ms: number;
  status_code: number;
  status_message: string | null;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  events: { name: string; time_us: number; attributes: Record<string, unknown> }[];
}

/** A span refused by itself (the rest of the export is kept: partial success). */
export interface Rejection {
  span_id: string | null;
  /** Its trace, where the span was read that far (to count its repeats in the export alike). */
  trace_id?: string;
  reason: string;
}

/** The spans of an export that can be stored, the ones refused one by one, the pending-span copies dropped, and the spans past maxSpans (counted, not read). */
export interface ExportReading {
  spans: SpanRecord[];
  rejected: Rejection[];
  pendingCopies: number;
  overLimit: number;
}

// ---------------------------------------------------------------------------
// The rules, one set for both encodings.

/** ES2024's well-formed string methods (Node 20 has them; the ES2023 lib does not declare them). */
interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** PostgreSQL text and jsonb hold no NUL character (removed) and no lone UTF-16 surrogate (replaced by U+FFFD). */
export function clean(text: string): string {
  const withoutNul = text.includes('\0') ? text.replace(/\0/g, '') : text;
  return (withoutNul as unknown as WellFormed).isWellFormed() ? withoutNul : (withoutNul as unknown as WellFormed).toWellFormed();
}

/** `clean` through a parsed JSON value (only needed when its text escaped a surrogate; nested at most MAX_VALUE_DEPTH levels). */
function deepClean(value: unknown): unknown {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map(deepClean);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [clean(key), deepClean(item)]));
  return value;
}

/**
 * A string AnyValue. Section 15: the SDK sends values that are not a
 * string, number or boolean as compact JSON text (`None` as "null"), so a
 * string holding a JSON array, object or null is read back as that value;
 * JSON nested deeper than MAX_VALUE_DEPTH, or holding more arrays and
 * objects than the export may still build, stays text, like anything else
 * that does not parse.
 */
function stringValue(raw: string, limits: ReadLimits): unknown {
  const text = clean(raw);
  const first = text.charCodeAt(0);
  // '[' '{' or the text "null": JSON the SDK encoded (section 15). Anything that does not parse stays text
  // (as does JSON spelling a NUL character, which jsonb cannot hold).
  if ((first === 0x5b || first === 0x7b || text === 'null') && text.length <= limits.maxAttributeLength && !text.includes('\\u0000')) {
    // Text that only looks like JSON, or nests deeper than MAX_VALUE_DEPTH, is not parsed.
    const json = parseJsonWithin(Buffer.from(text), MAX_VALUE_DEPTH, text, limits.containersLeft);
    if (json.ok) {
      limits.containersLeft -= json.containers;
      // JSON may escape a lone surrogate (\ud800), which jsonb refuses: cleaned like any text.
      return /\\u[dD][89a-fA-F]/.test(text) ? deepClean(json.value) : json.value;
    }
  }
  return limited(text, limits);
}

/**
 * The first `length` UTF-16 units of `text`, one fewer where the cut would
 * split a surrogate pair: half a pair is a lone surrogate, which JSON text
 * escapes (`\ud83d`) and jsonb refuses.
 */
export function cutText(text: string, length: number): string {
  if (text.length <= length) return text;
  const last = text.charCodeAt(length - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? length - 1 : length);
}

/** Text within the attribute value length limit. */
const limited = (text: string, limits: ExportLimits) => cutText(text, limits.maxAttributeLength);
/** Base64 characters of a bytes value kept within the value length limit: whole groups of 4 (3 bytes each). */
const base64Length = (limits: ExportLimits) => Math.floor(limits.maxAttributeLength / 4) * 4;

/**
 * An int64 AnyValue (a number or decimal text from JSON, a protobufjs Long
 * from the wire): a number within ±2^53, else its decimal text (within the
 * value length limit); null for anything else.
 */
function intValue(value: unknown, limits: ExportLimits): unknown {
  let number: number;
  if (typeof value === 'number') number = value;
  else if (typeof value === 'string') number = numberOf(value);
  else if (value instanceof protobuf.util.Long) number = value.high * 4294967296 + (value.low >>> 0);
  else return null;
  return Number.isSafeInteger(number) ? number : limited(clean(String(value)), limits);
}

/** A field that holds a number (JSON may send it as text); NaN for anything else, an object included (never its own valueOf). */
const numberOf = (value: unknown): number => (typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN);

function doubleValue(value: unknown): number | null {
  const number = numberOf(value);
  return Number.isFinite(number) ? number : null;
}

/** Nesting deeper than this reads as null. */
const MAX_VALUE_DEPTH = 8;

/**
 * Attribute keys recur in every span of an export and from export to
 * export: each distinct key is checked once (and, from the wire, decoded
 * once) while it stays in these sets, which start over past KEY_CACHE_SIZE.
 */
const KEY_CACHE_SIZE = 10_000;
const validKeys = new Set<string>();

/** No NUL (written or escaped) and no lone surrogate: a key PostgreSQL can store. */
function validKey(key: string): boolean {
  if (key.includes('\0') || key.includes('\\u0000') || !(key as unknown as WellFormed).isWellFormed()) return false;
  if (validKeys.size >= KEY_CACHE_SIZE) validKeys.clear();
  validKeys.add(key);
  return true;
}

/** ASCII key texts by a hash of their bytes (FNV-1a), for the wire reader. */
const keyTexts = new Map<number, string>();

/** A KeyValue list being read into an object: at most maxAttributes keys, the rest (and invalid keys) counted as dropped. */
class Attributes {
  /**
   * An ordinary object (V8 keeps one with a prototype in its fast form,
   * which reading, writing and serialising the spans' attributes need), used
   * by own properties only, so a key such as `__proto__` or `constructor` is
   * an attribute like any other (see `set`).
   */
  readonly values: Record<string, unknown> = {};
  dropped = 0;
  private kept = 0;
  constructor(private readonly limits: ExportLimits) {}

  /** Whether the value of `key` is to be read and set: a key of 1–255 characters, no NUL, well formed, within the limit. */
  accepts(key: unknown): key is string {
    if (typeof key !== 'string' || !key || key.length > 255 || !(validKeys.has(key) || validKey(key))) {
      this.dropped += 1;
      return false;
    }
    if (!Object.hasOwn(this.values, key)) {
      if (this.kept >= this.limits.maxAttributes) {
        this.dropped += 1;
        return false;
      }
      this.kept += 1;
    }
    return true;
  }

  set(key: string, value: unknown): void {
    // Assigning `__proto__` would set the prototype: it is defined as a property of its own instead.
    if (key === '__proto__') Object.defineProperty(this.values, key, { value, enumerable: true, writable: true, configurable: true });
    else this.values[key] = value;
  }
}

/**
 * The value of one attribute the rules name (`dreadnode.type`, …): own
 * properties only, so that nothing set on Object.prototype anywhere in the
 * process can place or drop a span.
 */
export const attribute = (values: Record<string, unknown>, key: string): unknown => (Object.hasOwn(values, key) ? values[key] : undefined);

/**
 * A span's fields as a reader found them: ids as lowercase hex (null when
 * absent, empty, all zeros or not a valid id; a parent id sent but not a
 * valid one is `undefined`, and refuses the span), times in microseconds
 * (null when absent or zero), the rest as sent.
 */
interface RawSpan {
  traceId: string | null;
  spanId: string | null;
  parentSpanId: string | null | undefined;
  name: unknown;
  kind: unknown;
  startUs: number | null;
  endUs: number | null;
  attributes: Attributes;
  droppedAttributesCount: unknown;
  statusCode: unknown;
  statusMessage: unknown;
  events: { name: unknown; timeUs: number | null; attributes: Record<string, unknown> }[];
  /** Events past maxAttributes, not kept; and the span's own dropped_events_count (the sender's). */
  droppedEvents: number;
  droppedEventsCount: unknown;
}

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? clean(value.slice(0, max)) : '';
}

/** A span's record, or why it is refused. */
function spanRecord(raw: RawSpan, resource: Record<string, unknown>, limits: ExportLimits): SpanRecord | Rejection {
  const { traceId, spanId, startUs: start, endUs: end } = raw;
  if (!traceId || !spanId) return { span_id: spanId, reason: 'trace_id must be 16 bytes and span_id 8 bytes, not all zero' };
  // A malformed parent would make the span a second root of its trace.
  if (raw.parentSpanId === undefined) return { span_id: spanId, reason: 'parent_span_id must be 8 bytes, or empty for a root' };
  if (start === null || end === null || end < start) return { span_id: spanId, reason: 'start and end times must be set, the end not before the start' };
  const attributes = raw.attributes.values;
  // What the limits dropped is counted, with what the sender says it dropped, as OTLP's own counts do.
  const sent = (count: unknown) => (Number.isSafeInteger(numberOf(count)) ? numberOf(count) : 0);
  if (raw.attributes.dropped) attributes['otel.dropped_attributes_count'] = raw.attributes.dropped + sent(raw.droppedAttributesCount);
  if (raw.droppedEvents) attributes['otel.dropped_events_count'] = raw.droppedEvents + sent(raw.droppedEventsCount);
  const kind = numberOf(raw.kind ?? 0);
  const statusCode = numberOf(raw.statusCode ?? 0);
  const message = raw.statusMessage;
  return {
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: raw.parentSpanId,
    name: text(raw.name, 1024),
    kind: Number.isInteger(kind) && kind >= 0 && kind <= 5 ? kind : 0,
    start_us: start,
    end_us: end,
    duration_ms: (end - start) / 1000,
    status_code: Number.isInteger(statusCode) && statusCode >= 0 && statusCode <= 2 ? statusCode : 0,
    status_message: typeof message === 'string' && message ? clean(message.slice(0, limits.maxAttributeLength)) : null,
    attributes,
    resource,
    events: raw.events.map((event) => ({ name: text(event.name, 1024), time_us: event.timeUs ?? start, attributes: event.attributes })),
  };
}

/** The export being read: spans counted against maxSpans as they come, each stored, refused or dropped as a pending-span copy. */
class Reading {
  private readonly spans: SpanRecord[] = [];
  private readonly rejected: Rejection[] = [];
  private pendingCopies = 0;
  private overLimit = 0;
  constructor(private readonly limits: ExportLimits) {}

  result(): ExportReading {
    return { spans: this.spans, rejected: this.rejected, pendingCopies: this.pendingCopies, overLimit: this.overLimit };
  }

  /** False once the export holds maxSpans: the span is counted, not read (the caller refuses the export whole). */
  room(): boolean {
    if (this.spans.length + this.rejected.length + this.pendingCopies < this.limits.maxSpans) return true;
    this.overLimit += 1;
    return false;
  }

  add(raw: RawSpan, resource: Record<string, unknown>): void {
    const read = spanRecord(raw, resource, this.limits);
    if ('reason' in read) this.rejected.push(read);
    else if (attribute(read.attributes, 'logfire.span_type') === 'pending_span') this.pendingCopies += 1;
    else this.spans.push(read);
  }
}

/** The two encodings of an export (its Content-Type: application/x-protobuf or application/json). */
export type ExportEncoding = 'protobuf' | 'json';

/** An export's body (inflated) read in its encoding; JSON may also be the SDK client's `{traces: [export, …]}` (each an export, read together). */
export function readExport(body: Uint8Array, encoding: ExportEncoding, limits: ExportLimits): ExportReading {
  if (encoding === 'protobuf') return readProtobufExport(body, limits);
  const rules = startReading(limits);
  const json = parseJsonWithin(body, MAX_BODY_JSON_DEPTH, undefined, rules.containersLeft);
  if (!json.ok && json.tooMany) throw tooManyContainers(limits);
  if (!json.ok) throw new ValidationError([{ loc: ['body'], msg: json.msg, type: 'json_invalid' }], 'Request body is not valid JSON');
  rules.containersLeft -= json.containers;
  const value = json.value;
  const traces = (value as { traces?: unknown } | null)?.traces;
  if (isPlainObject(value) && traces !== undefined) {
    if (!Array.isArray(traces)) throw new MalformedExportError('traces must be a list of OTLP export requests');
    // One form or the other: spans beside `traces` would be neither stored nor counted as refused.
    if ((value as ExportRequest).resourceSpans !== undefined) throw new MalformedExportError('send either resourceSpans (an OTLP export) or traces (a list of them), not both');
    const resourceSpans = traces.flatMap((item) => {
      const list = (item as ExportRequest | null)?.resourceSpans;
      if (!Array.isArray(list)) throw new MalformedExportError('each of traces must be an OTLP export request with resourceSpans');
      return list;
    });
    return readJsonRequest({ resourceSpans }, rules);
  }
  return readJsonRequest(value as ExportRequest, rules);
}

// ---------------------------------------------------------------------------
// OTLP/JSON: the parsed objects (ids as hex, 64-bit numbers as decimal text or numbers).

const HEX = /^[0-9a-f]+$/;

function hexText(value: unknown, bytes: number): string | null | undefined {
  if (value === undefined || value === null || value === '') return null;
  const hex = typeof value === 'string' ? value.toLowerCase() : '';
  if (hex.length !== bytes * 2 || !HEX.test(hex)) return undefined;
  // All zeros is OTLP's "no id".
  return /^0+$/.test(hex) ? null : hex;
}

/** Nanoseconds (decimal text or a number) as microseconds; null when missing or zero. */
function jsonMicros(value: unknown): number | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  const digits = String(value);
  if (!/^\d{1,20}$/.test(digits)) return null;
  const nanos = BigInt(digits);
  return nanos === 0n ? null : Number(nanos / 1000n);
}

function jsonAnyValue(value: unknown, limits: ReadLimits, depth: number): unknown {
  if (!value || typeof value !== 'object' || depth > MAX_VALUE_DEPTH) return null;
  const v = value as Record<string, unknown>;
  // OTLP/JSON holds only the set field of the value oneof.
  switch (Object.keys(v)[0]) {
    case 'stringValue':
      return typeof v.stringValue === 'string' ? stringValue(v.stringValue, limits) : null;
    case 'boolValue':
      return v.boolValue === true || v.boolValue === 'true';
    case 'intValue':
      return intValue(v.intValue, limits);
    case 'doubleValue':
      return doubleValue(v.doubleValue);
    case 'arrayValue': {
      const values = (v.arrayValue as { values?: unknown } | null)?.values;
      return Array.isArray(values) ? values.slice(0, limits.maxAttributes).map((item) => jsonAnyValue(item, limits, depth + 1)) : [];
    }
    case 'kvlistValue':
      return jsonAttributes((v.kvlistValue as { values?: unknown } | null)?.values, limits, depth + 1).values;
    case 'bytesValue':
      return typeof v.bytesValue === 'string' ? clean(v.bytesValue.slice(0, base64Length(limits))) : null;
    default:
      return null;
  }
}

function jsonAttributes(list: unknown, limits: ReadLimits, depth = 0): Attributes {
  const attributes = new Attributes(limits);
  if (!Array.isArray(list)) return attributes;
  for (const item of list) {
    const key = (item as { key?: unknown } | null)?.key;
    if (attributes.accepts(key)) attributes.set(key, jsonAnyValue((item as { value?: unknown }).value, limits, depth));
  }
  return attributes;
}

/**
 * Every span of an OTLP/JSON export, with the ones that cannot be stored set
 * aside. A payload that is not an export at all throws MalformedExportError;
 * too many spans is the caller's to refuse (`overLimit`).
 */
export function readJsonExport(request: ExportRequest, limits: ExportLimits): ExportReading {
  return readJsonRequest(request, startReading(limits));
}

function readJsonRequest(request: ExportRequest, limits: ReadLimits): ExportReading {
  if (!request || typeof request !== 'object' || Array.isArray(request)) throw new MalformedExportError('An export is an object with resourceSpans');
  const resourceSpans = request.resourceSpans ?? [];
  if (!Array.isArray(resourceSpans)) throw new MalformedExportError('resourceSpans must be a list');
  const reading = new Reading(limits);
  for (const group of resourceSpans as Record<string, unknown>[]) {
    if (!isPlainObject(group)) throw new MalformedExportError('resourceSpans holds a non-object');
    const resource = jsonAttributes((group.resource as { attributes?: unknown } | undefined)?.attributes, limits).values;
    const scopeSpans = group.scopeSpans ?? [];
    if (!Array.isArray(scopeSpans)) throw new MalformedExportError('scopeSpans must be a list');
    for (const scope of scopeSpans as unknown[]) {
      if (!isPlainObject(scope)) throw new MalformedExportError('scopeSpans holds a non-object');
      const list = scope.spans ?? [];
      if (!Array.isArray(list)) throw new MalformedExportError('spans must be a list');
      for (const raw of list as Record<string, unknown>[]) {
        if (!isPlainObject(raw)) throw new MalformedExportError('spans holds a non-object');
        if (!reading.room()) continue;
        const status = (raw.status ?? {}) as { code?: unknown; message?: unknown };
        const startUs = jsonMicros(raw.startTimeUnixNano);
        reading.add(
          {
            traceId: hexText(raw.traceId, 16) ?? null,
            spanId: hexText(raw.spanId, 8) ?? null,
            parentSpanId: hexText(raw.parentSpanId, 8),
            name: raw.name,
            kind: raw.kind,
            startUs,
            endUs: jsonMicros(raw.endTimeUnixNano),
            attributes: jsonAttributes(raw.attributes, limits),
            droppedAttributesCount: raw.droppedAttributesCount,
            statusCode: status.code,
            statusMessage: status.message,
            events: Array.isArray(raw.events)
              ? (raw.events as Record<string, unknown>[])
                  .slice(0, limits.maxAttributes)
                  .map((event) => ({ name: event?.name, timeUs: jsonMicros(event?.timeUnixNano), attributes: jsonAttributes(event?.attributes, limits).values }))
              : [],
            droppedEvents: Array.isArray(raw.events) ? Math.max(0, raw.events.length - limits.maxAttributes) : 0,
            droppedEventsCount: raw.droppedEventsCount,
          },
          resource,
        );
      }
    }
  }
  return reading.result();
}

// ---------------------------------------------------------------------------
// Protobuf: the wire, read once with protobufjs's Reader.

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const START_GROUP = 3;
const END_GROUP = 4;

/** Reads an ExportTraceServiceRequest from its bytes (already inflated); a body that is not one throws MalformedExportError. */
export function readProtobufExport(body: Uint8Array, limits: ExportLimits): ExportReading {
  const reading = new Reading(limits);
  const wire = new WireReader(body, startReading(limits), otlpTypes().fields);
  try {
    wire.request(reading);
  } catch (error) {
    // The reader's own failures, and protobufjs's (RangeError past the end, Error for an invalid wire type, said
    // without its words), are the payload's; anything else (a TypeError in the rules) is a bug, answered as one.
    if (error instanceof MalformedExportError) throw new MalformedExportError(`Not an OTLP ExportTraceServiceRequest: ${error.message}`);
    if (error instanceof RangeError || (error as Error | null)?.constructor === Error) {
      throw new MalformedExportError(`Not an OTLP ExportTraceServiceRequest: malformed at byte ${wire.position}`);
    }
    throw error;
  }
  return reading.result();
}

/**
 * Each message is a loop over its fields (number and wire type from the tag),
 * reading the fields the rules need, skipping the rest; a field that runs
 * past its message, or a known field of another wire type, is malformed.
 * What the rules drop unread (values of refused keys, events and array items
 * past the limits, values nested past MAX_VALUE_DEPTH) is skipped by its
 * length without looking inside.
 */
class WireReader {
  private readonly reader: protobuf.Reader;
  private readonly buffer: Buffer;
  constructor(
    body: Uint8Array,
    private readonly limits: ReadLimits,
    private readonly fields: OtlpTypes['fields'],
  ) {
    this.buffer = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.length);
    this.reader = protobuf.Reader.create(this.buffer);
  }

  /** Where reading got to (a failure's place). */
  get position(): number {
    return this.reader.pos;
  }

  /**
   * A tag or a length: a varint of at most 32 bits. protobufjs's uint32
   * keeps the low 32 bits of a longer one (a length of 2^32 + 2 read as 2,
   * and the bytes after it read as fields), which is malformed here.
   */
  private varint32(): number {
    const reader = this.reader;
    const start = reader.pos;
    const value = reader.uint32();
    if (reader.pos - start > 4 && (reader.pos - start > 5 || this.buffer[start + 4] > 0x0f)) throw new MalformedExportError('a tag or length past 32 bits');
    return value;
  }

  /**
   * Skips a field of a wire type: a length-delimited one by its length read
   * as varint32 reads it; a group (wire types 3 and 4, which no OTLP message
   * has) is malformed, rather than skipped by protobufjs with its own reads.
   */
  private skip(wireType: number): void {
    if (wireType === LENGTH_DELIMITED) this.reader.pos = this.end(wireType);
    else if (wireType === START_GROUP || wireType === END_GROUP) throw new MalformedExportError(`wire type ${wireType} (a group), which no OTLP message has`);
    else this.reader.skipType(wireType);
  }

  /** The end of the length-delimited field whose length comes next. */
  private end(wireType: number): number {
    if (wireType !== LENGTH_DELIMITED) throw new MalformedExportError(`wire type ${wireType} where a message, string or bytes were expected`);
    const end = this.varint32() + this.reader.pos;
    if (end > this.reader.len) throw new MalformedExportError('a field runs past the end of the export');
    return end;
  }

  /** A scalar field's wire type is the one its type is encoded with (0 varint, 1 fixed 64-bit). */
  private scalar(wireType: number, expected: number): protobuf.Reader {
    if (wireType !== expected) throw new MalformedExportError(`wire type ${wireType} where ${expected} was expected`);
    return this.reader;
  }

  /** After a message's loop: it ended exactly where its length said. */
  private closed(end: number): void {
    if (this.reader.pos !== end) throw new MalformedExportError('a field runs past its message');
  }

  /** A string field, its length read by varint32 and held to the export (protobufjs's reader cuts one past the end short). */
  private string(wireType: number): string {
    if (wireType !== LENGTH_DELIMITED) throw new MalformedExportError(`wire type ${wireType} where a string was expected`);
    const end = this.end(wireType);
    const start = this.reader.pos;
    this.reader.pos = end;
    // Buffer's own utf8Slice, as protobufjs reads strings: toString's argument handling costs more than the slice for short strings.
    return (this.buffer as Buffer & { utf8Slice(start: number, end: number): string }).utf8Slice(start, end);
  }

  /**
   * A KeyValue's key: a short ASCII key read before is found by a hash of
   * its bytes and compared byte for byte (no decode, the same string each
   * time); any other is decoded like a string.
   */
  private key(wireType: number): string {
    const end = this.end(wireType);
    const start = this.reader.pos;
    const buffer = this.buffer;
    this.reader.pos = end;
    const length = end - start;
    if (length > 64) return buffer.toString('utf8', start, end);
    let hash = 0x811c9dc5 ^ length;
    let bits = 0;
    for (let index = start; index < end; index += 1) {
      hash = Math.imul(hash ^ buffer[index], 0x01000193);
      bits |= buffer[index];
    }
    const known = keyTexts.get(hash);
    if (known !== undefined && known.length === length) {
      let index = 0;
      while (index < length && known.charCodeAt(index) === buffer[start + index]) index += 1;
      if (index === length) return known;
    }
    const text = buffer.toString('utf8', start, end);
    // Cached only when ASCII, whose bytes are its characters' codes (what the comparison above relies on).
    if (bits < 0x80) {
      if (keyTexts.size >= KEY_CACHE_SIZE) keyTexts.clear();
      keyTexts.set(hash, text);
    }
    return text;
  }

  /** An id of `bytes` bytes as lowercase hex; null when it has another length or is all zeros (OTLP's "no id"). */
  private id(wireType: number, bytes: number): string | null | undefined {
    const end = this.end(wireType);
    const start = this.reader.pos;
    this.reader.pos = end;
    if (end === start) return null;
    if (end - start !== bytes) return undefined;
    for (let index = start; index < end; index += 1) {
      if (this.buffer[index] !== 0) return this.buffer.toString('hex', start, end);
    }
    return null;
  }

  /** A fixed64 of nanoseconds as microseconds (exact: nanos = high × 2^32 + low); null when zero. */
  private micros(wireType: number): number | null {
    this.scalar(wireType, FIXED64);
    const low = this.reader.fixed32();
    const high = this.reader.fixed32();
    const us = high * 4294967 + Math.floor((high * 296 + low) / 1000);
    return us > 0 ? us : null;
  }

  request(reading: Reading): void {
    const reader = this.reader;
    const field = this.fields.request.resourceSpans;
    while (reader.pos < reader.len) {
      const tag = this.varint32();
      if (tag >>> 3 === field) this.resourceSpans(this.end(tag & 7), reading);
      else this.skip(tag & 7);
    }
  }

  private resourceSpans(end: number, reading: Reading): void {
    const reader = this.reader;
    const f = this.fields.resourceSpans;
    // The resource applies to every span of the group wherever it sits: read first, the scopes' spans after.
    // A repeated resource merges into one, as protobuf merges a repeated message field.
    const resource = new Attributes(this.limits);
    const scopes: number[] = [];
    while (reader.pos < end) {
      const tag = this.varint32();
      const field = tag >>> 3;
      if (field === f.resource) {
        this.resource(this.end(tag & 7), resource);
      } else if (field === f.scopeSpans) {
        const scopeEnd = this.end(tag & 7);
        scopes.push(reader.pos, scopeEnd);
        reader.pos = scopeEnd;
      } else {
        this.skip(tag & 7);
      }
    }
    this.closed(end);
    const spansField = this.fields.scopeSpans.spans;
    for (let index = 0; index < scopes.length; index += 2) {
      reader.pos = scopes[index];
      const scopeEnd = scopes[index + 1];
      while (reader.pos < scopeEnd) {
        const tag = this.varint32();
        if (tag >>> 3 !== spansField) {
          this.skip(tag & 7);
          continue;
        }
        const spanEnd = this.end(tag & 7);
        if (reading.room()) reading.add(this.span(spanEnd), resource.values);
        reader.pos = spanEnd;
      }
      this.closed(scopeEnd);
    }
    reader.pos = end;
  }

  private resource(end: number, attributes: Attributes): void {
    const reader = this.reader;
    while (reader.pos < end) {
      const tag = this.varint32();
      if (tag >>> 3 === this.fields.resource.attributes) this.keyValue(this.end(tag & 7), attributes, 0);
      else this.skip(tag & 7);
    }
    this.closed(end);
  }

  private span(end: number): RawSpan {
    const reader = this.reader;
    const f = this.fields.span;
    const raw: RawSpan = {
      traceId: null,
      spanId: null,
      parentSpanId: null,
      name: '',
      kind: 0,
      startUs: null,
      endUs: null,
      attributes: new Attributes(this.limits),
      droppedAttributesCount: 0,
      statusCode: 0,
      statusMessage: '',
      events: [],
      droppedEvents: 0,
      droppedEventsCount: 0,
    };
    while (reader.pos < end) {
      const tag = this.varint32();
      const field = tag >>> 3;
      const wireType = tag & 7;
      if (field === f.attributes) this.keyValue(this.end(wireType), raw.attributes, 0);
      else if (field === f.traceId) raw.traceId = this.id(wireType, 16) ?? null;
      else if (field === f.spanId) raw.spanId = this.id(wireType, 8) ?? null;
      else if (field === f.parentSpanId) raw.parentSpanId = this.id(wireType, 8);
      else if (field === f.name) raw.name = this.string(wireType);
      else if (field === f.startTimeUnixNano) raw.startUs = this.micros(wireType);
      else if (field === f.endTimeUnixNano) raw.endUs = this.micros(wireType);
      else if (field === f.kind) raw.kind = this.scalar(wireType, VARINT).int32();
      else if (field === f.status) this.status(this.end(wireType), raw);
      else if (field === f.events) this.event(this.end(wireType), raw);
      else if (field === f.droppedAttributesCount) raw.droppedAttributesCount = this.scalar(wireType, VARINT).uint32();
      else if (field === f.droppedEventsCount) raw.droppedEventsCount = this.scalar(wireType, VARINT).uint32();
      else this.skip(wireType);
    }
    this.closed(end);
    return raw;
  }

  private status(end: number, raw: RawSpan): void {
    const reader = this.reader;
    while (reader.pos < end) {
      const tag = this.varint32();
      if (tag >>> 3 === this.fields.status.code) raw.statusCode = this.scalar(tag & 7, VARINT).int32();
      else if (tag >>> 3 === this.fields.status.message) raw.statusMessage = this.string(tag & 7);
      else this.skip(tag & 7);
    }
    this.closed(end);
  }

  private event(end: number, raw: RawSpan): void {
    const reader = this.reader;
    if (raw.events.length >= this.limits.maxAttributes) {
      raw.droppedEvents += 1;
      reader.pos = end;
      return;
    }
    const f = this.fields.event;
    // The event and its attributes.
    build(this.limits, 2);
    const event: RawSpan['events'][number] = { name: '', timeUs: null, attributes: {} };
    const attributes = new Attributes(this.limits);
    while (reader.pos < end) {
      const tag = this.varint32();
      const field = tag >>> 3;
      if (field === f.name) event.name = this.string(tag & 7);
      else if (field === f.timeUnixNano) event.timeUs = this.micros(tag & 7);
      else if (field === f.attributes) this.keyValue(this.end(tag & 7), attributes, 0);
      else this.skip(tag & 7);
    }
    this.closed(end);
    event.attributes = attributes.values;
    raw.events.push(event);
  }

  /** One KeyValue (ending at `end`) into `attributes`, its value read only when the key is kept. */
  private keyValue(end: number, attributes: Attributes, depth: number): void {
    const reader = this.reader;
    let key: string | undefined;
    let valueStart = -1;
    let valueEnd = -1;
    while (reader.pos < end) {
      const tag = this.varint32();
      if (tag >>> 3 === this.fields.keyValue.key) {
        key = this.key(tag & 7);
      } else if (tag >>> 3 === this.fields.keyValue.value) {
        valueEnd = this.end(tag & 7);
        valueStart = reader.pos;
        reader.pos = valueEnd;
      } else {
        this.skip(tag & 7);
      }
    }
    this.closed(end);
    if (!attributes.accepts(key)) return;
    let value: unknown = null;
    if (valueStart >= 0) {
      reader.pos = valueStart;
      value = this.anyValue(valueEnd, depth);
      reader.pos = end;
    }
    attributes.set(key, value);
  }

  /** An AnyValue message (the last field of its oneof wins, as in protobuf). */
  private anyValue(end: number, depth: number): unknown {
    const reader = this.reader;
    if (depth > MAX_VALUE_DEPTH) {
      reader.pos = end;
      return null;
    }
    const f = this.fields.anyValue;
    let value: unknown = null;
    while (reader.pos < end) {
      const tag = this.varint32();
      const field = tag >>> 3;
      const wireType = tag & 7;
      if (field === f.stringValue) value = stringValue(this.string(wireType), this.limits);
      else if (field === f.intValue) value = intValue(this.scalar(wireType, VARINT).int64(), this.limits);
      else if (field === f.boolValue) value = this.scalar(wireType, VARINT).bool();
      else if (field === f.doubleValue) value = doubleValue(this.scalar(wireType, FIXED64).double());
      else if (field === f.arrayValue) value = this.arrayValue(this.end(wireType), depth);
      else if (field === f.kvlistValue) value = this.keyValueList(this.end(wireType), depth);
      else if (field === f.bytesValue) {
        const bytesEnd = this.end(wireType);
        value = this.buffer.toString('base64', reader.pos, Math.min(bytesEnd, reader.pos + (base64Length(this.limits) / 4) * 3));
        reader.pos = bytesEnd;
      } else this.skip(wireType);
    }
    this.closed(end);
    return value;
  }

  private arrayValue(end: number, depth: number): unknown[] {
    const reader = this.reader;
    build(this.limits, 1);
    const items: unknown[] = [];
    while (reader.pos < end) {
      const tag = this.varint32();
      if (tag >>> 3 !== this.fields.arrayValue.values) {
        this.skip(tag & 7);
        continue;
      }
      const itemEnd = this.end(tag & 7);
      if (items.length < this.limits.maxAttributes) items.push(this.anyValue(itemEnd, depth + 1));
      reader.pos = itemEnd;
    }
    this.closed(end);
    return items;
  }

  private keyValueList(end: number, depth: number): Record<string, unknown> {
    const reader = this.reader;
    build(this.limits, 1);
    const attributes = new Attributes(this.limits);
    while (reader.pos < end) {
      const tag = this.varint32();
      if (tag >>> 3 === this.fields.keyValueList.values) this.keyValue(this.end(tag & 7), attributes, depth + 1);
      else this.skip(tag & 7);
    }
    this.closed(end);
    return attributes.values;
  }
}
