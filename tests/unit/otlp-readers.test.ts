import path from 'node:path';
import protobuf from 'protobufjs';
import { PayloadTooLargeError } from '../../src/core/errors';
import { MalformedExportError, readExport, readJsonExport, readProtobufExport, type ExportLimits } from '../../src/modules/traces/otlp';

/**
 * The two readers of an OTLP export (decisions §15): the protobuf one walks
 * the wire, the JSON one the parsed objects; both hand their fields to the
 * same rules. The same export in both encodings gives equal readings, for
 * every kind of value and every reason a span or attribute is refused.
 */
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => path.resolve(__dirname, '../../src/modules/traces/proto', target);
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
const Request = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

const LIMITS: ExportLimits = { maxSpans: 100, maxAttributes: 8, maxAttributeLength: 64, maxContainers: 10_000 };
const NOW_NS = BigInt(Date.now()) * 1_000_000n;
const ns = (offsetMs: number) => String(NOW_NS + BigInt(offsetMs) * 1_000_000n + 123_456n);
const TRACE = 'ab'.repeat(16);
const hexId = (n: number) => n.toString(16).padStart(16, '0');

/** OTLP/JSON → the same message for protobufjs: ids hex → bytes, bytesValue base64 → bytes. */
function protoForm(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => protoForm(item));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, protoForm(item, name)]));
  if (typeof value === 'string' && ['traceId', 'spanId', 'parentSpanId'].includes(key)) return Buffer.from(value, 'hex');
  if (typeof value === 'string' && key === 'bytesValue') return Buffer.from(value, 'base64');
  return value;
}

function both(json: object, limits = LIMITS) {
  const body = Buffer.from(Request.encode(Request.fromObject(protoForm(json) as object)).finish());
  return { fromJson: readJsonExport(json, limits), fromProtobuf: readProtobufExport(body, limits) };
}

const str = (value: string) => ({ stringValue: value });
const span = (n: number, extra: Record<string, unknown> = {}) => ({
  traceId: TRACE,
  spanId: hexId(n),
  parentSpanId: n === 1 ? '0000000000000000' : hexId(1),
  name: `span ${n}`,
  kind: 2,
  startTimeUnixNano: ns(n),
  endTimeUnixNano: ns(n + 5),
  ...extra,
});

const EXPORT = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: str('agent') }, { key: 'dreadnode.project', value: str('default') }] },
      scopeSpans: [
        {
          scope: { name: 'dreadnode' },
          spans: [
            span(1, {
              attributes: [
                { key: 'text', value: str('plain') },
                { key: 'object', value: str('{"a":[1,2,{"b":null}]}') },
                { key: 'none', value: str('null') },
                { key: 'not json', value: str('{oops') },
                { key: 'flag', value: { boolValue: true } },
                { key: 'small', value: { intValue: '-42' } },
                { key: 'huge', value: { intValue: '9007199254740993' } },
                { key: 'ratio', value: { doubleValue: 0.25 } },
                // Beyond the 8 kept keys: dropped and counted.
                { key: 'ninth', value: str('x') },
              ],
              droppedAttributesCount: 2,
              status: { code: 2, message: 'boom\u0000!' },
            }),
            span(2, {
              attributes: [
                { key: 'nul', value: str('a\u0000b') },
                { key: 'long', value: str('y'.repeat(100)) },
                { key: 'bytes', value: { bytesValue: Buffer.from('raw bytes').toString('base64') } },
                {
                  key: 'list',
                  value: {
                    arrayValue: {
                      values: [str('one'), { intValue: '2' }, { kvlistValue: { values: [{ key: 'inner', value: { boolValue: false } }, { key: '', value: str('bad key') }] } }],
                    },
                  },
                },
                { key: 'deep', value: nested(12) },
                { key: '', value: str('empty key') },
                { key: 'k'.repeat(256), value: str('long key') },
                { key: 'text', value: str('first') },
                { key: 'text', value: str('second wins') },
                { key: 'unset', value: {} },
              ],
              events: [{ name: 'retry', timeUnixNano: ns(3), attributes: [{ key: 'attempt', value: { intValue: '2' } }] }, { name: 'no time' }],
              kind: 9,
            }),
            span(3, { attributes: [{ key: 'logfire.span_type', value: str('pending_span') }] }),
            span(4, { endTimeUnixNano: ns(-10) }),
            span(5, { endTimeUnixNano: undefined }),
            span(6, { traceId: '00'.repeat(16) }),
            span(7, { spanId: 'abcdef' }),
          ],
        },
        {
          spans: [
            span(8, {
              name: 'second scope',
              // Past maxAttributes (8): array items and events are cut.
              attributes: [{ key: 'many', value: { arrayValue: { values: Array.from({ length: 10 }, (_, index) => ({ intValue: String(index) })) } } }],
              events: Array.from({ length: 10 }, (_, index) => ({ name: `event ${index}`, timeUnixNano: ns(8) })),
              droppedEventsCount: 3,
            }),
          ],
        },
      ],
    },
    {
      scopeSpans: [
        {
          spans: [
            span(9, {
              name: 'no resource',
              // Keys that name Object.prototype's members are attributes like any other.
              attributes: [
                { key: '__proto__', value: str('{"logfire.span_type":"pending_span"}') },
                { key: 'constructor', value: str('c') },
              ],
            }),
          ],
        },
      ],
    },
  ],
};

