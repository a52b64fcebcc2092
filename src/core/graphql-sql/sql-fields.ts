import crypto from 'node:crypto';
import { Extensions } from 'type-graphql';
import type { AppContext } from '../context';
import { jsonTimestamp } from '../../db/json-sql';

/**
 * How a field of a GraphQL type is described in SQL (declared beside it with
 * @Sql), so that a GraphQL query
 * made only of such fields is answered by one statement that PostgreSQL
 * turns into the reply's JSON (compile.ts), the way PostGraphile answers a
 * query, instead of graphql-js resolving every field of every row.
 *
 * Each entry must produce exactly what executing the field produces: the
 * equivalence tests run the same documents both ways and compare the replies.
 * A field without an entry (or with arguments its entry does not take)
 * makes the whole query run through the resolvers as before.
 */
export type SqlField = SqlValue | SqlObject | SqlList | NodeValue;

/**
 * A scalar or enum field: an expression over the parent row, as GraphQL
 * serialises the value. `column` names the row's column when the field is
 * one as it is (fromRow copies it from a row read in node).
 */
export interface SqlValue {
  kind: 'value';
  sql(row: string): string;
  column?: string;
}

/**
 * A field of a type only ever answered in node (never compiled: a query
 * selecting it runs the resolvers): its value from the row, as fromRow reads
 * it. For values computed from several columns or from settings.
 */
export interface NodeValue {
  kind: 'node';
  read(row: Record<string, unknown>): unknown;
}

/** A nullable object field: `FROM … WHERE …` of its one row (alias `as`), none = null. */
export interface SqlObject {
  kind: 'object';
  from(row: string, as: string): string;
  /** The FROM always yields exactly one row (so the field may be non-null). */
  always?: boolean;
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
  /** False when these arguments ask for more than the declared fields give: the resolvers answer (checked before any statement). */
  compiles?(args: Record<string, unknown>): boolean;
}

/**
 * A root query field that is a list: the same checks, then the statement of
 * its rows (`SELECT as.* FROM … AS as …`) and their order. A REST route of
 * such a field is written out row by row as PostgreSQL sends them.
 */
export interface SqlListRoot {
  /**
   * `within`, when given, is a condition the compiled statement answers the
   * list under (before it reads a row of it); when it is false the statement
   * answers nothing for the list and the resolvers answer the query (a list
   * whose rows may be too large for one statement). Elements written out
   * as they come (a REST route) are counted as they are written instead.
   */
  rows(ctx: AppContext, args: Record<string, unknown>, params: SqlParams, as: string): Promise<{ select: string; orderBy: string; within?: string }>;
}

/**
 * A type whose whole reply (every field, as declared) is also stored as
 * text: `text(row)` is that text, or NULL where it is missing or stale. A
 * selection of the whole type reads it instead of building it. Declared by
 * SqlStored.
 */
export interface SqlStoredReply {
  text(row: string): string;
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

  /**
   * Named parameters a filter refers to (a tenant filter, a list's filters).
   * Two roots of one document may bind the same name: with the same value
   * that is one parameter, with another value the statement cannot hold both
   * (ParameterConflict: the resolvers answer such a query).
   */
  named(values: Record<string, unknown>): void {
    for (const [name, value] of Object.entries(values)) {
      if (name in this.values && JSON.stringify(this.values[name]) !== JSON.stringify(value)) throw new ParameterConflict(name);
      this.values[name] = value;
    }
  }
}

/** Two parts of one compiled statement bind one parameter name to different values. */
export class ParameterConflict extends Error {
  constructor(name: string) {
    super(`parameter $${name} is bound twice with different values`);
  }
}

/** A column of the row as it is (text, numbers, booleans, UUIDs, enums stored by name, jsonb). */
export const column = (name: string): SqlValue => ({ kind: 'value', column: name, sql: (row) => `${row}.${name}` });

/** A timestamptz column as DateTimeISO serialises it. */
export const timestamp = (name: string): SqlValue => ({ kind: 'value', column: name, sql: (row) => jsonTimestamp(`${row}.${name}`) });

/** Any expression over the row. */
export const expression = (sql: (row: string) => string): SqlValue => ({ kind: 'value', sql });

/** A field computed in node from the row (see NodeValue). */
export const derived = (read: (row: Record<string, unknown>) => unknown): NodeValue => ({ kind: 'node', read });

/** A nullable object field: the one row `FROM … WHERE …` finds (alias `as`), none = null. */
export const related = (from: (row: string, as: string) => string): SqlObject => ({ kind: 'object', from });

/** An object field whose FROM always yields one row (an aggregate without GROUP BY): it may be non-null. */
export const aggregate = (from: (row: string, as: string) => string): SqlObject => ({ kind: 'object', from, always: true });

/** The SQL a field was declared with, by class: fromRow reads it. */
const declared = new WeakMap<object, Map<string, SqlField>>();

/**
 * Declares a field's SQL beside the field (a property of an object type, or
 * a @FieldResolver method): `@Sql()` is the column of the field's name,
 * `@Sql(timestamp)` a timestamp column of that name, or any SqlField. It
 * goes into the schema as the field's `sql` extension, which the compiler
 * (compile.ts) reads; nothing else describes the field.
 */
