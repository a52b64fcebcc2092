import { finished } from 'node:stream/promises';
import { DatabaseError, Query, type Client, type QueryArrayConfig, type QueryResultRow } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Transaction } from 'sequelize';
import { database, notifyStatement } from './database';
import { fromDriver, isDriverError, StatementReadTooLarge } from './driver-errors';

/** A statement's failure as node-postgres reports it, marked as the database's (src/db/driver-errors.ts). */
function driverFailure(error: unknown): never {
  throw fromDriver(error);
}

/**
 * A connection of Sequelize's pool for `run`, given back when it settles; or,
 * given a transaction, the transaction's own connection (Sequelize's
 * `transaction.connection` is the node-postgres client), which the
 * transaction keeps.
 */
async function withClient<T>(run: (client: Client) => Promise<T>, transaction?: Transaction): Promise<T> {
  const manager = database().connectionManager;
  const state = transaction as unknown as { connection?: Client; finished?: string } | undefined;
  // As Sequelize, refuse a finished transaction: its connection may already serve another request.
  if (state && (!state.connection || state.finished)) throw new Error(`The transaction (${state.finished ?? 'not started'}) can no longer be used`);
  const held = state?.connection;
  const client = held || ((await manager.getConnection({ type: 'read' })) as unknown as Client);
  try {
    return await run(client);
  } catch (error) {
    // A connection that failed under the statement goes to no other request: the pool's validation
    // discards it instead of handing it out (Sequelize's own flag, which its queries set on ECONNRESET).
    if (connectionBroke(error)) (client as unknown as { _invalid?: boolean })._invalid = true;
    throw error;
  } finally {
    if (!held) manager.releaseConnection(client as never);
  }
}

/**
 * The driver failed without an ordinary statement error (its socket, its state), or PostgreSQL ended the session (FATAL, PANIC).
 * A statement refused for what it brought back (read-bound.ts) ended normally: its connection is sound.
 */
function connectionBroke(error: unknown): boolean {
  if (!isDriverError(error) || error instanceof StatementReadTooLarge) return false;
  return !(error instanceof DatabaseError) || error.severity === 'FATAL' || error.severity === 'PANIC';
}

/** How a plainQuery or streamQuery statement is prepared (see plainQuery). */
type Prepare = boolean | string | { quota: 'graphql' };

/** A `$name` statement as node-postgres sends it: positional text, values in order, and its prepared name if it has one. */
function statementOf(text: string, bind: Record<string, unknown>, prepare: Prepare | undefined): { name?: string; text: string; values: unknown[] } {
  notifyStatement(text);
  const quota = prepare === true ? 'filters' : typeof prepare === 'object' ? prepare.quota : null;
  const converted = positional(text, quota);
  const name = typeof prepare === 'string' ? prepare : quota ? converted.name : undefined;
  const values = converted.names.map((parameter) => bind[parameter]);
  return name ? { name, text: converted.sql, values } : { text: converted.sql, values };
}

/**
 * The one way for hand-written SQL (services and loaders use Sequelize models
 * for writes of rows and transactions, this for the rest): reads whose text
 * varies with their filters (lists, pages), aggregates, and statements that
 * write (a `RETURNING` list comes back as rows). Sent through the same pool
 * and type parsers, its rows come back plain as node-postgres builds them
 * (no model instances, no copy per row as Sequelize's raw queries make).
 * `$name` parameters as Sequelize's `bind`. With `transaction`, it runs on
 * that transaction's connection (Sequelize's own). Like every parameterised
 * statement on these connections it runs a generic plan
 * (`plan_cache_mode=force_generic_plan`, see models/index.ts).
 *
 * Sent unnamed, it is parsed and planned on every execution (a large share
 * of a list's statement). With `prepare`, it runs as a named
 * prepared statement, parsed and planned once per connection:
 * - `prepare: 'name'` for a statement whose text never changes: always
 *   named, with that name (unique per text): the request path's key
 *   lookups (credentials, a session or assessment by id), whose one generic
 *   plan suits every value;
 * - `prepare: true` for a text built from the request's filters: each
 *   distinct text is named in turn, for the first PREPARED_SHAPES such texts
 *   of the process (among the 1,000 texts it keeps converted); later ones run
 *   unnamed, which bounds what each connection keeps;
 * - `prepare: { quota: 'graphql' }` the same, within a quota of its own
 *   (PREPARED_GRAPHQL_SHAPES), for the statements of GraphQL queries.
 * Only for statements whose result columns keep their types when a table
 * gains a column (no `*` or `t.*` in the select list: PostgreSQL refuses to
 * run a prepared statement whose result type changed).
 */
export async function plainQuery<T extends object>(
  text: string,
  bind: Record<string, unknown>,
  options: { prepare?: Prepare; transaction?: Transaction } = {},
): Promise<T[]> {
  const statement = statementOf(text, bind, options.prepare);
  return withClient(async (client) => (await client.query<T & QueryResultRow>(statement).catch(driverFailure)).rows, options.transaction);
}

