import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { signAccessToken } from '../src/modules/accounts/jwt';
import { database } from '../src/db/database';
import type { SessionFilterArgs } from '../src/modules/sessions/sessions.inputs';
import { facetSql, sessionCountSql, sessionPageSql, sessionWhere } from '../src/modules/sessions/sessions.sql';
import { SessionSortBy, SortDirection } from '../src/modules/sessions/sessions.types';
import { recountGroups } from '../src/modules/session-groups/group-rollups';
import { FACET_COUNTS_SQL, usesFacetCounts } from '../src/modules/sessions/facet-counts';

import { log, startService, withBenchDatabase } from './harness';
import { load, percentile, timeIt, type LoadResult } from './load';

/**
 * Sessions at scale: 1,000,000 sessions over 10 workspaces, generated in SQL
 * (INSERT … SELECT generate_series), then the facets endpoint (unfiltered and
 * filtered) and the list endpoint measured over loopback HTTP at 2 and 20
 * connections, beside the same SQL run directly against the database.
 *
 * Options (environment): BENCH_DATABASE_URL (use this server instead of an
 * embedded one), BENCH_SESSIONS (default 1000000), BENCH_REQUESTS (per run,
 * default 300), BENCH_SECONDS (per run, default 20), BENCH_EXPLAIN=1 (print
 * EXPLAIN ANALYZE of each measured statement).
 */
const TOTAL = Number(process.env.BENCH_SESSIONS ?? 1_000_000);
const WORKSPACES = 10;
const USERS = 50;
const GROUPS_PER_WORKSPACE = 100;
const CHUNK = 100_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const SQL_RUNS = 30;
/** The list scenario's first page (limit 20). */
const PAGE = { limit: 20, offset: 0 };

interface Fixture {
  orgKey: string;
  orgId: string;
  workspaceIds: string[];
  workspaceKeys: string[];
  viewerId: string;
}

