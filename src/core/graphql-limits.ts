import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { getNamedType, isLeafType, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { fieldExtensionsEstimator, getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { ValidationError } from './errors';

/**
 * The cost budget of a GraphQL operation, checked after validation and
 * before execution (no resolver, so no SQL, runs for a refused operation):
 *
 * - depth and aliases: graphql-armor's rules (fragments flattened and
 *   memoised; the introspection query is exempt from the depth limit);
 * - cost: graphql-query-complexity (one cost unit ≈ 0.025 ms of server time
 *   at 1,000,000 sessions, `npm run bench -- limits`). A leaf costs 0, an object 1 plus its
 *   selection, and a field with a `limit` (or `page_size`) argument
 *   multiplies that by its value, so the estimate follows the number of
 *   objects a reply can hold. Root fields that run heavy statements declare a base cost with
 *   `complexity: withBaseCost(n)` (or a fixed number) beside their resolver.
 *
 * The parse itself is bounded by Apollo's `parseOptions.maxTokens`.
 */
export interface GraphQLLimits {
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}

/** Nodes graphql-query-complexity visits at most before it gives up (fragment explosions). */
const MAX_QUERY_NODES = 10_000;

function pageSize(args: Record<string, unknown>): number | null {
  const value = args.limit ?? args.page_size;
  return typeof value === 'number' && value > 0 ? value : null;
}

/** Leaves cost 0 and every object 1 plus its selection; a page size multiplies both. */
const pageAwareEstimator: ComplexityEstimator = ({ field, args, childComplexity }) =>
  isLeafType(getNamedType(field.type)) ? 0 : (pageSize(args) ?? 1) * (1 + childComplexity);

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
