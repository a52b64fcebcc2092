/**
 * Benchmarks, not part of `npm test`. Usage: `npm run bench -- <name> [options]`.
 * See bench/README.md for what each one measures.
 */
// Measured as deployed: NODE_ENV=production (graphql-js skips its development-only
// checks), with a throw-away JWT secret and secrets key, unless set explicitly.
// Quiet request logs and no rate limit, unless set explicitly (read once, at first use).
process.env.NODE_ENV ??= 'production';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- before any import reads the environment
process.env.JWT_SECRET ??= require('node:crypto').randomBytes(32).toString('hex');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- likewise: production requires a secrets key
process.env.SECRETS_KEY ??= require('node:crypto').randomBytes(32).toString('hex');
process.env.LOG_LEVEL ??= 'warn';
process.env.RATE_LIMIT_PER_MINUTE ??= '0';

const BENCHES: Record<string, () => Promise<{ main: (args: string[]) => Promise<void> }>> = {
  sessions: () => import('./sessions.bench'),
  limits: () => import('./limits.bench'),
  'document-limits': () => import('./document-limits.bench'),
  requests: () => import('./requests.bench'),
  'facet-counts': () => import('./facet-counts.bench'),
  catalogs: () => import('./catalogs.bench'),
  assessments: () => import('./assessments.bench'),
  evaluations: () => import('./evaluations.bench'),
  traces: () => import('./traces.bench'),
};

async function run(): Promise<void> {
  const [name, ...args] = process.argv.slice(2);
  const load = name ? BENCHES[name] : undefined;
  if (!load) {
    console.error(`Usage: npm run bench -- <${Object.keys(BENCHES).join('|')}> [options]`);
    process.exitCode = 2;
    return;
  }
  await (await load()).main(args);
}

run().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
