import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { database } from '../src/db/database';
import { signAccessToken } from '../src/modules/accounts/jwt';
import { versionKey } from '../src/modules/catalogs/semver-key';
import { captureStatements, replayer, replayPool } from './capture';
import { log, startService, withBenchDatabase } from './harness';
import { load, type LoadResult } from './load';
import { measureRounds, roundsLine } from './rounds';

/**
 * Catalogs at scale: 100,000 task versions (10,000 names × 10 versions of
 * mixed semver with prereleases) over 50 organizations, a fifth of the names
 * public, with tags, authors, difficulties and sources, plus 20,000 dataset
 * versions; then the task list (own organization, and with include_public),
 * task facets (unfiltered and with two filters) and the dataset list measured
 * over loopback HTTP at 2 and 20 connections, beside exactly the statements
 * the service sent for that request replayed directly (bench/capture.ts, same
 * concurrency, authentication included).
 *
 * Target: HTTP p50 at most 1.5× the direct SQL p50 at 2 connections, and every
 * statement uses an index (BENCH_EXPLAIN=1 prints EXPLAIN ANALYZE of each).
 *
 * Options: BENCH_DATABASE_URL, BENCH_REQUESTS (per run, default 300),
 * BENCH_SECONDS (per run, default 15), BENCH_EXPLAIN=1.
 */
