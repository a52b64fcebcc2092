import { z } from 'zod';

/**
 * Every environment variable the service reads, validated once at boot.
 * The README's configuration table mirrors this schema. A variable set to
 * an empty (or blank) value is unset: its default applies, as OpenTelemetry
 * specifies for its own variables (`PORT=` or `REQUIRE_EMAIL_VERIFICATION=`
 * in a compose file must not read as 0 or false and switch a protection off).
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** 32 bytes as 64 hex digits or base64 (43 characters, `=` optional; either alphabet); decoded by src/modules/secrets/secrets-crypto.ts. */
const secretsKey = z
  .string()
  .trim()
  .refine((text) => /^[0-9a-fA-F]{64}$/.test(text) || /^[A-Za-z0-9+/_-]{43}=?$/.test(text), 'must be 32 bytes: 64 hex digits or base64');

/** The longest timer Node keeps (and the largest statement_timeout PostgreSQL takes): 2^31 - 1 ms, about 24.8 days. */
export const MAX_TIMER_MS = 2_147_483_647;
/** Access tokens live at most a year. */
const MAX_JWT_TTL_SECONDS = 365 * 86400;

/** A problem with the environment's settings (what loadConfig found), told at boot without a stack. */
export class ConfigurationError extends Error {}

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('0.0.0.0'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  PUBLIC_URL: z.string().url().optional(),
  DATABASE_URL: z.string().optional(),
  DATA_DIR: z.string().default('.data'),
  DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /** How long a new connection may take to open (TCP and PostgreSQL's startup), in ms (0 = no limit): past it the request answers 503. */
  DB_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(0).max(MAX_TIMER_MS).default(10_000),
  /** How long a request may wait for one of the pool's DB_POOL_MAX connections, in ms: past it 503 (Sequelize's default was 60 s). */
  DB_POOL_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(1).max(MAX_TIMER_MS).default(15_000),
  DB_LOG_SQL: bool.default('false'),
  /** statement_timeout of the service's own connections, in ms (0 = none); migrations and bulk loads run without it. */
  DB_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(MAX_TIMER_MS).default(15000),
  /** PostgreSQL JIT for the service's own connections (off: its compile time dwarfs our short statements). */
  DB_JIT: bool.default('false'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  /** Access token lifetime: seconds, or a number with s, m, h or d (e.g. `24h`). */
  JWT_TTL: z
    .string()
    .regex(/^\d+[smhd]?$/, 'JWT_TTL must be seconds or a number followed by s, m, h or d')
    .default('24h')
    .transform((text) => Number.parseInt(text, 10) * ({ s: 1, m: 60, h: 3600, d: 86400 }[text.slice(-1)] ?? 1))
    .refine((seconds) => seconds >= 60, 'JWT_TTL must be at least 60 seconds')
    .refine((seconds) => seconds <= MAX_JWT_TTL_SECONDS, 'JWT_TTL must be at most 365d'),
  /**
   * The key that seals user secrets (AES-256-GCM): 32 bytes as 64 hex digits
   * or base64. Required in production; otherwise generated once into
   * DATA_DIR/secrets-key (src/modules/secrets/README.md).
   */
  SECRETS_KEY: secretsKey.optional(),
  /** The key SECRETS_KEY replaced: values it sealed still open until they are re-sealed; never seals. */
  SECRETS_KEY_PREVIOUS: secretsKey.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** On by default in production: an unverified address could otherwise collect the invitations sent to it (decisions §3). */
  REQUIRE_EMAIL_VERIFICATION: bool.optional(),
  CAPTCHA_SECRET: z.string().optional(),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Agent Platform <no-reply@localhost>'),
  MIN_CLIENT_VERSION: z
    .string()
    .regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/, 'MIN_CLIENT_VERSION must be a semver version')
    .optional(),
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(1200),
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).default(30),
  TRUST_PROXY: bool.default('false'),
  PLATFORM_MAX_SANDBOX_RUNTIME_SECONDS: z.coerce.number().int().min(1).default(86400),
  PLATFORM_DEFAULT_SANDBOX_RUNTIME_SECONDS: z.coerce.number().int().min(1).default(3600),
  DEFAULT_MAX_MEMBERS: z.coerce.number().int().min(1).default(50),
  /** Active (unrevoked) API keys one user may hold; creating one more is 409. */
  MAX_ACTIVE_API_KEYS: z.coerce.number().int().min(1).default(50),
  /** Login attempts per account (whatever the client address) per LOGIN_ACCOUNT_RATE_WINDOW_SECONDS; successful ones are given back; 0 disables. */
  LOGIN_ACCOUNT_RATE_LIMIT: z.coerce.number().int().min(0).default(10),
  LOGIN_ACCOUNT_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(900),
  /** scrypt cost as log2 N (17: N = 131072, r = 8, p = 1, 128 MiB per hash, OWASP's minimum); below 17 only under NODE_ENV=test. */
  PASSWORD_SCRYPT_LOG_N: z.coerce.number().int().min(10).max(20).default(17),
  SEED_DEMO: bool.optional(),
  /** GraphQL operation budget (docs/limits.md); checked before execution. */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).default(30),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(1).default(10000),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).default(5000),
  /** A document's size, checked before graphql-js validation (core/graphql-document-limits.ts). */
  GRAPHQL_MAX_FIELDS: z.coerce.number().int().min(1).default(2000),
  GRAPHQL_MAX_SELECTIONS: z.coerce.number().int().min(1).default(200),
  GRAPHQL_MAX_REPEATED_FIELDS: z.coerce.number().int().min(1).default(10),
  /** Largest reply body in bytes, REST or GraphQL; a larger one answers 422 (a streamed list is cut). */
  MAX_REPLY_BYTES: z.coerce.number().int().min(1024).default(32 * 1024 * 1024),
  /** The most one SQL statement may bring back (its rows' bytes as PostgreSQL sends them); past it the statement fails and the request answers 422. */
  MAX_STATEMENT_READ_BYTES: z.coerce.number().int().min(1024).default(128 * 1024 * 1024),
  /** The most a session's stored messages may take (the text of their content, tool calls and metadata); an append past it is 409. */
  SESSION_MAX_TRANSCRIPT_BYTES: z.coerce.number().int().min(1024).default(32 * 1024 * 1024),
  /** The most messages a session may store (messages without content count nothing against the bytes); an append past it is 409. */
  SESSION_MAX_MESSAGES: z.coerce.number().int().min(1).default(100_000),
  /** Answer a query whose every field has a SQL description with one statement (core/graphql-sql). */
  GRAPHQL_SQL: bool.default('true'),
  /** Origins whose pages may call the API (comma-separated, exact: `https://app.example.com`); unset: loopback origins outside production, none in production. */
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((text) => (text ? text.split(',').map((origin) => origin.trim()).filter(Boolean) : undefined)),
  /** Schema introspection on /graphql; default on outside production. */
  GRAPHQL_INTROSPECTION: bool.optional(),
  /** "Did you mean …?" suggestions in GraphQL validation errors; default on outside production. */
  GRAPHQL_FIELD_SUGGESTIONS: bool.optional(),
  /** The GraphiQL playground on GET /graphql; default on outside production. */
  GRAPHQL_PLAYGROUND: bool.optional(),
  /** The docs page (/api/docs); default on outside production. The OpenAPI document is always served. */
  API_DOCS: bool.optional(),
  /** Only trusted GraphQL operations run: `examples` (graphql/operations) or a JSON file of operation hashes (core/trusted-documents.ts); unset: any. */
  GRAPHQL_TRUSTED_DOCUMENTS: z.string().optional(),
  /** Bearer token /metrics requires; unset in production: /metrics is only served on METRICS_PORT. */
  METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  /** A second port serving only /metrics (on HOST), for a scraper on a private network. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** How long a device-code login (`POST /auth/device/code`) may wait for approval, in seconds. */
  DEVICE_CODE_TTL_SECONDS: z.coerce.number().int().min(60).max(3600).default(600),
  /** Days of spans kept (POST …/otel/traces): older daily partitions are dropped whole, and older spans refused at ingest. */
  TRACE_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /**
   * An OTLP export's body as sent (compressed) and once inflated, in bytes; larger is 413 without inflating the
   * rest. The inflated limit also bounds what decoding can allocate (a body of tiny repeated entries decodes into
   * about 17× its size in objects), so it stays small: a 512-span export is a few hundred KB.
   */
  OTLP_MAX_BODY_BYTES: z.coerce.number().int().min(1024).default(8 * 1024 * 1024),
  OTLP_MAX_INFLATED_BYTES: z.coerce.number().int().min(1024).default(8 * 1024 * 1024),
  /** Spans in one export (the SDK's batch is 512); more is 413. */
  OTLP_MAX_SPANS: z.coerce.number().int().min(1).default(5000),
  /** Attributes kept per span (the rest dropped and counted) and characters kept per attribute string (longer ones cut), as OpenTelemetry's span limits do. */
  OTLP_MAX_ATTRIBUTES: z.coerce.number().int().min(1).default(256),
  OTLP_MAX_ATTRIBUTE_LENGTH: z.coerce.number().int().min(16).default(65536),
  /** Export the service's own spans (HTTP, GraphQL, SQL) to this OTLP/HTTP endpoint (`http://collector:4318`); unset: no tracing code is loaded. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** The service name on the service's own spans. */
  OTEL_SERVICE_NAME: z.string().default('agent-platform-api'),
  /** HTTP worker processes (node:cluster); 1 serves from the main process. */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(MAX_TIMER_MS).default(10000),
  /**
   * How long a request's head and body together may take to arrive (0: no limit); past it, 408 and the connection
   * closes. Without it a client trickling a large body held its buffered part, and the connection, for Node's 300 s.
   */
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(0).max(MAX_TIMER_MS).default(120_000),
});

