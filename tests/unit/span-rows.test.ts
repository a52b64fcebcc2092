import { HEAD_BYTES, placedRows, readSpans, writeRows, type ExportRules } from '../../src/modules/traces/span-rows';

/**
 * An export's COPY rows written before its spans are placed (span-rows.ts):
 * each row's head is left as text no COPY accepts until placedRows writes
 * it, and the rows of spans refused by placement are left out.
 */
const RULES: ExportRules = { maxSpans: 100, maxAttributes: 8, maxAttributeLength: 64, maxContainers: 10_000, maxResourceBytes: 1 << 20, retentionDays: 30, oldestUs: 0, newestUs: Number.MAX_SAFE_INTEGER };
const ORG = '00000000-0000-4000-8000-000000000001';
const PLACE = { workspace_id: '00000000-0000-4000-8000-000000000002', project_id: '00000000-0000-4000-8000-000000000003', project_inferred: false };
const ns = String(BigInt(Date.now()) * 1_000_000n);
const span = (spanId: string, name: string) => ({ traceId: 'ab'.repeat(16), spanId, name, startTimeUnixNano: ns, endTimeUnixNano: ns, attributes: [] });
const body = (names: string[]) =>
  Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: names.map((name, index) => span(String(index + 1).padStart(16, '0'), name)) }] }] }));

it('leaves each head unwritten (no COPY accepts it) until the span is placed, and closes up the rows of spans not placed', () => {
  const prepared = writeRows(readSpans(body(['first', 'second', 'third']), 'json', RULES));
  const rows = Buffer.from(prepared.memory);
  expect(prepared.offsets).toHaveLength(4);
  for (const start of prepared.offsets.slice(0, 3)) expect(rows.toString('latin1', start, start + HEAD_BYTES)).toBe('!'.repeat(HEAD_BYTES));
  const data = placedRows(ORG, prepared, [PLACE, null, { ...PLACE, project_inferred: true }]).toString('utf8');
  const lines = data.split('\n').filter(Boolean);
  expect(lines.map((line) => line.split('\t').slice(0, 4).concat(line.split('\t')[7]))).toEqual([
    [ORG, PLACE.workspace_id, PLACE.project_id, 'f', 'first'],
    [ORG, PLACE.workspace_id, PLACE.project_id, 't', 'third'],
  ]);
  // Each row ends with its size: the UTF-8 length of its fields.
  for (const line of lines) expect(Number(line.slice(line.lastIndexOf('\t') + 1))).toBe(Buffer.byteLength(line.slice(0, line.lastIndexOf('\t'))));
  expect(() => placedRows(ORG, prepared, [PLACE])).toThrow('1 placements for 3 rows');
});
