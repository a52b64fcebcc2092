import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { getNamedType, getNullableType, isLeafType, isListType, isObjectType, Kind, validate, type DocumentNode, type GraphQLField, type FragmentDefinitionNode, type GraphQLSchema } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { config } from '../config/config';
import { clampChildLimit } from './child-limit';
import { collectFields } from './graphql-selection';
import { ValidationError } from './errors';

/**
 * The cost budget of a GraphQL operation, checked after validation and
 * before execution (no resolver, so no SQL, runs for a refused operation):
 *
 * - depth and aliases: graphql-armor's rules (fragments flattened and
 *   memoised; the introspection query is exempt from the depth limit);
 * - cost: graphql-query-complexity (cost units calibrated against server
 *   time with `npm run bench -- limits`, see bench/README.md). A leaf costs 0, an object 1 plus its
 *   selection, and a field with a `limit` (or `page_size`) argument
 *   multiplies that by its value (ABSENT_PAGE when it is left out and the
 *   schema gives no default), so the estimate follows the number of
 *   objects a reply can hold. Every other list is priced at its worst case:
 *   a page envelope's list (`@PageItems()`) by its root field's page, a list
 *   its parent's row holds (`@MaxItems(n)`) at n elements, an object element
 *   a tenth of an object (plus a tenth of its selection) and a leaf element
 *   a hundredth, which is what completing them costs next to an object read
 *   by a statement. A leaf declared large (`@MaxBytes(n)`) costs n bytes
 *   at MAX_REPLY_BYTES ÷ GRAPHQL_MAX_COST bytes a unit, so the budget bounds
 *   what a query's large values may come to by MAX_REPLY_BYTES. Root fields
 *   that run heavy statements declare a base cost with
 *   `complexity: withBaseCost(n)` (or a fixed number) beside their resolver.
 *
 * The parse itself is bounded by Apollo's `parseOptions.maxTokens`, and the
 * document's size before validation (graphql-document-limits.ts).
 */
export interface GraphQLLimits {
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}

/** Nodes graphql-query-complexity visits at most before it gives up (fragment explosions). */
const MAX_QUERY_NODES = 10_000;

/** The page a field's arguments ask for; a navigation field's `limit` as it serves it (ChildLimit: at most its `childLimit`). */
function pageSize(args: Record<string, unknown>, field?: GraphQLField<unknown, unknown>): number | null {
  const value = args.limit ?? args.page_size;
  const max = field?.extensions?.childLimit;
  if (typeof max === 'number' && typeof value === 'number') return clampChildLimit(value, max);
  return typeof value === 'number' && value > 0 ? value : null;
}

/** The page of a list whose `limit` (or `page_size`) is left out without a default in the schema: no list serves more by default. */
const ABSENT_PAGE = 100;
/** Elements of a list its parent holds per cost unit: objects, and leaves (strings, numbers). */
const EMBEDDED_OBJECTS_PER_UNIT = 10;
const EMBEDDED_LEAVES_PER_UNIT = 100;
/** `__schema` and `__type`, whatever their selection (one per object would price the whole introspection query near 1). */
const SCHEMA_INTROSPECTION_COST = 2_500;
const TYPE_INTROSPECTION_COST = 100;
/** A list nobody bounded (the schema test refuses one) is priced as this many elements. */
const UNBOUNDED_ITEMS = 20_000;

/** The declared size of a large leaf (MaxBytes), if any. */
function maxBytes(field: GraphQLField<unknown, unknown>): number | null {
  const bytes = field.extensions?.maxBytes;
  if (typeof bytes === 'function') return bytes();
  return typeof bytes === 'number' ? bytes : null;
}

/** The bytes of a large leaf per cost unit: the budget (GRAPHQL_MAX_COST) covers MAX_REPLY_BYTES of them. */
const bytesPerUnit = () => config().MAX_REPLY_BYTES / config().GRAPHQL_MAX_COST;

/** The declared bound of a list field without a `limit` (MaxItems, PageItems), if any. */
export function listBound(field: GraphQLField<unknown, unknown>): number | 'page' | null {
  const bound = field.extensions?.maxItems;
  if (typeof bound === 'function') return bound();
  return typeof bound === 'number' || bound === 'page' ? bound : null;
}

export function takesPage(field: GraphQLField<unknown, unknown>): boolean {
  return field.args.some((arg) => arg.name === 'limit' || arg.name === 'page_size');
}

/**
 * Leaves cost 0 and every object 1 plus its selection; a page size
 * multiplies both, and a list without one is priced at its declared bound.
 * Introspection keeps one per object (it is bounded by the token limit),
 * but `__schema` and `__type` cost a fixed amount, so aliases of them
 * cannot multiply their replies.
 */