function nested(depth: number): object {
  return depth === 0 ? str('bottom') : { arrayValue: { values: [nested(depth - 1)] } };
}

it('reads an export alike from protobuf and from JSON: values, limits, refusals, pending copies', () => {
  const { fromJson, fromProtobuf } = both(EXPORT);
  expect(fromProtobuf).toEqual(fromJson);
  // And what they read is what the rules say (so equality is not two readers agreeing on nothing).
  expect(fromJson.spans.map((item) => item.span_id)).toEqual([hexId(1), hexId(2), hexId(8), hexId(9)]);
  expect(fromJson.pendingCopies).toBe(1);
  expect(fromJson.rejected.map((item) => item.span_id)).toEqual([hexId(4), hexId(5), hexId(6), null]);
  const [first, second, , last] = fromJson.spans;
  expect(first).toMatchObject({
    parent_span_id: null,
    kind: 2,
    status_code: 2,
    status_message: 'boom!',
    resource: { 'service.name': 'agent', 'dreadnode.project': 'default' },
    attributes: {
      text: 'plain',
      object: { a: [1, 2, { b: null }] },
      none: null,
      'not json': '{oops',
      flag: true,
      small: -42,
      huge: '9007199254740993',
      ratio: 0.25,
      'otel.dropped_attributes_count': 3,
    },
  });
  expect(first.start_us).toBe(Number((NOW_NS + 1_000_000n + 123_456n) / 1000n));
  expect(first.duration_ms).toBe(5);
  expect(second).toMatchObject({
    kind: 0,
    attributes: { nul: 'ab', long: 'y'.repeat(64), bytes: Buffer.from('raw bytes').toString('base64'), list: ['one', 2, { inner: false }], text: 'second wins', unset: null },
    events: [
      { name: 'retry', time_us: Number((NOW_NS + 3_000_000n + 123_456n) / 1000n), attributes: { attempt: 2 } },
      { name: 'no time', time_us: second.start_us, attributes: {} },
    ],
  });
  expect(JSON.stringify(second.attributes.deep)).toBe(`${'['.repeat(9)}null${']'.repeat(9)}`);
  expect(second.attributes['otel.dropped_attributes_count']).toBe(2);
  expect(last.resource).toEqual({});
  expect(Object.keys(last.attributes)).toEqual(['__proto__', 'constructor']);
  expect(last.attributes['logfire.span_type']).toBeUndefined();
  expect(JSON.parse(JSON.stringify(last.attributes)).__proto__).toEqual({ 'logfire.span_type': 'pending_span' });
  expect(fromJson.spans[2].attributes.many).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  expect(fromJson.spans[2].events).toHaveLength(8);
  // The two events dropped are counted, with the three the sender dropped.
  expect(fromJson.spans[2].attributes['otel.dropped_events_count']).toBe(5);
  expect(second.attributes['otel.dropped_events_count']).toBeUndefined();
});

it('counts the spans past maxSpans alike, without reading them', () => {
  const { fromJson, fromProtobuf } = both(EXPORT, { ...LIMITS, maxSpans: 3 });
  expect(fromProtobuf).toEqual(fromJson);
  expect(fromJson.overLimit).toBe(6);
  expect(fromJson.spans.length + fromJson.rejected.length + fromJson.pendingCopies).toBe(3);
});