export async function seed(): Promise<Fixture> {
  const db = database();
  const suffix = crypto.randomBytes(3).toString('hex');
  const orgKey = `bench-${suffix}`;
  const select = { type: QueryTypes.SELECT } as const;
  const users = await db.query<{ id: string }>(
    `INSERT INTO users (email, username, full_name, password_hash)
     SELECT 'bench' || i || '-' || $suffix || '@example.test', 'bench' || i || '-' || $suffix, 'Bench User ' || i, 'not-a-hash'
       FROM generate_series(1, $n::int) AS i ORDER BY i RETURNING id`,
    { ...select, bind: { suffix, n: USERS } },
  );
  const userIds = users.map((row) => row.id);
  const [org] = await db.query<{ id: string }>(
    `INSERT INTO organizations (key, name) VALUES ($key, 'Bench') RETURNING id`,
    { ...select, bind: { key: orgKey } },
  );
  await db.query(
    `INSERT INTO memberships (organization_id, user_id, role)
     SELECT $org, u, CASE WHEN u = $owner::uuid THEN 'owner' ELSE 'contributor' END::member_role FROM unnest($users::uuid[]) AS u`,
    { bind: { org: org.id, owner: userIds[0], users: userIds } },
  );
  const workspaceKeys = Array.from({ length: WORKSPACES }, (_, index) => `ws-${index}`);
  const workspaces = await db.query<{ id: string }>(
    `INSERT INTO workspaces (organization_id, key, name, is_default)
     SELECT $org, k, k, k = 'ws-0' FROM unnest($keys::text[]) WITH ORDINALITY AS t(k, n) ORDER BY n RETURNING id`,
    { ...select, bind: { org: org.id, keys: workspaceKeys } },
  );
  const workspaceIds = workspaces.map((row) => row.id);
  const projects = await db.query<{ id: string }>(
    `INSERT INTO projects (organization_id, workspace_id, key, name, is_default)
     SELECT $org, w, 'default', 'Default', true FROM unnest($ws::uuid[]) WITH ORDINALITY AS t(w, n) ORDER BY n RETURNING id`,
    { ...select, bind: { org: org.id, ws: workspaceIds } },
  );
  const groups = await db.query<{ id: string }>(
    `INSERT INTO session_groups (organization_id, workspace_id, project_id, kind, status, title)
     SELECT $org, ($ws::uuid[])[w], ($projects::uuid[])[w],
            (ARRAY['worker_run', 'evaluation_item', 'workflow', 'workflow_run'])[1 + g % 4],
            (ARRAY['running', 'completed', 'failed', 'cancelled', NULL])[1 + g % 5],
            'Group ' || g
       FROM generate_series(1, $nws::int) AS w, generate_series(0, $gpw::int - 1) AS g
      ORDER BY w, g RETURNING id`,
    { ...select, bind: { org: org.id, ws: workspaceIds, projects: projects.map((row) => row.id), nws: WORKSPACES, gpw: GROUPS_PER_WORKSPACE } },
  );
  const groupIds = groups.map((row) => row.id);

  // Bulk path: drop the secondary indexes, load, rebuild them as the migration defines them.
  const indexes = await db.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'sessions' AND indexname <> 'sessions_pkey'`,
    select,
  );
  const existing = await db.query<{ n: string }>('SELECT count(*) AS n FROM sessions', select);
  const dropIndexes = Number(existing[0].n) === 0;
  if (dropIndexes) for (const index of indexes) await db.query(`DROP INDEX ${index.indexname}`);
  // The facet counts (migration 0014) are rebuilt once after the load instead of row by row.
  await db.query('ALTER TABLE sessions DISABLE TRIGGER sessions_facet_counts_insert_delete');

  for (let from = 1; from <= TOTAL; from += CHUNK) {
    const to = Math.min(TOTAL, from + CHUNK - 1);
    await db.query(
      `INSERT INTO sessions (id, organization_id, workspace_id, user_id, project_id, group_id, agent, model, title, origin,
                             visibility, labels, message_count, preview_text, last_message_at, archived_at, created_at, updated_at)
       SELECT gen_random_uuid(), $org,
              ($ws::uuid[])[1 + i % 10],
              ($users::uuid[])[1 + (i / 10) % $nusers],
              ($projects::uuid[])[1 + i % 10],
              CASE WHEN i % 3 = 0 THEN ($groups::uuid[])[1 + (i % 10) * $gpw + (i / 30) % $gpw] END,
              (ARRAY['claude-code', 'codex', 'aider', 'cursor', NULL])[1 + (i / 7) % 5],
              (ARRAY['model-a', 'model-b', 'model-c', 'model-d', 'model-e', 'model-f', 'model-g', 'model-h'])[1 + (i / 3) % 8],
              'Session ' || i || ' about ' || (ARRAY['refactoring', 'billing', 'authentication', 'search', 'deployment', 'onboarding'])[1 + (i / 11) % 6],
              CASE WHEN (i / 13) % 10 < 7 THEN 'user' WHEN (i / 13) % 10 < 9 THEN 'worker' ELSE 'eval' END,
              CASE WHEN (i / 17) % 2 = 0 THEN 'workspace' ELSE 'private' END,
              jsonb_build_object('env', jsonb_build_array((ARRAY['prod', 'staging', 'dev'])[1 + (i / 19) % 3]),
                                 'team', jsonb_build_array('team-' || (i / 23) % 20))
                || CASE WHEN i % 5 = 0 THEN '{"tier": ["gold", "silver"]}'::jsonb ELSE '{}'::jsonb END,
              i % 50,
              'Last message ' || md5(i::text),
              now() - make_interval(secs => i),
              CASE WHEN (i / 29) % 10 < 3 THEN now() - make_interval(secs => i / 2) END,
              now() - make_interval(secs => i * 2),
              now() - make_interval(secs => i)
         FROM generate_series($from::int, $to::int) AS i`,
      {
        bind: { org: org.id, ws: workspaceIds, users: userIds, nusers: USERS, projects: projects.map((row) => row.id), groups: groupIds, gpw: GROUPS_PER_WORKSPACE, from, to },
      },
    );
    log(`  inserted ${to.toLocaleString('en-US')} sessions`);
  }
  if (dropIndexes) {
    for (const index of indexes) {
      const t0 = performance.now();
      await db.query(index.indexdef);
      log(`  rebuilt ${index.indexname} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
  }
  await db.query('ALTER TABLE sessions ENABLE TRIGGER sessions_facet_counts_insert_delete');
  // The bulk load bypasses the service: bring the groups' counts and the facet counts (maintained on write) up to date once.
  await recountGroups(groupIds);
  for (const workspaceId of workspaceIds) await db.query('SELECT session_facet_counts_rebuild($ws)', { bind: { ws: workspaceId } });
  await db.query('VACUUM ANALYZE sessions');
  await db.query('VACUUM ANALYZE session_groups');
  return { orgKey, orgId: org.id, workspaceIds, workspaceKeys, viewerId: userIds[0] };
}

