import path from 'node:path';
import fs from 'node:fs';
import protobuf from 'protobufjs';

/**
 * OTLP/HTTP trace exports decoded into span records (decisions §15).
 *
 * The protobuf form is decoded with protobufjs from the OpenTelemetry
 * project's own `.proto` files (opentelemetry-proto v1.11.0, vendored in
 * ./proto with their licence): `@opentelemetry/otlp-transformer` ships
 * request encoders only, and the `.proto` files are the protocol's definition
 * of record. Loaded without `keepCase`, protobufjs names fields in camelCase,
 * which is exactly OTLP/JSON's naming, so both forms go through one reader;
 * they differ only in how ids (bytes vs hex) and 64-bit times (Long vs
 * string) arrive.
 */

const PROTO_ROOT = [path.join(__dirname, 'proto'), path.resolve(__dirname, '../../../../src/modules/traces/proto')].find((dir) => fs.existsSync(dir))!;

let types: { request: protobuf.Type; response: protobuf.Type } | undefined;
function otlpTypes(): { request: protobuf.Type; response: protobuf.Type } {
  if (!types) {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
    root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
    types = {
      request: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
      response: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
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

/**
 * The decoded message itself, not `toObject`'s copy of it (a third of the
 * decode time): its fields read like OTLP/JSON's, ids as bytes, 64-bit times
 * as protobufjs Longs, an AnyValue's set field named by its `value` oneof.
 */
export function decodeProtobuf(body: Buffer): ExportRequest {
  const { request } = otlpTypes();
  try {
    return request.decode(body) as unknown as ExportRequest;
  } catch (error) {
    throw new MalformedExportError(`Not an OTLP ExportTraceServiceRequest: ${(error as Error).message}`);
  }
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
  reason: string;
}

const HEX = /^[0-9a-f]+$/;

function hexId(value: unknown, bytes: number): string | null {
  if (value === undefined || value === null || value === '') return null;
  let text: string;
  if (value instanceof Uint8Array) {
    if (value.length !== bytes) return null;
    text = Buffer.from(value.buffer, value.byteOffset, value.length).toString('hex');
  } else if (typeof value === 'string') {
    text = value.toLowerCase();
    if (text.length !== bytes * 2 || !HEX.test(text)) return null;
  } else {
    return null;
  }
  // All zeros is OTLP's "no id".
  return /^0+$/.test(text) ? null : text;
}

/** Nanoseconds (a decimal string, a number or a protobufjs Long) as microseconds. */
function micros(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  const long = value as { high?: unknown; low?: unknown; unsigned?: boolean };
  if (typeof long === 'object' && typeof long.high === 'number' && typeof long.low === 'number') {
    // A fixed64 Long, in exact integer steps: nanos = high × 2^32 + low = 1000 × (high × 4294967) + (high × 296 + low).
    const high = long.high >>> 0;
    const rest = high * 296 + (long.low >>> 0);
    const us = high * 4294967 + Math.floor(rest / 1000);
    return us > 0 ? us : null;
  }
  const text = String(value);
  if (!/^\d{1,20}$/.test(text)) return null;
  const nanos = BigInt(text);
  if (nanos === 0n) return null;
  return Number(nanos / 1000n);
}

/** A signed protobufjs Long within ±2^53 as a number, without its slow decimal text; null otherwise. */
function longNumber(value: unknown): number | null {
  const long = value as { high?: unknown; low?: unknown } | null;
  if (!long || typeof long !== 'object' || typeof long.high !== 'number' || typeof long.low !== 'number') return null;
  const number = long.high * 4294967296 + (long.low >>> 0);
  return Number.isSafeInteger(number) ? number : null;
}

/**
 * An OTLP AnyValue as JSON. Section 15: the SDK sends values that are not a
 * string, number or boolean as compact JSON text (`None` as "null"), so a
 * string holding a JSON array, object or null is read back as that value.
 */
function anyValue(value: unknown, limits: ExportLimits, depth = 0): unknown {
  if (!value || typeof value !== 'object' || depth > 8) return null;
  const v = value as Record<string, unknown>;
  // A decoded protobuf names its set field (`value` oneof); OTLP/JSON holds only that field.
  const kind = typeof v.value === 'string' ? v.value : Object.keys(v)[0];
  switch (kind) {
    case 'stringValue':
      return typeof v.stringValue === 'string' ? stringValue(v.stringValue, limits) : null;
    case 'boolValue':
      return v.boolValue === true || v.boolValue === 'true';
    case 'intValue': {
      const number = typeof v.intValue === 'number' ? v.intValue : longNumber(v.intValue) ?? Number(String(v.intValue));
      return Number.isSafeInteger(number) ? number : clean(String(v.intValue));
    }
    case 'doubleValue': {
      const number = Number(v.doubleValue);
      return Number.isFinite(number) ? number : null;
    }
    case 'arrayValue': {
      const values = (v.arrayValue as { values?: unknown } | null)?.values;
      return Array.isArray(values) ? values.slice(0, limits.maxAttributes).map((item) => anyValue(item, limits, depth + 1)) : [];
    }
    case 'kvlistValue':
      return keyValues((v.kvlistValue as { values?: unknown } | null)?.values, limits, depth + 1).values;
    case 'bytesValue':
      return v.bytesValue instanceof Uint8Array ? Buffer.from(v.bytesValue).toString('base64') : clean(String(v.bytesValue));
    default:
      return null;
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** PostgreSQL text and jsonb hold no NUL character (removed) and no lone UTF-16 surrogate (replaced by U+FFFD). */
export function clean(text: string): string {
  const withoutNul = text.includes('\0') ? text.replace(/\0/g, '') : text;
  return LONE_SURROGATE.test(withoutNul) ? withoutNul.replace(LONE_SURROGATES, '\uFFFD') : withoutNul;
}

/** `clean` through a parsed JSON value (only needed when its text escaped a surrogate). */
function deepClean(value: unknown): unknown {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) return value.map(deepClean);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [clean(key), deepClean(item)]));
  return value;
}

function stringValue(raw: string, limits: ExportLimits): unknown {
  const text = clean(raw);
  const first = text.charCodeAt(0);
  // '[' '{' or the text "null": JSON the SDK encoded (section 15). Anything that does not parse stays text
  // (as does JSON spelling a NUL character, which jsonb cannot hold).
  if ((first === 0x5b || first === 0x7b || text === 'null') && text.length <= limits.maxAttributeLength && !text.includes('\\u0000')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      // JSON may escape a lone surrogate (\ud800), which jsonb refuses: cleaned like any text.
      return /\\u[dD][89a-fA-F]/.test(text) ? deepClean(parsed) : parsed;
    } catch {
      // Text that only looks like JSON.
    }
  }
  return text.length > limits.maxAttributeLength ? text.slice(0, limits.maxAttributeLength) : text;
}

/** KeyValue list → object, at most maxAttributes keys (the rest counted as dropped). */
function keyValues(list: unknown, limits: ExportLimits, depth = 0): { values: Record<string, unknown>; dropped: number } {
  const values: Record<string, unknown> = {};
  if (!Array.isArray(list)) return { values, dropped: 0 };
  let kept = 0;
  let dropped = 0;
  for (const item of list) {
    const key = (item as { key?: unknown } | null)?.key;
    if (typeof key !== 'string' || !key || key.length > 255 || key.includes('\0') || key.includes('\\u0000') || clean(key) !== key) {
      dropped += 1;
      continue;
    }
    if (!(key in values) && kept >= limits.maxAttributes) {
      dropped += 1;
      continue;
    }
    if (!(key in values)) kept += 1;
    values[key] = anyValue((item as { value?: unknown }).value, limits, depth);
  }
  return { values, dropped };
}

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? clean(value.slice(0, max)) : '';
}