export function Sql(spec: SqlField | ((field: string) => SqlField) = column): PropertyDecorator & MethodDecorator {
  return (target: object, property: string | symbol, descriptor?: PropertyDescriptor) => {
    const field = typeof spec === 'function' ? spec(String(property)) : spec;
    let fields = declared.get(target);
    if (!fields) declared.set(target, (fields = new Map()));
    if (fields.has(String(property))) throw new Error(`${String(property)} declares its SQL twice`);
    fields.set(String(property), field);
    Extensions({ sql: field })(target, property, descriptor as never);
  };
}

/** Declares how a root query field is answered in SQL (its `sqlRoot` extension): see SqlRoot and SqlListRoot. */
export function SqlRootField(root: SqlRoot | SqlListRoot): MethodDecorator {
  return Extensions({ sqlRoot: root }) as MethodDecorator;
}

/**
 * Declares that a type's whole reply is also stored in its row (its
 * `sqlStored` extension, see SqlStoredReply): as JSON text in the column
 * `columns.text`, written with the row (`storedReplyJson`), beside the
 * version of the shape it was built in (`columns.version`,
 * `storedReplyVersion`). A text of another version is stale and reads as
 * NULL: the reply is then built from the row's columns.
 */
export function SqlStored(columns: { text: string; version: string }): ClassDecorator {
  return (target) => {
    const Type = target as unknown as new () => object;
    const stored: SqlStoredReply = { text: (row) => `CASE WHEN ${row}.${columns.version} = ${storedReplyVersion(Type)} THEN ${row}.${columns.text} END` };
    (Extensions({ sqlStored: stored }) as ClassDecorator)(target);
  };
}

/** A SqlStored type's reply over row `alias` as the JSON text its row stores (built by PostgreSQL from the columns, as GraphQL serialises it). */
export const storedReplyJson = (Type: new () => object, alias: string): string => `${typeJson(Type, alias)}::text`;

/**
 * The version of a shape of stored reply (1–32768: 15 bits of the hash of
 * its SQL, the column is a smallint): derived from the statement text, so
 * any change to a field's declaration changes it and texts stored under the
 * old shape are rebuilt when read instead of served stale.
 */
export const replyVersionOf = (sql: string): number => (parseInt(crypto.createHash('sha256').update(sql).digest('hex').slice(0, 4), 16) % 32768) + 1;

const replyVersions = new WeakMap<object, number>();
/** The version of a SqlStored type's reply shape as declared now (stored beside each text written). */
export function storedReplyVersion(Type: new () => object): number {
  let version = replyVersions.get(Type);
  if (version === undefined) replyVersions.set(Type, (version = replyVersionOf(storedReplyJson(Type, 's'))));
  return version;
}

/** The fields a class declared with @Sql, inherited ones first, in declaration order. */
function declaredFields(Type: new () => object): [string, SqlField][] {
  const chain: object[] = [];
  for (let proto = Type.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) chain.unshift(proto);
  const out = new Map<string, SqlField>();
  for (const proto of chain) for (const [field, sql] of declared.get(proto) ?? []) out.set(field, sql);
  return [...out];
}

/** The value fields of a type whose every field is declared as a value (an error names the first that is not). */
function valueFields(Type: new () => object): [string, SqlValue][] {
  return declaredFields(Type).map(([field, sql]) => {
    if (sql.kind !== 'value') throw new Error(`${Type.name}.${field} is not declared as a value`);
    return [field, sql];
  });
}

/**
 * The select list of `Type` over row `alias` for a read in node: each
 * declared value field under its name, a column as it is (node-postgres
 * parses it), an expression as declared. The rows are the type's objects.
 */
export function rowSelect(Type: new () => object, alias: string): string {
  return valueFields(Type)
    .map(([field, sql]) => `${sql.column ? `${alias}.${sql.column}` : sql.sql(alias)} AS "${field}"`)
    .join(', ');
}

/** `Type` over row `alias` as one JSON value, fields in declaration order, as GraphQL serialises them. */
export function typeJson(Type: new () => object, alias: string): string {
  return `(SELECT to_json(x) FROM (SELECT ${valueFields(Type).map(([field, sql]) => `${sql.sql(alias)} AS "${field}"`).join(', ')}) x)`;
}

/**
 * An instance of `Type` from a row read in node: each field declared as a
 * column (`@Sql()`, `@Sql(timestamp)`, `@Sql(column(…))`), inherited ones
 * included, copied from the row, and each `derived` field computed from it.
 * Fields declared otherwise are their resolvers' to answer.
 */
export function fromRow<T extends object>(Type: new () => T, row: object): T {
  const out = new Type() as Record<string, unknown>;
  for (const [field, read] of readersOf(Type)) out[field] = read(row as Record<string, unknown>);
  return out as T;
}

const readerLists = new WeakMap<object, [string, (row: Record<string, unknown>) => unknown][]>();
function readersOf(Type: new () => object): [string, (row: Record<string, unknown>) => unknown][] {
  let list = readerLists.get(Type);
  if (!list) {
    list = declaredFields(Type).flatMap(([field, sql]): [string, (row: Record<string, unknown>) => unknown][] => {
      if (sql.kind === 'node') return [[field, sql.read]];
      const name = sql.kind === 'value' ? sql.column : undefined;
      return name ? [[field, (row) => row[name]]] : [];
    });
    readerLists.set(Type, list);
  }
  return list;
}