interface Scenario {
  name: string;
  path: string;
  args: SessionFilterArgs;
  query: Record<string, string | string[]>;
  kind: 'facets' | 'list';
}

function queryString(query: Record<string, string | string[]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) for (const item of Array.isArray(value) ? value : [value]) params.append(key, item);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Prints the plan of a scenario's statements (BENCH_EXPLAIN=1). */
async function explain(scenario: Scenario, fixture: Fixture): Promise<void> {
  const where = sessionWhere(fixture.workspaceIds[0], fixture.viewerId, scenario.args);
  const statements =
    scenario.kind === 'facets'
      ? [usesFacetCounts(scenario.args) ? FACET_COUNTS_SQL.replace('$workspace_id', `'${fixture.workspaceIds[0]}'`).replace('$viewer_id', `'${fixture.viewerId}'`) : facetSql(where.sql)]
      : [
          sessionCountSql(where.sql),
          sessionPageSql(where.sql, SessionSortBy.updated_at, SortDirection.desc),
        ];
  for (const statement of statements) {
    const rows = await database().query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement}`, {
      bind: { ...where.bind, ...(scenario.kind === 'list' ? PAGE : {}) },
      type: QueryTypes.SELECT,
    });
    console.log(`\n-- plan: ${scenario.name}\n${rows.map((row) => row['QUERY PLAN']).join('\n')}`);
  }
}

/** The scenario's statements, run directly through the pool (no HTTP, no GraphQL). */
function directRunner(scenario: Scenario, fixture: Fixture): () => Promise<unknown> {
  const where = sessionWhere(fixture.workspaceIds[0], fixture.viewerId, scenario.args);
  const db = database();
  if (scenario.kind === 'facets' && usesFacetCounts(scenario.args)) {
    // What the service runs for the default view: the maintained counts (migration 0014).
    return () => db.query(FACET_COUNTS_SQL, { bind: { workspace_id: fixture.workspaceIds[0], viewer_id: fixture.viewerId }, type: QueryTypes.SELECT });
  }
  if (scenario.kind === 'facets') return () => db.query(facetSql(where.sql), { bind: where.bind, type: QueryTypes.SELECT });
  return () =>
    Promise.all([
      db.query(sessionCountSql(where.sql), { bind: where.bind, type: QueryTypes.SELECT }),
      db.query(sessionPageSql(where.sql, SessionSortBy.updated_at, SortDirection.desc), {
        bind: { ...where.bind, ...PAGE },
        type: QueryTypes.SELECT,
      }),
    ]);
}

/** Direct SQL p50 with `connections` statements in flight at once (the HTTP runs' concurrency). */
async function directSqlConcurrent(run: () => Promise<unknown>, connections: number): Promise<number> {
  const latencies: number[] = [];
  let left = Math.max(SQL_RUNS, connections * 5);
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (left > 0) {
        left -= 1;
        const t0 = performance.now();
        await run();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return percentile(latencies.sort((a, b) => a - b), 50);
}

export async function main(): Promise<void> {
  await withBenchDatabase('sessions', 30, async () => {
    log(`generating ${TOTAL.toLocaleString('en-US')} sessions over ${WORKSPACES} workspaces`);
    const t0 = performance.now();
    const fixture = await seed();
    log(`data ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const service = await startService();
    try {
      await measure(fixture, `${service.base}/api/v1/org/${fixture.orgKey}/ws/${fixture.workspaceKeys[0]}/sessions`);
    } finally {
      await service.stop();
    }
  });
}