/** Settings whose default depends on NODE_ENV (on outside production, off in it). */
type ProductionDefaults = 'REQUIRE_EMAIL_VERIFICATION' | 'GRAPHQL_INTROSPECTION' | 'GRAPHQL_FIELD_SUGGESTIONS' | 'GRAPHQL_PLAYGROUND' | 'API_DOCS';

export type Config = Omit<z.infer<typeof schema>, ProductionDefaults> & Record<ProductionDefaults, boolean> & { seedDemo: boolean };

/** Every variable the service reads, in the schema's order (.env.example lists them all: a test compares). */
export const CONFIG_VARIABLES = Object.keys(schema.shape);

/** The weakest scrypt cost a deployment may run with (N = 2^17, OWASP). */
const MIN_SCRYPT_LOG_N = 17;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
  const parsed = schema.safeParse(given);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`).join('\n');
    throw new ConfigurationError(`Invalid configuration:\n${problems}`);
  }
  const value = parsed.data;
  if (value.NODE_ENV === 'production' && !value.JWT_SECRET) {
    throw new ConfigurationError('Invalid configuration:\n  JWT_SECRET: required when NODE_ENV=production');
  }
  if (value.NODE_ENV !== 'test' && value.PASSWORD_SCRYPT_LOG_N < MIN_SCRYPT_LOG_N) {
    throw new ConfigurationError(`Invalid configuration:\n  PASSWORD_SCRYPT_LOG_N: at least ${MIN_SCRYPT_LOG_N} (lower values are for the test suite only)`);
  }
  if (value.NODE_ENV === 'production' && !value.SECRETS_KEY) {
    throw new ConfigurationError('Invalid configuration:\n  SECRETS_KEY: required when NODE_ENV=production (32 bytes: 64 hex digits or base64)');
  }
  const production = value.NODE_ENV === 'production';
  return {
    ...value,
    REQUIRE_EMAIL_VERIFICATION: value.REQUIRE_EMAIL_VERIFICATION ?? production,
    GRAPHQL_INTROSPECTION: value.GRAPHQL_INTROSPECTION ?? !production,
    GRAPHQL_FIELD_SUGGESTIONS: value.GRAPHQL_FIELD_SUGGESTIONS ?? !production,
    GRAPHQL_PLAYGROUND: value.GRAPHQL_PLAYGROUND ?? !production,
    API_DOCS: value.API_DOCS ?? !production,
    seedDemo: value.SEED_DEMO ?? value.NODE_ENV === 'development',
  };
}

let current: Config | undefined;

/**
 * The configuration read once per process. Its first read is at boot (often
 * while the logger is being made, before anything could log): a bad setting
 * then prints its problems, one per line, and the process exits 1.
 */
export function config(): Config {
  if (!current) {
    try {
      current = loadConfig();
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error;
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
  }
  return current;
}

/** Tests override single settings through this. */
export function overrideConfig(patch: Partial<Config>): void {
  current = { ...config(), ...patch };
}
