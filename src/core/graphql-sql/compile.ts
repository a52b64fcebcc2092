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
import { collectFields } from '../graphql-selection';
import type { AppContext } from '../context';
import { SqlParams, type SqlField, type SqlRoot } from './sql-fields';

/** The statement that answers a query, before its root fields' tenant checks ran. */
export interface CompiledQuery {
  /** The reply's root keys, in reply order: the statement's one row has a column of JSON text for each. */
  keys: string[];
  /** Each root field with its arguments, and whether GraphQL allows it to be null. */
  roots: { key: string; field: string; args: Record<string, unknown>; nullable: boolean }[];
  /** Runs the roots' checks and answers the statement text with its parameters. */
  statement(ctx: AppContext): Promise<{ text: string; params: Record<string, unknown> }>;
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

  function objectJson(type: GraphQLObjectType, row: string, nodes: readonly FieldNode[]): string {
    const selected = collectFields(schema, fragments, variables, type, nodes.map((node) => node.selectionSet));
    const parts: string[] = [];
    for (const [key, fieldNodes] of selected) parts.push(`${fieldSql(type, row, fieldNodes)} AS ${columnName(key)}`);
    return `(SELECT to_json(${ROW}) FROM (SELECT ${parts.join(', ')}) ${ROW})`;
  }

  function fieldSql(type: GraphQLObjectType, row: string, nodes: readonly FieldNode[]): string {
    const name = nodes[0].name.value;
    if (name === '__typename') return `'${type.name}'::text`;
    const definition = type.getFields()[name];
    const described = definition?.extensions.sql as SqlField | undefined;
    if (!described) throw new NotCompiled();
    switch (described.kind) {
      case 'value':
        if (definition.args.length) throw new NotCompiled();
        return described.sql(row);
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
        const rows = described.rows(row, as, getArgumentValues(definition, nodes[0], variables), params, ctx);
        if (!rows) throw new NotCompiled();
        // array_to_json writes no space between items (json_agg does), as graphql-js serialises a list.
        return `(SELECT coalesce(array_to_json(array_agg(${objectJson(child, as, nodes)} ORDER BY ${rows.orderBy})), '[]'::json) FROM (${rows.select}) ${as})`;
      }
    }
  }

  try {
    const roots: { key: string; field: string; root: SqlRoot; args: Record<string, unknown>; as: string; json: string }[] = [];
    const typenames: { key: string }[] = [];
    const selected = collectFields(schema, fragments, variables, queryType, [operation.selectionSet]);
    for (const [key, nodes] of selected) {
      const name = nodes[0].name.value;
      if (name === '__typename') {
        typenames.push({ key });
        continue;
      }
      const definition = queryType.getFields()[name];
      const root = definition?.extensions.sqlRoot as SqlRoot | undefined;
      // A list root, or a key PostgreSQL would cut, is the resolvers' (before the root's check reads anything).
      if (!root || !definition || isListType(getNullableType(definition.type))) return null;
      columnName(key);
      const as = nextAlias();
      roots.push({ key, field: name, root, args: getArgumentValues(definition, nodes[0], variables), as, json: objectJson(objectTypeOf(definition), as, nodes) });
    }
    if (!roots.length) return null;
    const keys = [...selected.keys()];
    return {
      keys,
      roots: roots.map(({ key, field, args }) => ({ key, field, args, nullable: !isNonNullType(queryType.getFields()[field].type) })),
      async statement(context) {
        const columns = new Map<string, string>();
        for (const { key } of typenames) columns.set(key, `to_json('${queryType.name}'::text)`);
        for (const { key, root, args, as, json } of roots) columns.set(key, `(SELECT ${json} FROM ${await root.from(context, args, params, as)})`);
        const select = keys.map((key) => `coalesce(${columns.get(key)}, 'null'::json)::text AS ${columnName(key)}`).join(', ');
        return { text: `SELECT ${select}`, params: params.values };
      },
    };
  } catch (error) {
    // Arguments graphql-js would refuse are its to report.
    if (error instanceof NotCompiled || error instanceof GraphQLError) return null;
    throw error;
  }
}

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
