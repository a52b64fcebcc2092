import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { database } from '../src/db/database';
import { generateApiKey } from '../src/modules/api-keys/api-keys.service';
import { FACET_COUNTS_SQL } from '../src/modules/sessions/facet-counts';
import { facetSql, sessionWhere } from '../src/modules/sessions/sessions.sql';
import { log, startService, withBenchDatabase } from './harness';
import { percentile, timeIt } from './load';
import { seed } from './sessions.bench';

/**
 * The maintained facet counts (migration 0014), measured in one run over the
 * sessions benchmark's data (1,000,000 sessions):
 *
 * 1. Reads: the unfiltered facets of ws-0 for its owner, counted from the
 *    sessions (the statement every filtered request still runs) against the
 *    sum over the maintained counts (what the default view runs now): direct
 *    SQL p50 of BENCH_SQL_RUNS (default 30) each, and the ratio.
 * 2. Writes: 50 connections saving new sessions into one workspace
 *    (`POST WS/sessions`, wrk, BENCH_SECONDS each, default 10) with the
 *    facet-count triggers disabled ("before") and enabled ("after"),
 *    alternated BENCH_RUNS times (default 3); medians of saves/s and the ratio.
 *
 * Needs wrk (Debian: apt-get install wrk). Options: BENCH_DATABASE_URL
 * (+ BENCH_ORG to reuse data seeded by an earlier run), BENCH_SESSIONS.
 */
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SQL_RUNS = Number(process.env.BENCH_SQL_RUNS ?? 30);
const TRIGGERS = ['sessions_facet_counts_insert_delete', 'sessions_facet_counts_update'];

const SAVE_SCRIPT = (apiKey: string) => `
wrk.method = "POST"
wrk.headers["X-API-Key"] = "${apiKey}"
wrk.headers["Content-Type"] = "application/json"
local random = math.random
math.randomseed(os.time())
local function uuid()
  return (string.gsub("xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx", "[xy]", function (c)
    local v = (c == "x") and random(0, 0xf) or random(8, 0xb)
    return string.format("%x", v)
  end))
end
local agents = { "codex", "claude-code", "aider" }
local models = { "model-a", "model-b", "model-c" }
request = function()
  local i = random(1, 3)
  local body = '{"id":"' .. uuid() .. '","agent":"' .. agents[i] .. '","model":"' .. models[random(1, 3)] ..
    '","visibility":"' .. (random(0, 1) == 1 and "workspace" or "private") .. '","labels":{"env":["' .. (random(0, 1) == 1 and "prod" or "dev") .. '"]}}'
  return wrk.format(nil, nil, nil, body)
end
`;

interface WrkResult {
  rps: number;
  non2xx: number;
}

async function wrk(url: string, script: string, connections: number): Promise<WrkResult> {
  const child = spawn('wrk', ['-t2', `-c${connections}`, `-d${SECONDS}s`, '-s', script, url]);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => child.on('exit', resolve));
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? NaN),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0),
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function main(): Promise<void> {
  await withBenchDatabase('facet-counts', 10, async () => {
    const db = database();
    let orgKey = process.env.BENCH_ORG;
    if (!orgKey) {
      log('generating the sessions benchmark data');
      orgKey = (await seed()).orgKey;
      log(`data ready: BENCH_ORG=${orgKey}`);
    }
    const [fixture] = await db.query<{ viewer_id: string; workspace_id: string }>(
      `SELECT m.user_id AS viewer_id, w.id AS workspace_id FROM organizations o
         JOIN memberships m ON m.organization_id = o.id AND m.role = 'owner' JOIN workspaces w ON w.organization_id = o.id AND w.key = 'ws-0'
        WHERE o.key = $key`,
      { bind: { key: orgKey }, type: QueryTypes.SELECT },
    );

    // 1. Reads.
    const where = sessionWhere(fixture.workspace_id, fixture.viewer_id, {});
    const counted = await timeIt(() => db.query(facetSql(where.sql), { bind: where.bind, type: QueryTypes.SELECT }), SQL_RUNS);
    const maintained = await timeIt(() => db.query(FACET_COUNTS_SQL, { bind: { workspace_id: fixture.workspace_id, viewer_id: fixture.viewer_id }, type: QueryTypes.SELECT }), SQL_RUNS);
    const [rows] = await db.query<{ n: string }>('SELECT count(*) AS n FROM session_facet_counts WHERE workspace_id = $ws', {
      bind: { ws: fixture.workspace_id },
      type: QueryTypes.SELECT,
    });
    const countedP50 = percentile(counted.sort((a, b) => a - b), 50);
    const maintainedP50 = percentile(maintained.sort((a, b) => a - b), 50);
    log(`unfiltered facets, counted from the sessions: p50 ${countedP50.toFixed(2)} ms`);
    log(`unfiltered facets, from the maintained counts (${rows.n} counter rows in the workspace): p50 ${maintainedP50.toFixed(2)} ms`);

    // 2. Writes.
    const key = generateApiKey();
    await db.query(
      `INSERT INTO api_keys (user_id, name, key_hash, masked_key, allow_self_revoke, last_used_at) VALUES ($user, 'bench-facets', $hash, $masked, false, now())`,
      { bind: { user: fixture.viewer_id, hash: key.hash, masked: key.masked } },
    );
    const script = path.join(os.tmpdir(), `bench-facet-saves-${process.pid}.lua`);
    fs.writeFileSync(script, SAVE_SCRIPT(key.key));
    const service = await startService();
    const url = `${service.base}/api/v1/org/${orgKey}/ws/ws-0/sessions`;
    const before: number[] = [];
    const after: number[] = [];
    let failed = 0;
    try {
      for (let run = 0; run < RUNS; run += 1) {
        for (const enabled of [false, true]) {
          for (const trigger of TRIGGERS) await db.query(`ALTER TABLE sessions ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER ${trigger}`);
          const result = await wrk(url, script, 50);
          failed += result.non2xx;
          (enabled ? after : before).push(result.rps);
          log(`50 concurrent saves, facet counting ${enabled ? 'on ' : 'off'}: ${result.rps.toFixed(0)} saves/s${result.non2xx ? ` (${result.non2xx} non-2xx)` : ''}`);
        }
      }
    } finally {
      for (const trigger of TRIGGERS) await db.query(`ALTER TABLE sessions ENABLE TRIGGER ${trigger}`);
      // The sessions saved with counting off are not in the counts: recount the workspace.
      await db.query('SELECT session_facet_counts_rebuild($ws)', { bind: { ws: fixture.workspace_id } });
      fs.rmSync(script, { force: true });
      await service.stop();
    }

    const ratio = median(after) / median(before);
    console.log(`\n| measure | before (counted / no counting) | after (maintained counts) | after / before | target |`);
    console.log('|---|---|---|---|---|');
    console.log(`| unfiltered facets, SQL p50 (ms) | ${countedP50.toFixed(2)} | ${maintainedP50.toFixed(2)} | ${(maintainedP50 / countedP50).toFixed(3)} (${(countedP50 / maintainedP50).toFixed(0)}× faster) | ≥ 10× faster: ${countedP50 / maintainedP50 >= 10 ? 'met' : 'MISSED'} |`);
    console.log(`| 50 concurrent saves into one workspace (saves/s, median of ${RUNS}) | ${median(before).toFixed(0)} | ${median(after).toFixed(0)} | ${ratio.toFixed(2)} | within 20 %: ${ratio >= 0.8 ? 'met' : 'MISSED'} |`);
    if (failed) console.log(`\n${failed} saves answered non-2xx`);
  });
}
