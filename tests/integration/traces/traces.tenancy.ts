import crypto from 'node:crypto';
import type { EndpointRow, Target, TenancySetup } from '../../helpers/tenancy';

/**
 * Trace endpoints of the tenancy matrix. `setup` exports one trace (OTLP/JSON)
 * into the target workspace's default project, so the reads address a trace
 * that exists; the ingest row is the one write (a reader meets 403).
 */
const traces = new Map<string, string>();
const ws = (t: Target) => `/org/${t.org}/ws/${t.ws}`;
const traceOf = (t: Target) => traces.get(`${t.org}/${t.ws}`) ?? [...traces.values()][0];
const one = (t: Target) => `${ws(t)}/traces/${traceOf(t)}`;

function exportFor(t: Target, traceId: string) {
  const start = BigInt(Date.now()) * 1_000_000n;
  return {
    resourceSpans: [
      {
        scopeSpans: [
          {
            spans: [
              {
                traceId,
                spanId: crypto.randomBytes(8).toString('hex'),
                name: 'tenancy root',
                startTimeUnixNano: String(start),
                endTimeUnixNano: String(start + 1_000_000n),
                attributes: [{ key: 'dreadnode.project', value: { stringValue: t.defaultProjectId } }],
              },
            ],
          },
        ],
      },
    ],
  };
}

export const setup: TenancySetup = async (t, sendAsOwner) => {
  const traceId = crypto.randomBytes(16).toString('hex');
  const sent = await sendAsOwner('POST', `/org/${t.org}/otel/traces`, exportFor(t, traceId));
  if (sent.status !== 200 || sent.body.accepted !== 1) throw new Error(`tenancy setup trace: ${sent.status} ${JSON.stringify(sent.body)}`);
  traces.set(`${t.org}/${t.ws}`, traceId);
};

export const rows: EndpointRow[] = [
  { method: 'GET', route: '/org/:org/ws/:workspace/traces', path: (t) => `${ws(t)}/traces` },
  { method: 'GET', route: '/org/:org/ws/:workspace/traces/:trace_id', path: one },
  { method: 'GET', route: '/org/:org/ws/:workspace/traces/:trace_id/spans', path: (t) => `${one(t)}/spans` },
  { method: 'GET', route: '/org/:org/ws/:workspace/traces/:trace_id/stats', path: (t) => `${one(t)}/stats` },
  { method: 'POST', route: '/org/:org/otel/traces', path: (t) => `/org/${t.org}/otel/traces`, body: (t) => exportFor(t, crypto.randomBytes(16).toString('hex')) },
];