/**
 * Every span of an export, with the ones that cannot be stored set aside. A
 * payload that is not an export at all throws MalformedExportError; too many
 * spans is the caller's to refuse (the count comes back first).
 */
export function readExport(request: ExportRequest, limits: ExportLimits): { spans: SpanRecord[]; rejected: Rejection[]; pendingCopies: number } {
  if (!request || typeof request !== 'object' || Array.isArray(request)) throw new MalformedExportError('An export is an object with resourceSpans');
  const resourceSpans = request.resourceSpans ?? [];
  if (!Array.isArray(resourceSpans)) throw new MalformedExportError('resourceSpans must be a list');
  const spans: SpanRecord[] = [];
  const rejected: Rejection[] = [];
  let pendingCopies = 0;
  for (const group of resourceSpans as Record<string, unknown>[]) {
    if (!group || typeof group !== 'object') throw new MalformedExportError('resourceSpans holds a non-object');
    const resource = keyValues((group.resource as { attributes?: unknown } | undefined)?.attributes, limits).values;
    const scopeSpans = group.scopeSpans ?? [];
    if (!Array.isArray(scopeSpans)) throw new MalformedExportError('scopeSpans must be a list');
    for (const scope of scopeSpans as Record<string, unknown>[]) {
      const list = scope?.spans ?? [];
      if (!Array.isArray(list)) throw new MalformedExportError('spans must be a list');
      for (const raw of list as Record<string, unknown>[]) {
        if (!raw || typeof raw !== 'object') throw new MalformedExportError('spans holds a non-object');
        if (spans.length + rejected.length + pendingCopies >= limits.maxSpans) {
          // Counted, not read: the caller refuses the export whole.
          rejected.push({ span_id: null, reason: 'too many spans' });
          continue;
        }
        const read = readSpan(raw, resource, limits);
        if ('reason' in read) rejected.push(read);
        else if (read.attributes['logfire.span_type'] === 'pending_span') pendingCopies += 1;
        else spans.push(read);
      }
    }
  }
  return { spans, rejected, pendingCopies };
}