const pageAwareEstimator: ComplexityEstimator = ({ type, field, args, childComplexity }) => {
  const leaf = isLeafType(getNamedType(field.type));
  const one = leaf ? 0 : 1 + childComplexity;
  // A whole schema's introspection is a reply of some 400 KB built in the event loop: a few per operation at most.
  if (field.name === '__schema') return SCHEMA_INTROSPECTION_COST;
  if (field.name === '__type') return TYPE_INTROSPECTION_COST;
  if (type.name.startsWith('__') || field.name.startsWith('__')) return one;
  // A large leaf (a list of them too) costs what it may hold.
  const bytes = maxBytes(field);
  if (bytes !== null) return Math.ceil(bytes / bytesPerUnit());
  // A page envelope's root field is not a list, but its page is priced here.
  if (takesPage(field)) return (pageSize(args, field) ?? ABSENT_PAGE) * one;
  if (!isListType(getNullableType(field.type))) return one;
  const bound = listBound(field) ?? UNBOUNDED_ITEMS;
  if (bound === 'page') return one;
  return Math.ceil(leaf ? bound / EMBEDDED_LEAVES_PER_UNIT : (bound * one) / EMBEDDED_OBJECTS_PER_UNIT);
};

/**
 * For a root field that answers one object with an embedded list whole (an
 * evaluation's `skipped_members`: the first EMBEDDED_LIST_CAP in a list
 * item, every one in the single read), where the list's field is priced as
 * a list item holds it (its `@MaxItems`): the rest of the list, up to
 * `most` elements of leaves, for each time the selection asks for it
 * (aliases, fragments). So a list of such objects is priced at what it
 * holds, and the single read at all it may hold.
 */
export function wholeEmbeddedListCost(listField: string, most: () => number): ComplexityEstimator {
  return ({ field, node, childComplexity, context }) => {
    const returned = getNamedType(field.type);
    const list = isObjectType(returned) ? returned.getFields()[listField] : undefined;
    const held = list ? listBound(list) : null;
    if (!isObjectType(returned) || typeof held !== 'number') throw new Error(`wholeEmbeddedListCost: ${field.name} returns no ${listField} with @MaxItems`);
    const { schema, fragments, variables } = context as CostContext;
    // Each response key that selects the list reads it whole once (aliases, fragments: the fields graphql-js executes).
    const asked = [...collectFields(schema, fragments, variables, returned, [node.selectionSet]).values()].filter((nodes) => nodes[0].name.value === listField).length;
    return 1 + childComplexity + asked * Math.ceil(Math.max(0, most() - held) / EMBEDDED_OBJECTS_PER_UNIT);
  };
}

/** What the estimators get beside the field: the schema, the document's fragments by name and the variables. */
interface CostContext {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

/**
 * For a root field whose own statements cost more than its objects (a count,
 * an aggregate): `base`, plus its page (`defaultPage` when no limit is given)
 * times the cost of its selection.
 */
export function withBaseCost(
  base: number | ((args: Record<string, unknown>) => number),
  defaultPage = 1,
  perItem = 0,
): ComplexityEstimator {
  return ({ args, childComplexity }) =>
    (typeof base === 'number' ? base : base(args)) + (pageSize(args) ?? defaultPage) * (1 + perItem + childComplexity);
}

/** The estimated cost of an operation (as the budget check computes it); for the benchmark and docs. */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, variables?: Record<string, unknown>, operationName?: string): number {
  return getComplexity({
    schema,
    query: document,
    operationName,
    variables,
    estimators: [fieldExtensionsEstimator(), pageAwareEstimator],
    maxQueryNodes: MAX_QUERY_NODES,
    context: {
      schema,
      fragments: Object.fromEntries(document.definitions.flatMap((definition) => (definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition]] : []))),
      variables: variables ?? {},
    } satisfies CostContext,
  });
}

/** Throws 422 validation_error naming what was measured and the limit. */
export function checkOperationLimits(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown> | undefined,
  limits: GraphQLLimits,
): void {
  const problems: { loc: string[]; msg: string; type: string }[] = [];
  const reject = (type: string) => (_context: unknown, error: Error) => {
    problems.push({ loc: ['body', 'query'], msg: error.message.replace(/^Syntax Error: /, ''), type });
  };
  validate(schema, document, [
    maxDepthRule({ n: limits.maxDepth, flattenFragments: true, exposeLimits: true, propagateOnRejection: false, onReject: [reject('query_depth')] }),
    maxAliasesRule({ n: limits.maxAliases, exposeLimits: true, propagateOnRejection: false, onReject: [reject('query_aliases')] }),
  ]);
  if (!problems.length) {
    let cost: number;
    try {
      cost = operationCost(schema, document, variables, operationName);
    } catch (error) {
      throw new ValidationError(
        [{ loc: ['body', 'query'], msg: error instanceof Error ? error.message : 'The query is too large', type: 'query_cost' }],
        'The query is too large to estimate',
      );
    }
    if (cost > limits.maxCost) {
      problems.push({ loc: ['body', 'query'], msg: `Query cost ${cost} exceeds the limit of ${limits.maxCost}`, type: 'query_cost' });
    }
  }
  if (problems.length) throw new ValidationError(problems, problems.map((problem) => problem.msg).join('; '));
}