const ORGS = 50;
const NAMES = 10_000;
const VERSIONS = ['0.9.0', '1.0.0-rc.1', '1.0.0', '1.1.0', '1.9.0', '1.10.0', '2.0.0-beta.1', '2.0.0-beta.2', '2.0.0', '2.1.0'];
const DATASET_VERSIONS = ['1.0.0', '1.1.0'];
const DATASET_NAMES = 10_000;
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
/** Rounds at 2 connections (direct SQL, then HTTP, alternated); the medians are reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SQL_SECONDS = 5;
const CHUNK = 10_000;

const TAGS = ['web', 'crypto', 'pwn', 'forensics', 'reversing', 'misc', 'cloud', 'ai', 'osint', 'network'];
const DIFFICULTIES = ['easy', 'medium', 'hard', 'insane'];
const SOURCES = ['ctf-2023', 'ctf-2024', 'internal', 'community', 'vendor'];

async function seed(): Promise<{ orgKey: string; viewerId: string }> {
  const db = database();
  const suffix = crypto.randomBytes(3).toString('hex');
  const users = await db.query<{ id: string }>(
    `INSERT INTO users (email, username, full_name, password_hash)
     SELECT 'cat' || i || '-' || $suffix || '@example.test', 'cat' || i || '-' || $suffix, 'Catalog User ' || i, 'not-a-hash'
       FROM generate_series(1, $n::int) AS i ORDER BY i RETURNING id`,
    { type: QueryTypes.SELECT, bind: { suffix, n: ORGS } },
  );
  const orgs = await db.query<{ id: string; key: string }>(
    `INSERT INTO organizations (key, name) SELECT 'cat-' || $suffix || '-' || i, 'Catalog ' || i FROM generate_series(0, $n::int - 1) AS i ORDER BY i RETURNING id, key`,
    { type: QueryTypes.SELECT, bind: { suffix, n: ORGS } },
  );
  await db.query(
    `INSERT INTO memberships (organization_id, user_id, role) SELECT o, u, 'owner' FROM unnest($orgs::uuid[], $users::uuid[]) AS t(o, u)`,
    { bind: { orgs: orgs.map((row) => row.id), users: users.map((row) => row.id) } },
  );

  const keys = VERSIONS.map(versionKey);
  const latest = keys.indexOf([...keys].sort().at(-1)!);
  const rows: unknown[] = [];
  const flush = async () => {
    await db.query(
      `INSERT INTO tasks (id, organization_id, name, version, version_key, is_latest, is_public, description, author, difficulty, source, tags,
                          verification, file_size, sandbox_provider, created_at, updated_at)
       SELECT gen_random_uuid(), r.org, r.name, r.version, r.version_key, r.is_latest, r.is_public, r.description, r.author, r.difficulty, r.source,
              r.tags, '{"method": "flag", "flag_hash": "sha256:00"}'::jsonb, r.file_size, 'hosted', r.created_at, r.created_at
         FROM jsonb_to_recordset($rows::jsonb) AS r(org uuid, name text, version text, version_key text, is_latest boolean, is_public boolean,
              description text, author text, difficulty text, source text, tags text[], file_size bigint, created_at timestamptz)`,
      { bind: { rows: JSON.stringify(rows) } },
    );
    rows.length = 0;
  };
  const now = Date.now();
  for (let n = 0; n < NAMES; n += 1) {
    const org = orgs[n % ORGS].id;
    for (let v = 0; v < VERSIONS.length; v += 1) {
      rows.push({
        org,
        name: `task-${n}`,
        version: VERSIONS[v],
        version_key: keys[v],
        is_latest: v === latest,
        is_public: n % 5 === 0,
        description: `Task ${n} version ${VERSIONS[v]}`,
        author: `author-${n % 40}`,
        difficulty: DIFFICULTIES[n % DIFFICULTIES.length],
        source: SOURCES[(n >> 2) % SOURCES.length],
        tags: [TAGS[n % TAGS.length], TAGS[(n >> 3) % TAGS.length]],
        file_size: 1000 + ((n * 37) % 100_000),
        created_at: new Date(now - (n * 10 + v) * 1000).toISOString(),
      });
      if (rows.length >= CHUNK) await flush();
    }
    if (n % 2000 === 1999) log(`  ${((n + 1) * VERSIONS.length).toLocaleString('en-US')} task versions`);
  }
  if (rows.length) await flush();

  const datasetKeys = DATASET_VERSIONS.map(versionKey);
  await db.query(
    `INSERT INTO datasets (id, organization_id, name, version, version_key, is_latest, is_public, format, pretty_name, license, size_category,
                           tags, task_categories, row_count, file_size_bytes, created_at, updated_at)
     SELECT gen_random_uuid(), ($orgs::uuid[])[1 + n % $norgs], 'dataset-' || n, ($versions::text[])[1 + v], ($keys::text[])[1 + v], v = 1, n % 5 = 0,
            'parquet', 'Dataset ' || n, (ARRAY['mit', 'apache-2.0', 'cc-by-4.0'])[1 + n % 3], (ARRAY['n<1K', '1K<n<10K', '10K<n<100K'])[1 + n % 3],
            ARRAY[(ARRAY['text', 'code', 'security', 'chat'])[1 + n % 4]], ARRAY[(ARRAY['qa', 'classification'])[1 + n % 2]],
            1000 + n * 7, 100000 + n * 13, now() - make_interval(secs => n * 10 + v), now() - make_interval(secs => n * 10 + v)
       FROM generate_series(0, $names::int - 1) AS n, generate_series(0, 1) AS v`,
    { bind: { orgs: orgs.map((row) => row.id), norgs: ORGS, versions: DATASET_VERSIONS, keys: datasetKeys, names: DATASET_NAMES } },
  );
  await db.query('VACUUM ANALYZE tasks');
  await db.query('VACUUM ANALYZE datasets');
  return { orgKey: orgs[0].key, viewerId: users[0].id };
}

interface Scenario {
  name: string;
  path: string;
}

export async function main(): Promise<void> {
  await withBenchDatabase('catalogs', 30, async (url) => {
    log(`generating ${(NAMES * VERSIONS.length).toLocaleString('en-US')} task versions over ${ORGS} organizations`);
    const t0 = performance.now();
    const { orgKey, viewerId } = await seed();
    log(`data ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const token = signAccessToken({ id: viewerId, token_version: 0 });
    const service = await startService();
    const pool = replayPool(url, 30);
    const org = `/api/v1/org/${orgKey}`;
    const scenarios: Scenario[] = [
      { name: 'task list, own organization', path: `${org}/tasks?limit=50` },
      { name: 'task list, include_public', path: `${org}/tasks?limit=50&include_public=true` },
      { name: 'task facets, unfiltered', path: `${org}/tasks/facets?include_public=true` },
      { name: 'task facets, two filters', path: `${org}/tasks/facets?include_public=true&difficulty=hard&difficulty=insane&tags=web` },
      { name: 'dataset list', path: `${org}/datasets?limit=50&include_public=true` },
    ];
    // BENCH_SCENARIOS=facets,dataset runs only the scenarios whose names contain one of the words.
    const only = process.env.BENCH_SCENARIOS?.split(',').filter(Boolean);
    if (only) scenarios.splice(0, scenarios.length, ...scenarios.filter((scenario) => only.some((word) => scenario.name.includes(word))));
    const rows: { scenario: string; statements: number; sqlP50: number; connections: number; result: LoadResult }[] = [];
    try {
      for (const scenario of scenarios) {
        const target = `${service.base}${scenario.path}`;
        let status = 0;
        await new Promise((resolve) => setTimeout(resolve, 5000)); // requests of the previous run still finishing are not this one's
        const statements = await captureStatements(async () => {
          const response = await fetch(target, { headers: { authorization: `Bearer ${token}` } });
          status = response.status;
          await response.arrayBuffer();
        });
        if (status !== 200) throw new Error(`${scenario.name}: HTTP ${status}`);
        if (process.env.BENCH_EXPLAIN === '1') {
          for (const statement of statements) {
            if (!/^\s*(SELECT|WITH)/i.test(statement.text)) {
              console.log(`\n-- ${scenario.name}: ${statement.text.slice(0, 80)}`);
              continue;
            }
            // The plan the service runs (its connections force generic plans), then a run with this request's values.
            const generic = await pool.query(`EXPLAIN (GENERIC_PLAN) ${statement.text}`);
            console.log(`\n-- ${scenario.name}: generic plan\n${generic.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n')}`);
            const plan = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
            console.log(`\n-- ${scenario.name}: with the values\n${plan.rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n')}`);
          }
        }
        // Rounds of (direct SQL, HTTP) at 2 connections, alternated, medians reported; then one round at 20.
        const direct = replayer(pool, statements);
        await load(target, { token, connections: 2, count: 20, seconds: 5 }); // warm-up
        for (const connections of [2, 20]) {
          const measured = await measureRounds(scenario.name, target, direct, {
            token, connections, rounds: connections === 2 ? ROUNDS : 1, seconds: SECONDS, sqlSeconds: SQL_SECONDS, requests: REQUESTS,
          });
          rows.push({ scenario: scenario.name, statements: statements.length, sqlP50: measured.sqlP50, connections, result: measured.result });
          log(roundsLine(scenario.name, connections, measured, statements.length));
        }
      }
    } finally {
      await pool.end();
      await service.stop();
    }
    console.log('\n| scenario | statements | direct SQL p50 at the same concurrency (ms) | connections | HTTP p50 (ms) | HTTP p99 (ms) | req/s | HTTP p50 / SQL p50 | target (≤ 1.5× at 2) |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const row of rows) {
      const ratio = row.result.p50_ms / row.sqlP50;
      const verdict = row.connections === 2 ? (ratio <= 1.5 ? 'met' : 'MISSED') : '–';
      console.log(
        `| ${row.scenario} | ${row.statements} | ${row.sqlP50.toFixed(2)} | ${row.connections} | ${row.result.p50_ms.toFixed(2)} | ${row.result.p99_ms.toFixed(2)} | ` +
          `${row.result.req_per_s.toFixed(1)} | ${ratio.toFixed(2)} | ${verdict} |`,
      );
    }
  });
}
