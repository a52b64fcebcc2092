import { startEmbeddedPostgres } from '../src/db/embedded';
async function main() {
  const db = await startEmbeddedPostgres({ dataDir: '/tmp/benchpg/pg', persistent: true, fast: true });
  console.log(db.url);
  setInterval(() => undefined, 1 << 30);
}
main();