it('reads a resource wherever it sits in its group, a repeated one merged (protobuf merges repeated message fields)', () => {
  const Resource = root.lookupType('opentelemetry.proto.resource.v1.Resource');
  const ScopeSpans = root.lookupType('opentelemetry.proto.trace.v1.ScopeSpans');
  const message = (field: number, bytes: Uint8Array) => protobuf.Writer.create().uint32((field << 3) | 2).bytes(bytes).finish();
  const resource = (key: string) => Resource.encode(Resource.fromObject({ attributes: [{ key, value: str(key) }] })).finish();
  const scope = ScopeSpans.encode(ScopeSpans.fromObject(protoForm({ spans: [span(1)] }) as object)).finish();
  const group = Buffer.concat([message(2, scope), message(1, resource('first')), message(1, resource('second'))]);
  const reading = readProtobufExport(message(1, group), LIMITS);
  expect(reading.spans.map((item) => item.resource)).toEqual([{ first: 'first', second: 'second' }]);
});

it('refuses bytes that are not an export as malformed', () => {
  const body = Buffer.from(Request.encode(Request.fromObject(protoForm(EXPORT) as object)).finish());
  // A span whose kind (a varint) comes length-delimited.
  const Span = root.lookupType('opentelemetry.proto.trace.v1.Span');
  const badKind = Buffer.concat([Span.encode(Span.fromObject(protoForm(span(1)) as object)).finish(), Buffer.from([(6 << 3) | 2, 1, 0x41])]);
  const wrapped = (field: number, bytes: Uint8Array) => protobuf.Writer.create().uint32((field << 3) | 2).bytes(bytes).finish();
  const badKindExport = wrapped(1, wrapped(2, wrapped(2, badKind)));
  for (const bad of [body.subarray(0, body.length - 7), Buffer.from('not protobuf at all, just text'), Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), badKindExport]) {
    expect(() => readProtobufExport(bad, LIMITS)).toThrow(MalformedExportError);
  }
  expect(readProtobufExport(Buffer.alloc(0), LIMITS)).toEqual({ spans: [], rejected: [], pendingCopies: 0, overLimit: 0 });
});

it('keeps JSON text nested past MAX_VALUE_DEPTH as text, and holds integers past 2^53 and bytes to the value length limit, alike', () => {
  const deepJson = `${'['.repeat(6000)}1${']'.repeat(6000)}`;
  const { fromJson, fromProtobuf } = both(
    {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                span(1, {
                  attributes: [
                    { key: 'deep', value: str(deepJson) },
                    { key: 'deep surrogate', value: str(`${'['.repeat(20)}"\\ud800"${']'.repeat(20)}`) },
                    { key: 'shallow', value: str(`${'['.repeat(8)}1${']'.repeat(8)}`) },
                  ],
                }),
              ],
            },
          ],
        },
      ],
    },
    { ...LIMITS, maxAttributeLength: 16_384 },
  );
  expect(fromProtobuf).toEqual(fromJson);
  const attributes = fromJson.spans[0].attributes;
  expect(attributes.deep).toBe(deepJson.slice(0, 16_384));
  expect(attributes['deep surrogate']).toBe(`${'['.repeat(20)}"\\ud800"${']'.repeat(20)}`);
  expect(JSON.stringify(attributes.shallow)).toBe(`${'['.repeat(8)}1${']'.repeat(8)}`);
  // Whatever was read can be written (JSON.stringify no longer meets a value it cannot serialise).
  expect(() => JSON.stringify(attributes)).not.toThrow();

  const attributeList = [{ key: 'int text', value: { intValue: '9223372036854775807' } }, { key: 'bytes', value: { bytesValue: Buffer.alloc(100, 7).toString('base64') } }];
  // A limit that is not a multiple of 4 keeps whole base64 groups in both readers.
  const small = both({ resourceSpans: [{ scopeSpans: [{ spans: [span(1, { attributes: attributeList })] }] }] }, { ...LIMITS, maxAttributeLength: 18 });
  expect(small.fromProtobuf).toEqual(small.fromJson);
  expect(small.fromJson.spans[0].attributes).toEqual({ 'int text': '922337203685477580', bytes: Buffer.alloc(12, 7).toString('base64') });
});

