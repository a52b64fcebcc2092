import { parse } from 'graphql';
import { QueryTypes } from 'sequelize';
import type { App } from '../src/app';
import { config } from '../src/config/config';
import { operationCost } from '../src/core/graphql-limits';
import { database } from '../src/db/database';
import { signAccessToken } from '../src/modules/accounts/jwt';
import { log, startService, withBenchDatabase } from './harness';
import { percentile } from './load';
import { seed } from './sessions.bench';

/**
 * The GraphQL cost budget, measured: over the sessions benchmark's data
 * (1,000,000 sessions), each candidate shape of "most expensive query" is
 * grown to the largest size the default budget admits, then timed over
 * loopback HTTP one request at a time (server time = p50 of the round trip,
 * reply fully read). The target: the slowest admitted query takes at most
 * 250 ms. Shapes over the budget are shown refused (422) with their cost.
 *
 * Options (environment): BENCH_DATABASE_URL, BENCH_SESSIONS (default
 * 1000000), BENCH_RUNS (timed runs per shape, default 15).
 */
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const TARGET_MS = 250;

interface Shape {
  name: string;
  /** The query for size n (n >= 1). */
  build: (n: number) => string;
  max: number;
}

const USAGE = 'usage { total_message_count total_input_tokens total_output_tokens total_cost_usd }';
const SEARCHES = ['refactoring', 'billing', 'authentication', 'search', 'deployment', 'onboarding', 'Session 1', 'Session 2', 'Session 3', 'md5'];

function shapes(org: string, ws: string): Shape[] {
  const scope = `org: "${org}", workspace: "${ws}"`;
  return [
    {
      name: 'facets (unfiltered) + sessions(limit n)',
      build: (n) => `{ f: session_facets(${scope}) { agents { value count } models { value count } users { id count } labels group_kinds { value count } }
                       s: sessions(${scope}, limit: ${Math.min(n, 100)}) { total sessions { id title } } }`,
      max: 100,
    },
    {
      name: 'n aliased session lists with a search (count + page each)',
      build: (n) =>
        `{ ${Array.from({ length: n }, (_, i) => `l${i}: sessions(${scope}, limit: 1, search: "${SEARCHES[i % SEARCHES.length]}") { total sessions { id } }`).join(' ')} }`,
      max: 30,
    },
    {
      name: 'n aliased session lists sorted by created_at (count + page each)',
      build: (n) =>
        `{ ${Array.from({ length: n }, (_, i) => `l${i}: sessions(${scope}, limit: 1, sort_by: created_at, page: ${i + 1}) { total sessions { id } }`).join(' ')} }`,
      max: 30,
    },
    {
      name: 'dashboard: sessions(limit n) with group, creator, project, usage, 5 messages',
      build: (n) =>
        `{ sessions(${scope}, limit: ${n}, sort_by: created_at) { total sessions { id title group { kind status session_count total_tokens } creator { username } project { key } ${USAGE} messages(limit: 5) { seq content } } } }`,
      max: 100,
    },
    {
      name: 'sessions(limit 100) → group → sessions(limit n)',
      build: (n) => `{ sessions(${scope}, limit: 100) { sessions { id group { id sessions(limit: ${n}) { id title group { kind } } } } } }`,
      max: 100,
    },
    {
      name: 'session_groups(limit 100) with stats → sessions(limit n) with usage',
      build: (n) =>
        `{ session_groups(${scope}, limit: 100) { groups { id session_count message_count total_tokens sessions(limit: ${n}) { id ${USAGE} } } } }`,
      max: 100,
    },
    {
      name: 'workspaces → sessions(limit n) → group → sessions(limit 10)',
      build: (n) => `{ workspaces(org: "${org}") { workspaces { key sessions(limit: ${n}) { id group { kind sessions(limit: 10) { id } } } } } }`,
      max: 100,
    },
    {
      name: 'session_groups(limit n) with stats',
      build: (n) => `{ session_groups(${scope}, limit: ${n}) { groups { id session_count active_session_count message_count total_tokens last_activity_at } } }`,
      max: 100,
    },
    {
      name: 'session_groups(limit n) without stats',
      build: (n) => `{ session_groups(${scope}, limit: ${n}) { total groups { id kind status title } } }`,
      max: 100,
    },
    {
      name: 'sessions(limit n) → group with stats',
      build: (n) => `{ sessions(${scope}, limit: ${n}) { sessions { id group { id session_count total_tokens } } } }`,
      max: 100,
    },
    {
      name: 'sessions(limit n) sorted by created_at, usage',
      build: (n) => `{ sessions(${scope}, limit: ${n}, sort_by: created_at) { sessions { id ${USAGE} } } }`,
      max: 100,
    },
    {
      name: 'one session list with a search',
      build: () => `{ sessions(${scope}, limit: 1, search: "billing") { total sessions { id } } }`,
      max: 1,
    },
    {
      name: 'the issue: four levels of sessions(limit 100) → group',
      build: () =>
        `{ workspace(${scope}) { sessions(limit: 100) { id group { sessions(limit: 100) { id group { sessions(limit: 100) { id group { sessions(limit: 100) { id } } } } } } } } }`,
      max: 1,
    },
  ];
}

