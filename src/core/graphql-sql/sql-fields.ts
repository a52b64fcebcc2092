import type { AppContext } from '../context';
import { compactJson, jsonTimestamp } from '../../db/json-sql';

/**
 * How a module describes its GraphQL types in SQL, so that a GraphQL query
 * made only of such fields is answered by one statement that PostgreSQL
 * turns into the reply's JSON (compile.ts), the way PostGraphile answers a
 * query, instead of graphql-js resolving every field of every row.
 *
 * Each entry must produce exactly what executing the field produces: the
 * equivalence tests run the same documents both ways and compare the replies.
 * A field without an entry (or with arguments its entry does not take)
 * makes the whole query run through the resolvers as before.
 */
export type SqlField = SqlValue | SqlObject | SqlList;

/** A scalar or enum field: an expression over the parent row, as GraphQL serialises the value. */
export interface SqlValue {
  kind: 'value';
  sql(row: string): string;
}

/** A nullable object field: `FROM … WHERE …` of its one row (alias `as`), none = null. */
export interface SqlObject {
  kind: 'object';
  from(row: string, as: string): string;
}

/**
 * A list field: the statement of its rows (`SELECT as.* FROM … AS as …`,
 * with its ORDER BY and LIMIT) and their order, or null when it cannot be
 * compiled for these arguments. It applies the tenant and visibility rules
 * of the resolver it stands for, with the viewer's parameters.
 */
export interface SqlList {
  kind: 'list';
  rows(row: string, as: string, args: Record<string, unknown>, params: SqlParams, ctx: AppContext): { select: string; orderBy: string } | null;
}

/**
 * A root query field: the resolver's own tenant check (through the same
 * service), then `FROM … WHERE …` of the one row it answers (alias `as`).
 * Throwing (not found, forbidden, invalid) sends the query to the resolvers,
 * which answer the error as they always do.
 */
export interface SqlRoot {
  from(ctx: AppContext, args: Record<string, unknown>, params: SqlParams, as: string): Promise<string>;
}

/** What a module adds: fields by GraphQL type name, and root query fields. */
export interface SqlSchemaPart {
  types?: Record<string, Record<string, SqlField>>;
  roots?: Record<string, SqlRoot>;
}

/** The statement's named parameters (`$name`, as plainQuery binds them). */
export class SqlParams {
  readonly values: Record<string, unknown> = {};
  private count = 0;

  /** A new parameter holding `value`: its placeholder. */
  add(value: unknown): string {
    const name = `q${this.count++}`;
    this.values[name] = value;
    return `$${name}`;
  }

  /** Named parameters a tenant filter refers to (same names, same values on every use). */
  named(values: Record<string, unknown>): void {
    Object.assign(this.values, values);
  }
}

/** A column of the row as it is (text, numbers, booleans, UUIDs, enums stored by name, jsonb). */
export const column = (name: string): SqlValue => ({ kind: 'value', sql: (row) => `${row}.${name}` });

/** A timestamptz column as DateTimeISO serialises it. */
export const timestamp = (name: string): SqlValue => ({ kind: 'value', sql: (row) => jsonTimestamp(`${row}.${name}`) });

/** Any expression over the row. */
export const expression = (sql: (row: string) => string): SqlValue => ({ kind: 'value', sql });

/** The columns of a table under their own names. */
export function columns(...names: string[]): Record<string, SqlValue> {
  return Object.fromEntries(names.map((name) => [name, column(name)]));
}

/** A JSON object of `fields` (a map of SqlValues) over `row`, keys in the map's order (REST @RestJson mappers). */
export function valuesJson(fields: Record<string, SqlField>, row: string): string {
  const parts = Object.entries(fields).map(([name, field]) => {
    if (field.kind !== 'value') throw new Error(`valuesJson: ${name} is not a value`);
    return `${field.sql(row)} AS "${name}"`;
  });
  return compactJson(parts.join(', '));
}
