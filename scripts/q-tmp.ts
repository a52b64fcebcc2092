import 'reflect-metadata';
import { QueryTypes } from 'sequelize';
import { createApp } from '../src/app';
import { connectDatabase, database } from '../src/db/database';
import { platform } from '../src/modules';
import { signAccessToken } from '../src/modules/accounts/jwt';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../src/app';
async function main() {
  connectDatabase(process.env.BENCH_DATABASE_URL!, { poolMax: 10, models: platform.models });
  const [row] = await database().query<{ viewer_id: string }>(`SELECT m.user_id AS viewer_id FROM organizations o JOIN memberships m ON m.organization_id = o.id AND m.role = 'owner' WHERE o.key = $key`, { bind: { key: process.env.BENCH_ORG }, type: QueryTypes.SELECT });
  const app = await createApp();
  const server = createHttpServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
  const token = signAccessToken({ id: row.viewer_id, token_version: 0 });
  const scope = `org: "${process.env.BENCH_ORG}", workspace: "ws-0"`;
  const queries = JSON.parse(process.argv[2]) as string[];
  for (const q of queries) {
    const query = q.replace(/SCOPE/g, scope);
    const times: number[] = [];
    let text = '';
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      const r = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
      text = await r.text();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    console.log(times[3].toFixed(1), 'ms', text.length, q.slice(0, 150), text.includes('errors') ? text.slice(0, 200) : '');
  }
  server.close(); process.exit(0);
}
main();