async function seedLogged(): Promise<Awaited<ReturnType<typeof seed>>> {
  log('generating the sessions benchmark data');
  const fixture = await seed();
  log(`data ready: organization ${fixture.orgKey} (BENCH_ORG=${fixture.orgKey} with BENCH_DATABASE_URL reuses it)`);
  return fixture;
}

/** The fixture of an organization seeded by an earlier run on the same BENCH_DATABASE_URL. */
async function existing(orgKey: string): Promise<Awaited<ReturnType<typeof seed>>> {
  const [row] = await database().query<{ org_id: string; viewer_id: string }>(
    `SELECT o.id AS org_id, m.user_id AS viewer_id FROM organizations o JOIN memberships m ON m.organization_id = o.id AND m.role = 'owner' WHERE o.key = $key`,
    { bind: { key: orgKey }, type: QueryTypes.SELECT },
  );
  if (!row) throw new Error(`BENCH_ORG ${orgKey} is not in this database`);
  const workspaces = await database().query<{ id: string; key: string }>('SELECT id, key FROM workspaces WHERE organization_id = $org ORDER BY key', {
    bind: { org: row.org_id },
    type: QueryTypes.SELECT,
  });
  return { orgKey, orgId: row.org_id, workspaceIds: workspaces.map((w) => w.id), workspaceKeys: workspaces.map((w) => w.key), viewerId: row.viewer_id };
}

export async function main(): Promise<void> {
  await withBenchDatabase('limits', 10, async () => {
  const fixture = process.env.BENCH_ORG ? await existing(process.env.BENCH_ORG) : await seedLogged();
    const service = await startService();
    try {
      await measure(service.app, `${service.base}/graphql`, fixture);
    } finally {
      await service.stop();
    }
  });
}

async function measure(app: App, endpoint: string, fixture: Awaited<ReturnType<typeof seed>>): Promise<void> {
  const token = signAccessToken({ id: fixture.viewerId, token_version: 0 });
  const budget = config().GRAPHQL_MAX_COST;
  log(`budget: cost ${budget}, depth ${config().GRAPHQL_MAX_DEPTH}, aliases ${config().GRAPHQL_MAX_ALIASES}`);

  const post = async (query: string) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    const text = await response.text();
    return { status: response.status, bytes: text.length, text };
  };
  const cost = (query: string) => operationCost(app.schema, parse(query));

  const rows: { name: string; n: number; cost: number; status: number; p50: number; p99: number; kb: number }[] = [];
  for (const shape of shapes(fixture.orgKey, fixture.workspaceKeys[0])) {
    // The largest size the budget admits (cost grows with n).
    let n = shape.max;
    while (n > 1 && cost(shape.build(n)) > budget) n -= 1;
    const query = shape.build(n);
    const first = await post(query);
    if (first.status !== 200 || first.text.includes('"errors"')) {
      rows.push({ name: shape.name, n, cost: cost(query), status: first.status, p50: NaN, p99: NaN, kb: first.bytes / 1024 });
      log(`${shape.name}: refused at n=${n} (${first.status}) ${first.text.slice(0, 160)}`);
      continue;
    }
    const times: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const t0 = performance.now();
      await post(query);
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    rows.push({ name: shape.name, n, cost: cost(query), status: 200, p50: percentile(times, 50), p99: percentile(times, 99), kb: first.bytes / 1024 });
    log(`${shape.name}: n=${n}, cost ${cost(query)}, p50 ${percentile(times, 50).toFixed(1)} ms, reply ${(first.bytes / 1024).toFixed(0)} KiB`);
  }

  console.log(`\nBudget: cost ${budget}, depth ${config().GRAPHQL_MAX_DEPTH}, aliases ${config().GRAPHQL_MAX_ALIASES}, tokens ${config().GRAPHQL_MAX_TOKENS}\n`);
  console.log('| shape | largest admitted n | cost | status | p50 (ms) | p99 (ms) | reply (KiB) |');
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(`| ${row.name} | ${row.n} | ${row.cost} | ${row.status} | ${row.p50.toFixed(1)} | ${row.p99.toFixed(1)} | ${row.kb.toFixed(0)} |`);
  }
  const admitted = rows.filter((row) => row.status === 200);
  const worst = admitted.reduce((a, b) => (b.p50 > a.p50 ? b : a), admitted[0]);
  console.log(`\nSlowest admitted query: ${worst.name} (n=${worst.n}) p50 ${worst.p50.toFixed(1)} ms: target <= ${TARGET_MS} ms ${worst.p50 <= TARGET_MS ? 'met' : 'MISSED'}`);
}