function readSpan(raw: Record<string, unknown>, resource: Record<string, unknown>, limits: ExportLimits): SpanRecord | Rejection {
  const traceId = hexId(raw.traceId, 16);
  const spanId = hexId(raw.spanId, 8);
  if (!traceId || !spanId) return { span_id: spanId, reason: 'trace_id must be 16 bytes and span_id 8 bytes, not all zero' };
  const start = micros(raw.startTimeUnixNano);
  const end = micros(raw.endTimeUnixNano);
  if (start === null || end === null || end < start) return { span_id: spanId, reason: 'start and end times must be set, the end not before the start' };
  const { values: attributes, dropped } = keyValues(raw.attributes, limits);
  if (dropped) attributes['otel.dropped_attributes_count'] = dropped + Number(raw.droppedAttributesCount ?? 0);
  const status = (raw.status ?? {}) as { code?: unknown; message?: unknown };
  const events = Array.isArray(raw.events)
    ? (raw.events as Record<string, unknown>[]).slice(0, limits.maxAttributes).map((event) => ({
        name: text(event?.name, 1024),
        time_us: micros(event?.timeUnixNano) ?? start,
        attributes: keyValues(event?.attributes, limits).values,
      }))
    : [];
  const kind = Number(raw.kind ?? 0);
  const statusCode = Number(status.code ?? 0);
  return {
    trace_id: traceId,
    span_id: spanId,
    parent_span_id: hexId(raw.parentSpanId, 8),
    name: text(raw.name, 1024),
    kind: Number.isInteger(kind) && kind >= 0 && kind <= 5 ? kind : 0,
    start_us: start,
    end_us: end,
    duration_ms: (end - start) / 1000,
    status_code: Number.isInteger(statusCode) && statusCode >= 0 && statusCode <= 2 ? statusCode : 0,
    status_message: typeof status.message === 'string' && status.message ? clean(status.message.slice(0, limits.maxAttributeLength)) : null,
    attributes,
    resource,
    events,
  };
}
