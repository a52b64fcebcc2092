import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { database } from '../src/db/database';
import { signAccessToken } from '../src/modules/accounts/jwt';
import { versionKey } from '../src/modules/catalogs/semver-key';
import { captureStatements } from './capture';
import { log, startService, withBenchDatabase } from './harness';
import { percentile } from './load';

/**
 * Evaluations:
 *
 * 1. Create an evaluation of 10,000 tasks (BENCH_TASKS) by name over HTTP,
 *    5 times (p50), and count the SQL statements one creation sends.
 * 2. Drive 2,000 items (BENCH_ITEMS) through the whole state machine
 *    (queued → claiming → provisioning → agent_running → agent_finished →
 *    verifying → passed | failed) with 20 concurrent workers over HTTP. One
 *    transition in 20 is sent twice at once, as two workers racing for the
 *    same item would: exactly one must win and the other get 409.
 *    Reports transitions per second and p50/p99, then checks that the job's
 *    `item_counts` equal the items' real states (zero drift), that the job
 *    completed, and that no request failed other than the expected 409s.
 */
const TASKS = Number(process.env.BENCH_TASKS ?? 10_000);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 2_000);
const WORKERS = 20;
const PATH = ['claiming', 'provisioning', 'agent_running', 'agent_finished', 'verifying'];

async function fixture(): Promise<{ token: string; orgKey: string }> {
  const db = database();
  const suffix = crypto.randomBytes(3).toString('hex');
  const orgKey = `eval-${suffix}`;
  const [user] = await db.query<{ id: string }>(
    `INSERT INTO users (email, username, full_name, password_hash) VALUES ($email, $username, 'Eval bench', 'not-a-hash') RETURNING id`,
    { type: QueryTypes.SELECT, bind: { email: `${orgKey}@example.test`, username: orgKey } },
  );
  const [org] = await db.query<{ id: string }>(`INSERT INTO organizations (key, name) VALUES ($key, 'Eval bench') RETURNING id`, {
    type: QueryTypes.SELECT,
    bind: { key: orgKey },
  });
  await db.query(`INSERT INTO memberships (organization_id, user_id, role) VALUES ($org, $user, 'owner')`, { bind: { org: org.id, user: user.id } });
  const [ws] = await db.query<{ id: string }>(`INSERT INTO workspaces (organization_id, key, name, is_default) VALUES ($org, 'default', 'Default', true) RETURNING id`, {
    type: QueryTypes.SELECT,
    bind: { org: org.id },
  });
  await db.query(`INSERT INTO projects (organization_id, workspace_id, key, name, is_default) VALUES ($org, $ws, 'default', 'Default', true)`, {
    bind: { org: org.id, ws: ws.id },
  });
  await db.query(
    `INSERT INTO tasks (id, organization_id, name, version, version_key, is_latest, is_public, verification, sandbox_provider)
     SELECT gen_random_uuid(), $org, 'bench-task-' || i, '1.0.0', $key, true, false, '{"method": "flag", "flag_hash": "sha256:00"}'::jsonb, 'hosted'
       FROM generate_series(0, $n::int - 1) AS i`,
    { bind: { org: org.id, key: versionKey('1.0.0'), n: TASKS } },
  );
  await db.query('ANALYZE tasks');
  return { token: signAccessToken({ id: user.id, token_version: 0 }), orgKey };
}

async function call(method: string, url: string, token: string, body?: unknown): Promise<{ status: number; body: any; ms: number }> {
  const t0 = performance.now();
  const response = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, ms: performance.now() - t0 };
}