/**
 * A read whose rows go to `row` as PostgreSQL sends them (node-postgres
 * emits each DataRow as it parses it), not gathered into one result first:
 * for replies written out row by row (JsonArrayReply). Each row is its
 * values in column order, parsed by the same type parsers; `$name`
 * parameters and `prepare` as plainQuery's. What `row` throws stops the
 * rows that follow and rejects once the statement has finished (it never
 * reaches the connection's socket handler).
 */
export async function streamQuery(text: string, bind: Record<string, unknown>, options: { prepare?: Prepare }, row: (values: unknown[]) => void): Promise<void> {
  const statement = statementOf(text, bind, options.prepare);
  await withClient(
    (client) =>
      new Promise<void>((resolve, reject) => {
        let failure: unknown = null;
        // No callback: node-postgres then emits each row and does not gather them. (A `query_timeout`
        // in the dialect options would wrap the callback and break this; the service sets none.)
        const config: QueryArrayConfig = { ...statement, rowMode: 'array' };
        const query = new Query(config);
        query.on('row', (values: unknown[]) => {
          if (failure !== null) return;
          try {
            row(values);
          } catch (error) {
            failure = error;
          }
        });
        // What stopped the rows first (the reply cut, its client gone) is the reason, not what the statement met after.
        query.on('error', (error: Error) => reject(failure ?? fromDriver(error)));
        query.on('end', () => (failure === null ? resolve() : reject(failure)));
        client.query(query);
      }),
  );
}

/**
 * `COPY … FROM STDIN` of `data` (COPY's text format in UTF-8, a row per line) on the
 * transaction's connection, or alone (the COPY is then its own
 * transaction): the bulk write of span ingest, PostgreSQL's fastest path
 * for many rows (pg-copy-streams speaks the protocol's copy sub-protocol
 * over node-postgres).
 */
export async function copyIn(sql: string, data: Buffer, transaction?: Transaction): Promise<void> {
  notifyStatement(sql);
  await withClient(async (client) => {
    // The rows are one chunk, written and ended at once: a pipeline from a Readable also built that stream, an
    // AbortController and, at its end, an AbortError for every COPY (bench/README.md, traces, 2026-11-28 18:45).
    const copy = client.query(copyFrom(sql));
    copy.end(data);
    await finished(copy).catch(driverFailure);
  }, transaction);
}

/** How many distinct filter-built texts a process prepares (plainQuery `prepare: true`); later ones run unnamed. */
export const PREPARED_SHAPES = 256;
/**
 * The same for the statements of GraphQL queries PostgreSQL answers
 * (`prepare: { quota: 'graphql' }`, core/graphql-sql): their texts follow the
 * documents clients send, so they have a quota of their own and cannot use up
 * the lists'.
 */
export const PREPARED_GRAPHQL_SHAPES = 64;
const quotas = { filters: { limit: PREPARED_SHAPES, used: 0, prefix: 'plain' }, graphql: { limit: PREPARED_GRAPHQL_SHAPES, used: 0, prefix: 'graphql' } };

/** `$name` parameters to `$1…`, once per statement text, with its prepared statement name once prepared. */
const positionalTexts = new Map<string, { sql: string; names: string[]; name?: string }>();
function positional(text: string, quotaName: keyof typeof quotas | null): { sql: string; names: string[]; name?: string } {
  let converted = positionalTexts.get(text);
  if (!converted) {
    const names: string[] = [];
    const sql = text.replace(/\$([a-zA-Z_][a-zA-Z0-9_]*)/g, (_, name: string) => {
      let index = names.indexOf(name);
      if (index < 0) index = names.push(name) - 1;
      return `$${index + 1}`;
    });
    converted = { sql, names };
    if (positionalTexts.size < 1_000) positionalTexts.set(text, converted);
  }
  const quota = quotaName ? quotas[quotaName] : null;
  if (quota && converted.name === undefined && quota.used < quota.limit && positionalTexts.get(text) === converted) {
    quota.used += 1;
    converted.name = `${quota.prefix}_${quota.used}`;
  }
  return converted;
}

/**
 * Rows of a statement that selects several tables under prefixes
 * (`o.id AS "o.id"`) come back flat; this nests them: `{ o: { id } }`.
 */
export function nestRow(row: Record<string, unknown>): Record<string, Record<string, unknown>> & Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in row) {
    const split = splitKey(key);
    if (split === null) {
      out[key] = row[key];
      continue;
    }
    const inner = (out[split[0]] ??= {}) as Record<string, unknown>;
    inner[split[1]] = row[key];
  }
  return out as Record<string, Record<string, unknown>> & Record<string, unknown>;
}

/** Column aliases are a fixed set per statement: split each once. */
const splits = new Map<string, readonly [string, string] | null>();
function splitKey(key: string): readonly [string, string] | null {
  let split = splits.get(key);
  if (split === undefined) {
    const dot = key.indexOf('.');
    split = dot < 0 ? null : [key.slice(0, dot), key.slice(dot + 1)];
    if (splits.size < 10_000) splits.set(key, split);
  }
  return split;
}

/** A nested part that is all null (an unmatched LEFT JOIN) is absent. */
export function present<T>(part: Record<string, unknown> | undefined): T | null {
  if (!part) return null;
  // A row with a primary key is there exactly when its key is (the key is never null).
  if ('id' in part) return part.id === null ? null : (part as T);
  return Object.values(part).every((value) => value === null) ? null : (part as T);
}
