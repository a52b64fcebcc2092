import type { Client, QueryResultRow } from 'pg';
import { database, notifyStatement } from './database';

/**
 * Hot statements, sent through Sequelize's own pool as named prepared
 * statements (node-postgres `{ name, text, values }`): PostgreSQL parses and
 * plans each once per connection instead of on every request. Rows come back
 * plain (no model instances), parsed by the same type parsers as Sequelize's.
 * `name` must be unique per statement text.
 */
export async function hotQuery<T extends QueryResultRow>(name: string, text: string, values: unknown[]): Promise<T[]> {
  notifyStatement(text);
  const manager = database().connectionManager;
  const client = (await manager.getConnection({ type: 'read' })) as unknown as Client;
  try {
    return (await client.query<T>({ name, text, values })).rows;
  } finally {
    manager.releaseConnection(client as never);
  }
}

/**
 * Rows of a statement that selects several tables under prefixes
 * (`o.id AS "o.id"`) come back flat; this nests them: `{ o: { id } }`.
 */
export function nestRow(row: Record<string, unknown>): Record<string, Record<string, unknown>> & Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    const dot = key.indexOf('.');
    if (dot < 0) {
      out[key] = value;
      continue;
    }
    const prefix = key.slice(0, dot);
    const inner = (out[prefix] ??= {}) as Record<string, unknown>;
    inner[key.slice(dot + 1)] = value;
  }
  return out as Record<string, Record<string, unknown>> & Record<string, unknown>;
}

/** A nested part that is all null (an unmatched LEFT JOIN) is absent. */
export function present<T>(part: Record<string, unknown> | undefined): T | null {
  if (!part || Object.values(part).every((value) => value === null)) return null;
  return part as T;
}