/** Every item of a job (the items list pages by 1,000). */
async function allItems(ws: string, jobId: string, token: string): Promise<{ id: string; status: string }[]> {
  const out: { id: string; status: string }[] = [];
  for (let page = 1; ; page += 1) {
    const res = await call('GET', `${ws}/evaluation/${jobId}/items?limit=1000&page=${page}`, token);
    if (res.status !== 200) throw new Error(`items: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    out.push(...res.body.items);
    if (res.body.items.length < 1000) return out;
  }
}

export async function main(): Promise<void> {
  await withBenchDatabase('evaluations', 30, async () => {
    log(`generating ${TASKS.toLocaleString('en-US')} tasks`);
    const { token, orgKey } = await fixture();
    const service = await startService();
    const ws = `${service.base}/api/v1/org/${orgKey}/ws/default`;
    try {
      // 1. Creation of a 10,000-task evaluation.
      const names = Array.from({ length: TASKS }, (_, index) => `bench-task-${index}`);
      const body = { name: 'bench', model: 'model-a', task_names: names, concurrency: 20 };
      let created: { status: number; body: any; ms: number } | undefined;
      const statements = await captureStatements(async () => {
        created = await call('POST', `${ws}/evaluation`, token, body);
      });
      if (created?.status !== 201) throw new Error(`create: ${created?.status} ${JSON.stringify(created?.body).slice(0, 300)}`);
      const times = [created.ms];
      for (let run = 1; run < 5; run += 1) {
        const res = await call('POST', `${ws}/evaluation`, token, body);
        if (res.status !== 201) throw new Error(`create: ${res.status}`);
        times.push(res.ms);
      }
      times.sort((a, b) => a - b);
      log(`create with ${TASKS.toLocaleString('en-US')} tasks: p50 ${percentile(times, 50).toFixed(0)} ms over 5 runs; ${statements.length} SQL statements; dataset_size ${created.body.dataset_size}`);

      // 2. 2,000 items through the state machine, 20 workers.
      const job = await call('POST', `${ws}/evaluation`, token, { name: 'drive', model: 'model-a', task_names: names.slice(0, ITEMS), concurrency: 20 });
      if (job.status !== 201) throw new Error(`create: ${job.status}`);
      const items = await allItems(ws, job.body.id, token);
      const queue = items.map((item, index) => ({ id: item.id, final: index % 4 === 0 ? 'failed' : 'passed' }));
      const latencies: number[] = [];
      let transitions = 0;
      let expected409 = 0;
      let unexpected = 0;
      let step = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: WORKERS }, async () => {
          for (let next = queue.shift(); next; next = queue.shift()) {
            for (const to of [...PATH, next.final]) {
              const url = `${ws}/evaluation/${job.body.id}/items/${next.id}/transition`;
              step += 1;
              const racing = step % 20 === 0;
              const results = await Promise.all(racing ? [call('POST', url, token, { to }), call('POST', url, token, { to })] : [call('POST', url, token, { to })]);
              for (const res of results) latencies.push(res.ms);
              const ok = results.filter((res) => res.status === 200).length;
              const conflicts = results.filter((res) => res.status === 409).length;
              transitions += ok;
              if (ok !== 1 || conflicts !== results.length - 1) unexpected += 1;
              expected409 += conflicts;
            }
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      latencies.sort((a, b) => a - b);
      const final = (await call('GET', `${ws}/evaluation/${job.body.id}`, token)).body;
      const states = await allItems(ws, job.body.id, token);
      const real: Record<string, number> = {};
      for (const item of states) real[item.status] = (real[item.status] ?? 0) + 1;
      const drift = Object.entries(final.item_counts as Record<string, number>).filter(([state, count]) => count !== (real[state] ?? 0));
      log(
        `${transitions.toLocaleString('en-US')} transitions in ${seconds.toFixed(1)} s = ${(transitions / seconds).toFixed(0)} transitions/s; ` +
          `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; ${expected409} expected 409s from racing pairs; ` +
          `${unexpected} unexpected outcomes; job ${final.job_status}; item_counts drift: ${drift.length ? JSON.stringify(drift) : 'none'}`,
      );
      console.log('\n| measure | value |\n|---|---|');
      console.log(`| create, ${TASKS.toLocaleString('en-US')} tasks: p50 of 5 | ${percentile(times, 50).toFixed(0)} ms |`);
      console.log(`| create: SQL statements | ${statements.length} |`);
      console.log(`| transitions (${ITEMS.toLocaleString('en-US')} items × 6, ${WORKERS} workers) | ${(transitions / seconds).toFixed(0)} /s, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms |`);
      console.log(`| racing pairs | ${expected409} × 409, ${unexpected} unexpected |`);
      console.log(`| job at the end | ${final.job_status}, pass_rate ${final.analytics?.pass_rate ?? 'n/a'} |`);
      console.log(`| item_counts drift | ${drift.length ? JSON.stringify(drift) : 'none'} |`);
    } finally {
      await service.stop();
    }
  });
}