async function measure(fixture: Fixture, base: string): Promise<void> {
  const token = signAccessToken({ id: fixture.viewerId, token_version: 0 });

  const filtered = { agent: ['claude-code', 'codex'], model: ['model-a', 'model-b', 'model-c'], label: ['env:prod', 'env:dev', 'team:team-3'] };
  const scenarios: Scenario[] = [
    { name: 'facets, unfiltered', kind: 'facets', path: '/facets', args: {}, query: {} },
    { name: 'facets, filtered', kind: 'facets', path: '/facets', args: filtered, query: filtered },
    { name: 'list, first page', kind: 'list', path: '', args: {}, query: { limit: '20' } },
  ];

  const rows: { scenario: string; sql_p50_ms: number; sql_same_p50_ms: number; connections: number; result: LoadResult; ratio: number }[] = [];
  for (const scenario of scenarios) {
    if (process.env.BENCH_EXPLAIN === '1') await explain(scenario, fixture);
    const runDirect = directRunner(scenario, fixture);
    const sql = await timeIt(runDirect, SQL_RUNS);
    const sqlP50 = percentile(sql, 50);
    log(`${scenario.name}: direct SQL p50 ${sqlP50.toFixed(2)} ms, p99 ${percentile(sql, 99).toFixed(2)} ms`);
    const target = `${base}${scenario.path}${queryString(scenario.query)}`;
    const check = await fetch(target, { headers: { authorization: `Bearer ${token}` } });
    if (check.status !== 200) throw new Error(`${scenario.name}: HTTP ${check.status} ${await check.text()}`);
    await load(target, { token, connections: 2, count: 20, seconds: 10 }); // warm-up
    for (const connections of [2, 20]) {
      const sameP50 = await directSqlConcurrent(runDirect, connections);
      const result = await load(target, { token, connections, count: REQUESTS, seconds: SECONDS });
      rows.push({ scenario: scenario.name, sql_p50_ms: sqlP50, sql_same_p50_ms: sameP50, connections, result, ratio: result.p50_ms / sqlP50 });
      log(
        `${scenario.name} @${connections}: HTTP p50 ${result.p50_ms.toFixed(2)} ms, p99 ${result.p99_ms.toFixed(2)} ms, ` +
          `${result.req_per_s.toFixed(1)} req/s (${result.requests} requests, ${result.errors} errors); ` +
          `direct SQL p50 at ${connections} in flight ${sameP50.toFixed(2)} ms; HTTP p50 / SQL p50 = ${(result.p50_ms / sqlP50).toFixed(2)}`,
      );
    }
  }

  console.log(
    '\n| scenario | direct SQL p50 (ms) | connections | direct SQL p50, same concurrency (ms) | HTTP p50 (ms) | HTTP p99 (ms) | req/s | HTTP p50 / SQL p50 |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(
      `| ${row.scenario} | ${row.sql_p50_ms.toFixed(2)} | ${row.connections} | ${row.sql_same_p50_ms.toFixed(2)} | ${row.result.p50_ms.toFixed(2)} | ` +
        `${row.result.p99_ms.toFixed(2)} | ${row.result.req_per_s.toFixed(1)} | ${row.ratio.toFixed(2)} |`,
    );
  }
  const target = rows.find((row) => row.scenario === 'facets, unfiltered' && row.connections === 2);
  if (target) {
    const ok = target.ratio <= 1.5;
    console.log(`\nTarget (unfiltered facets HTTP p50 <= 1.5x direct SQL, 2 connections): ${ok ? 'met' : 'MISSED'} (${target.ratio.toFixed(2)}x)`);
  }
}