it('builds at most maxContainers arrays and objects reading an export: a JSON body or a protobuf export past it is 413, JSON text values past what is left stay text', () => {
  // 10 arrays and objects per value: the fourth does not fit in 35 (3 × 10 + 10 > 35), the fifth (4) does.
  const tenContainers = `[${'{},'.repeat(8)}{}]`;
  const values = [tenContainers, tenContainers, tenContainers, tenContainers, '{"a":[[],[]]}'];
  const exported = { resourceSpans: [{ scopeSpans: [{ spans: [span(1, { attributes: values.map((value, index) => ({ key: `v${index}`, value: str(value) })) })] }] }] };
  const { fromJson, fromProtobuf } = both(exported, { ...LIMITS, maxAttributeLength: 1000, maxContainers: 35 });
  expect(fromProtobuf).toEqual(fromJson);
  expect(fromJson.spans[0].attributes).toEqual({ v0: JSON.parse(tenContainers), v1: JSON.parse(tenContainers), v2: JSON.parse(tenContainers), v3: tenContainers, v4: { a: [[], []] } });

  // The body's own arrays and objects count first: this one holds 10, its value 2 more.
  const body = Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span(1, { attributes: [{ key: 'v', value: str('[[]]') }] })] }] }] }));
  expect(readExport(body, 'json', { ...LIMITS, maxContainers: 11 }).spans[0].attributes).toEqual({ v: '[[]]' });
  expect(readExport(body, 'json', { ...LIMITS, maxContainers: 12 }).spans[0].attributes).toEqual({ v: [[]] });
  // A body holding more than the limit (here 100,004) is refused before it is parsed, wherever they are (here under a key no reader looks at).
  const dense = Buffer.from(`{"resourceSpans": [], "x": [${'{},'.repeat(100_000)}{}]}`);
  expect(() => readExport(dense, 'json', { ...LIMITS, maxContainers: 100_003 })).toThrow(PayloadTooLargeError);
  expect(() => readExport(dense, 'json', { ...LIMITS, maxContainers: 100_003 })).toThrow('An OTLP export holds at most 100003 arrays and objects (OTLP_MAX_INFLATED_BYTES / 8)');
  expect(readExport(dense, 'json', { ...LIMITS, maxContainers: 100_004 }).spans).toEqual([]);

  // A protobuf export's own lists, key-value lists and events (an event and its attributes) count too: here 1 + 1 + 1 + 2.
  const nested = { resourceSpans: [{ scopeSpans: [{ spans: [span(1, { attributes: [{ key: 'l', value: { arrayValue: { values: [{ arrayValue: {} }, { kvlistValue: {} }] } } }], events: [{ name: 'e', timeUnixNano: ns(2) }] })] }] }] };
  const wire = Buffer.from(Request.encode(Request.fromObject(protoForm(nested) as object)).finish());
  expect(readExport(wire, 'protobuf', { ...LIMITS, maxContainers: 5 }).spans[0].attributes).toEqual({ l: [[], {}] });
  expect(() => readExport(wire, 'protobuf', { ...LIMITS, maxContainers: 4 })).toThrow(PayloadTooLargeError);
  expect(() => readExport(wire, 'protobuf', { ...LIMITS, maxContainers: 4 })).toThrow('An OTLP export holds at most 4 arrays and objects (OTLP_MAX_INFLATED_BYTES / 8)');
});

it('reads a JSON field of the wrong kind (an object where text or a number goes) as absent, never a TypeError', () => {
  const hostile = { toString: 1, valueOf: 1 };
  const reading = readJsonExport(
    {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                span(1, {
                  attributes: [
                    { key: 'int', value: { intValue: hostile } },
                    { key: 'bytes', value: { bytesValue: hostile } },
                    { key: 'long', value: { intValue: { high: 1e10, low: 1, toString: 1 } } },
                    { key: 'double', value: { doubleValue: hostile } },
                  ],
                }),
                span(2, { startTimeUnixNano: hostile }),
                span(3, { events: [{ name: 'e', timeUnixNano: hostile }], kind: hostile, status: { code: hostile, message: hostile }, droppedAttributesCount: hostile }),
              ],
            },
          ],
        },
      ],
    } as never,
    LIMITS,
  );
  expect(reading.spans.map((item) => item.span_id)).toEqual([hexId(1), hexId(3)]);
  expect(reading.spans[0].attributes).toEqual({ int: null, bytes: null, long: null, double: null });
  expect(reading.spans[1]).toMatchObject({ kind: 0, status_code: 0, status_message: null });
  expect(reading.spans[1].events[0].time_us).toBe(reading.spans[1].start_us);
  expect(reading.rejected).toEqual([{ span_id: hexId(2), reason: expect.stringContaining('start and end times') }]);
});

