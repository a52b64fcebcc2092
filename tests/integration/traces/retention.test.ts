import crypto from 'node:crypto';
import { createOrgWithRoles } from '../../factories/accounts';
import { rest } from '../../helpers/http';
import { useIsolatedTestApp } from '../../helpers/isolated-database';
import { plainQuery } from '../../../src/db/hot';
import { DAYS_AHEAD, ensureSpanPartitions } from '../../../src/modules/traces/span-partitions';
import { config } from '../../../src/config/config';

/** Span partitions on a database of their own: upkeep drops whole days, which would take other files' spans. */
const api = useIsolatedTestApp();
const DAY = 86_400_000;

async function partitions(): Promise<string[]> {
  const rows = await plainQuery<{ name: string }>(`SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'spans'::regclass ORDER BY 1`, {});
  return rows.map((row) => row.name);
}
const nameOf = (time: number) => `spans_p${new Date(time).toISOString().slice(0, 10).replace(/-/g, '')}`;

describe('span partitions and TRACE_RETENTION_DAYS', () => {
  it('creates a partition per day of the retention window ahead of time, and drops whole days past it', async () => {
    const now = Date.now();
    await ensureSpanPartitions(true, now);
    const made = await partitions();
    expect(made).toHaveLength(config().TRACE_RETENTION_DAYS + DAYS_AHEAD);
    expect(made).toContain(nameOf(now));
    expect(made).toContain(nameOf(now + DAYS_AHEAD * DAY));

    const { owner } = await createOrgWithRoles();
    const traceId = crypto.randomBytes(16).toString('hex');
    const start = BigInt(now) * 1_000_000n;
    const sent = await rest(api, 'POST', `/org/${owner.orgKey}/otel/traces`, {
      token: owner.token,
      body: { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId, spanId: crypto.randomBytes(8).toString('hex'), name: 'today', startTimeUnixNano: String(start), endTimeUnixNano: String(start + 1000n) }] }] }] },
    });
    expect(sent.body).toEqual({ accepted: 1, rejected: 0 });

    // A day past the window later, today's partition (and its span) is gone: DROP TABLE, no DELETE.
    const later = now + (config().TRACE_RETENTION_DAYS + 1) * DAY;
    await ensureSpanPartitions(true, later);
    const kept = await partitions();
    expect(kept).not.toContain(nameOf(now));
    expect(kept).toContain(nameOf(later + DAYS_AHEAD * DAY));
    expect((await rest(api, 'GET', `/org/${owner.orgKey}/ws/default/traces/${traceId}`, { token: owner.token })).status).toBe(404);
  });
});
