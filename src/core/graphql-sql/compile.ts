import {
  getArgumentValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { config } from '../../config/config';
import { collectFields } from '../graphql-selection';
import { clampChildLimit } from '../child-limit';
import type { AppContext } from '../context';
import { SqlParams, type SqlField, type SqlListRoot, type SqlRoot, type SqlStoredReply } from './sql-fields';

/** The statement that answers a query, before its root fields' tenant checks ran. */
export interface CompiledQuery {
  /**
   * The reply's root keys, in reply order: the statement's one row has a
   * column of JSON text for each, by position (`c0`, `c1`, …: a key such as
   * `__proto__` would not survive as a property of the row node-postgres
   * builds).
   */
  keys: string[];
  /** Each root field with its arguments. */
  roots: { key: string; field: string; args: Record<string, unknown> }[];
  /** Runs the roots' checks and answers the statement text with its parameters. */
  statement(ctx: AppContext): Promise<{ text: string; params: Record<string, unknown> }>;
  /**
   * A query of one list root only: runs its checks and answers the statement
   * of its elements, one row each (a column `item` of JSON text), in order.
   */
  elements: ((ctx: AppContext) => Promise<{ text: string; params: Record<string, unknown> }>) | null;
}

/**
 * The alias of each object's row of reply keys. A bare name that is both a
 * column and the row's alias means the column to PostgreSQL, so it is one no
 * GraphQL name can be (a reply key `j` once turned `to_json(j)` into a value).
 */
const ROW = '"row$"';

/** Could not be compiled: the resolvers answer. */
class NotCompiled extends Error {}

/**
 * The statement of a GraphQL query whose every selected field has a SQL
 * description (fragments, aliases, @skip/@include and __typename as
 * graphql-js collects them, so keys come in the order executing gives
 * them), or null. Queries only: a mutation always runs its resolvers.
 */
export function compileQuery(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Record<string, unknown> | undefined,
  ctx: AppContext,
): CompiledQuery | null {
  const operation = getOperationAST(document, operationName);
  const queryType = schema.getQueryType();
  if (!operation || operation.operation !== 'query' || !queryType) return null;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  if (coerced.errors) return null;
  const variables = coerced.coerced;
  const params = new SqlParams();
  let aliases = 0;
  const nextAlias = () => `t${aliases++}`;

  const selectionOf = (type: GraphQLObjectType, nodes: readonly FieldNode[]) =>
    collectFields(schema, fragments, variables, type, nodes.map((node) => node.selectionSet));

  /** The object as JSON (`text`: as JSON text), its stored reply when the type has one and the whole type is selected. */
  function objectJson(type: GraphQLObjectType, row: string, nodes: readonly FieldNode[], text = false): string {
    const parts: string[] = [];
    for (const [key, fieldNodes] of selectionOf(type, nodes)) parts.push(`${fieldSql(type, row, fieldNodes)} AS ${columnName(key)}`);
    const built = `(SELECT to_json(${ROW}) FROM (SELECT ${parts.join(', ')}) ${ROW})${text ? '::text' : ''}`;
    const stored = storedText(type, row, nodes);
    if (!stored) return built;
    return text ? `coalesce(${stored}, ${built})` : `coalesce((${stored})::json, ${built})`;
  }

  function storedText(type: GraphQLObjectType, row: string, nodes: readonly FieldNode[]): string | null {
    const stored = type.extensions.sqlStored as SqlStoredReply | undefined;
    return stored && selectsWholeType(type, nodes) ? stored.text(row) : null;
  }

  /** Every field of the type under its own name in declaration order, each object field's whole type too: what a stored reply holds. */
  function selectsWholeType(type: GraphQLObjectType, nodes: readonly FieldNode[]): boolean {
    const fields = type.getFields();
    const names = Object.keys(fields);
    const selected = [...selectionOf(type, nodes)];
    return (
      selected.length === names.length &&
      selected.every(([key, fieldNodes], index) => {
        if (key !== names[index] || fieldNodes[0].name.value !== key) return false;
        const named = getNamedType(fields[key].type);
        return !isObjectType(named) || selectsWholeType(named, fieldNodes);
      })
    );
  }

  function fieldSql(type: GraphQLObjectType, row: string, nodes: readonly FieldNode[]): string {
    const name = nodes[0].name.value;
    if (name === '__typename') return `'${type.name}'::text`;
    const definition = type.getFields()[name];
    const described = definition?.extensions.sql as SqlField | undefined;
    if (!described) throw new NotCompiled();
    switch (described.kind) {
      case 'node':
        throw new NotCompiled();
      case 'value': {
        if (definition.args.length) throw new NotCompiled();
        // A value of an object type is the whole object's JSON: right only for a selection of the whole type.
        const named = getNamedType(definition.type);
        if (isObjectType(named) && !selectsWholeType(named, nodes)) throw new NotCompiled();
        return described.sql(row);
      }
      case 'object': {
        // A null from SQL must be a null GraphQL allows.
        if (definition.args.length || (isNonNullType(definition.type) && !described.always)) throw new NotCompiled();
        if (isListType(getNullableType(definition.type))) throw new NotCompiled();
        const child = objectTypeOf(definition);
        const as = nextAlias();
        return `(SELECT ${objectJson(child, as, nodes)} FROM ${described.from(row, as)} LIMIT 1)`;
      }
      case 'list': {
        if (!isListType(getNullableType(definition.type))) throw new NotCompiled();
        const child = objectTypeOf(definition);
        const as = nextAlias();
        const rows = described.rows(row, as, servedArgs(definition, getArgumentValues(definition, nodes[0], variables)), params, ctx);
        if (!rows) throw new NotCompiled();
        // array_to_json writes no space between items (json_agg does), as graphql-js serialises a list.
        return `(SELECT coalesce(array_to_json(array_agg(${objectJson(child, as, nodes)} ORDER BY ${rows.orderBy})), '[]'::json) FROM (${rows.select}) ${as})`;
      }
    }
  }

  try {
    const roots: { key: string; field: string; root: SqlRoot | SqlListRoot; args: Record<string, unknown>; as: string; nodes: readonly FieldNode[]; type: GraphQLObjectType }[] = [];
    const typenames: { key: string }[] = [];
    const selected = collectFields(schema, fragments, variables, queryType, [operation.selectionSet]);
    for (const [key, nodes] of selected) {
      const name = nodes[0].name.value;
      if (name === '__typename') {
        typenames.push({ key });
        continue;
      }
      const definition = queryType.getFields()[name];
      const root = definition?.extensions.sqlRoot as SqlRoot | SqlListRoot | undefined;
      // A root declared for the other shape (one row, a list) is the resolvers' (before the root's check reads anything).
      if (!root || !definition || isListType(getNullableType(definition.type)) !== 'rows' in root) return null;
      const args = getArgumentValues(definition, nodes[0], variables);
      if ('compiles' in root && root.compiles && !root.compiles(args)) return null;
      roots.push({ key, field: name, root, args, as: nextAlias(), nodes, type: objectTypeOf(definition) });
    }
    if (!roots.length) return null;
    const keys = [...selected.keys()];
    // Each root's JSON is written before any check runs, so a field that cannot be compiled leaves the query to the resolvers first.
    const json = new Map(roots.map(({ key, as, nodes, type }) => [key, objectJson(type, as, nodes)]));
    const single = roots.length === 1 && !typenames.length && 'rows' in roots[0].root ? roots[0] : null;
    const elementText = single ? objectJson(single.type, single.as, single.nodes, true) : null;
    return {
      keys,
      roots: roots.map(({ key, field, args }) => ({ key, field, args })),
      async statement(context) {
        const columns = new Map<string, string>();
        for (const { key } of typenames) columns.set(key, `to_json('${queryType.name}'::text)`);
        for (const { key, root, args, as } of roots) {
          if ('rows' in root) {
            const rows = await root.rows(context, args, params, as);
            const list = `(SELECT coalesce(array_to_json(array_agg(${json.get(key)} ORDER BY ${rows.orderBy})), '[]'::json) FROM (${rows.select}) ${as})`;
            // Past its `within`, no list (null): the resolvers answer, as for a root that found no row.
            columns.set(key, rows.within ? `(SELECT ${list} WHERE ${rows.within})` : list);
          } else {
            columns.set(key, `(SELECT ${json.get(key)} FROM ${await root.from(context, args, params, as)})`);
          }
        }
        const select = keys.map((key, index) => `coalesce(${columns.get(key)}, 'null'::json)::text AS ${rootColumn(index)}`).join(', ');
        // PostgreSQL measures the reply before sending it: past MAX_REPLY_BYTES it sends only the size (OFFSET 0 keeps each root built once).
        const size = keys.map((_key, index) => `octet_length(r.${rootColumn(index)})::bigint`).join(' + ');
        const kept = keys.map((_key, index) => `CASE WHEN b.${REPLY_BYTES} <= $max_reply_bytes::bigint THEN r.${rootColumn(index)} END AS ${rootColumn(index)}`).join(', ');
        const text = `SELECT ${kept}, b.${REPLY_BYTES} FROM (SELECT ${select} OFFSET 0) r CROSS JOIN LATERAL (SELECT ${size} AS ${REPLY_BYTES}) b`;
        return { text, params: { ...params.values, max_reply_bytes: config().MAX_REPLY_BYTES } };
      },
      elements:
        single && elementText
          ? async (context) => {
              const rows = await (single.root as SqlListRoot).rows(context, single.args, params, single.as);
              return { text: `SELECT ${elementText} AS item FROM (${rows.select}) ${single.as} ORDER BY ${rows.orderBy}`, params: params.values };
            }
          : null,
    };
  } catch (error) {
    // Arguments graphql-js would refuse are its to report.
    if (error instanceof NotCompiled || error instanceof GraphQLError) return null;
    throw error;
  }
}

/** A navigation field's arguments as its resolver gets them: its `limit` brought into its range (@ChildLimit). */
function servedArgs(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): Record<string, unknown> {
  const max = field.extensions.childLimit;
  return typeof max === 'number' && typeof args.limit === 'number' ? { ...args, limit: clampChildLimit(args.limit, max) } : args;
}

/** The column of the statement's row that holds the reply's `index`-th root key (CompiledQuery.keys). */
export const rootColumn = (index: number) => `c${index}`;

/**
 * The column of the statement's row that holds the root keys' JSON size in
 * bytes; past MAX_REPLY_BYTES, every root key's column is null and the
 * reply is refused with that size, so no worker holds a reply it would not
 * send.
 */
export const REPLY_BYTES = 'reply_bytes';

/**
 * A reply key as a column name. PostgreSQL cuts names at 63 bytes, which
 * would change the key: such a query runs its resolvers. (A GraphQL name is
 * ASCII letters, digits and `_`, so quoting it is all it needs.)
 */
function columnName(key: string): string {
  if (key.length > 63) throw new NotCompiled();
  return `"${key}"`;
}

function objectTypeOf(field: GraphQLField<unknown, unknown>): GraphQLObjectType {
  const type = getNamedType(field.type);
  if (!isObjectType(type)) throw new NotCompiled();
  return type;
}