it('reads every key the same however often it recurs (the key caches): refused ones each time, non-ASCII ones, keys of one length, past the caches size', () => {
  // '5xdt25vo' and 'n5xfpifo' share their length and their hash: each is read through the other's cache entry.
  const keys = ['k', 'ab', 'ba', 'café', 'ключ', 'a\u0000', 'x'.repeat(65), 'x'.repeat(64), '5xdt25vo', 'n5xfpifo', 'k'];
  const exportOf = (names: string[]) => ({
    resourceSpans: [{ scopeSpans: [{ spans: [1, 2, 3].map((n) => span(n, { attributes: names.map((key, index) => ({ key, value: { intValue: String(n * 100 + index) } })) })) }] }],
  });
  const expected = (n: number) => ({
    k: n * 100 + 10,
    ab: n * 100 + 1,
    ba: n * 100 + 2,
    café: n * 100 + 3,
    ключ: n * 100 + 4,
    ['x'.repeat(65)]: n * 100 + 6,
    ['x'.repeat(64)]: n * 100 + 7,
    '5xdt25vo': n * 100 + 8,
    n5xfpifo: n * 100 + 9,
    'otel.dropped_attributes_count': 1,
  });
  const limits = { ...LIMITS, maxAttributes: 16 };
  const first = both(exportOf(keys), limits);
  expect(first.fromProtobuf).toEqual(first.fromJson);
  expect(first.fromProtobuf.spans.map((item) => ({ ...item.attributes }))).toEqual([1, 2, 3].map(expected));
  // More distinct keys than the caches hold (they start over), then the same export again.
  for (let batch = 0; batch < 11; batch += 1) {
    both(exportOf(Array.from({ length: 1000 }, (_, index) => `key ${batch} ${index}`)), { ...limits, maxAttributes: 1000 });
  }
  const again = both(exportOf(keys), limits);
  expect(again.fromProtobuf).toEqual(first.fromProtobuf);
  expect(again.fromJson).toEqual(first.fromJson);
});

it("holds keys named after Object.prototype's members to maxAttributes like any other key, alike", () => {
  const ordinary = Array.from({ length: LIMITS.maxAttributes }, (_, index) => ({ key: `k${index}`, value: str('v') }));
  const members = ['constructor', 'toString', 'hasOwnProperty', '__proto__'].map((key) => ({ key, value: str(key) }));
  const { fromJson, fromProtobuf } = both({ resourceSpans: [{ scopeSpans: [{ spans: [span(1, { attributes: [...ordinary, ...members] })] }] }] });
  expect(fromProtobuf).toEqual(fromJson);
  const { attributes } = fromJson.spans[0];
  expect(Object.keys(attributes)).toEqual([...ordinary.map((item) => item.key), 'otel.dropped_attributes_count']);
  expect(attributes['otel.dropped_attributes_count']).toBe(4);
  expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
});

it('reads the attributes the rules name as own properties only: a polluted Object.prototype neither drops nor places a span', () => {
  const prototype = Object.prototype as Record<string, unknown>;
  prototype['logfire.span_type'] = 'pending_span';
  try {
    const { fromJson, fromProtobuf } = both({ resourceSpans: [{ scopeSpans: [{ spans: [span(1, { attributes: [{ key: 'k', value: str('v') }] })] }] }] });
    expect(fromProtobuf).toEqual(fromJson);
    expect(fromJson.pendingCopies).toBe(0);
    expect(fromJson.spans).toHaveLength(1);
  } finally {
    delete prototype['logfire.span_type'];
  }
});

it('refuses a span whose parent id is sent but is not 8 bytes (it would become a second root), alike in both encodings; an empty or all-zero parent is a root', () => {
  const spans = [span(1), span(2, { parentSpanId: 'abcd' }), span(3, { parentSpanId: '' }), span(4, { parentSpanId: '00'.repeat(8) })];
  const { fromJson, fromProtobuf } = both({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
  expect(fromProtobuf).toEqual(fromJson);
  expect(fromJson.rejected).toEqual([{ span_id: hexId(2), reason: 'parent_span_id must be 8 bytes, or empty for a root' }]);
  expect(fromJson.spans.map((item) => [item.span_id, item.parent_span_id])).toEqual([[hexId(1), null], [hexId(3), null], [hexId(4), null]]);
});
