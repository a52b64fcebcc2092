import { Kind, locatedError, responsePathAsArray, type ExecutionResult, type GraphQLError, type GraphQLFieldResolver } from 'graphql';

/**
 * Every error of a query's root fields, in one order (decisions §4: all
 * errors of a request are reported at once). graphql-js runs a query's root
 * fields side by side and ends the execution at the first non-null root
 * that fails: the errors of the roots still running were reported or not
 * depending on which finished first, and another non-null root's error
 * never. So a failing root waits for its siblings to settle, its error is
 * kept here, and the result gets every root's error, ordered as the roots
 * were asked for (a failure below a root that propagates up to it is
 * graphql-js's own and keeps its place).
 */

/** A query's root fields as they run. */
interface Roots {
  /** Each root's result settled (success or failure), in the order the roots started. */
  running: Promise<unknown>[];
  /** Response key → the order its root started in. */
  order: Map<string, number>;
  failures: GraphQLError[];
}

const operations = new WeakMap<object, Roots>();

/** `resolve` of a Query root field, as one of its siblings (the operation is keyed by its context). */
export function settledTogether<TContext extends object>(resolve: GraphQLFieldResolver<unknown, TContext>): GraphQLFieldResolver<unknown, TContext> {
  return (source, args, context, info) => {
    // A query of one root field (every REST route's) has no sibling to wait for.
    const selections = info.operation.selectionSet.selections;
    if (selections.length === 1 && selections[0].kind === Kind.FIELD) return resolve(source, args, context, info);
    const roots: Roots = operations.get(context) ?? { running: [], order: new Map(), failures: [] };
    operations.set(context, roots);
    if (!roots.order.has(info.path.key as string)) roots.order.set(info.path.key as string, roots.order.size);
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(resolve(source, args, context, info));
    } catch (error) {
      result = Promise.reject(error);
    }
    roots.running.push(result.then(noop, noop));
    // Every root started before any of them settles (graphql-js calls them in one loop): all are in `running`.
    return result.catch(async (error: unknown) => {
      roots.failures.push(locatedError(error, info.fieldNodes, responsePathAsArray(info.path)));
      await Promise.all(roots.running);
      throw error;
    });
  };
}

const noop = () => undefined;

/** The execution's result with every failed root's error, in the order the roots were asked for. */
export function withEveryRootError<T extends ExecutionResult>(result: T, context: object): T {
  const roots = operations.get(context);
  if (!roots?.failures.length) return result;
  const reported = result.errors ?? [];
  const seen = new Set(reported.map((error) => JSON.stringify(error.path ?? null)));
  const missing = roots.failures.filter((error) => !seen.has(JSON.stringify(error.path)));
  const place = (error: GraphQLError) => (error.path?.length ? (roots.order.get(String(error.path[0])) ?? roots.order.size) : -1);
  // Array.prototype.sort is stable: errors under one root keep their order.
  const errors = [...reported, ...missing].sort((a, b) => place(a) - place(b));
  return { ...result, errors };
}
