import {
  typeFromAST,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type VariableDefinitionNode,
} from 'graphql';
import type { RestRequest } from '../core/context';
import { MAX_COLLECTED_PROBLEMS, ValidationError, type ValidationItem } from '../core/errors';
import { validateInputValue } from '../core/validation/class-validation';
import { checkInput, fromQueryText } from '../core/validation/coerce';

/**
 * Builds the GraphQL variables of a REST call from its three sources, strictly:
 * path parameters (already matched by Sofa), the JSON body for the `input`
 * argument, and the query string for every other argument. Every problem is
 * collected with its location (`path`, `body`, `query`).
 */
export function readRestVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  pathValues: Record<string, unknown>,
  rest: RestRequest,
): { variables: Record<string, unknown>; errors: ValidationItem[] } {
  const variables: Record<string, unknown> = {};
  const errors: ValidationItem[] = [];
  const hasBody = rest.method === 'POST' || rest.method === 'PUT' || rest.method === 'PATCH' || rest.method === 'DELETE';
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = variableType(schema, definition);
    if (!type) continue;
    if (name in pathValues) {
      const value = checkInput(type, pathValues[name], ['path', name], errors);
      if (value !== undefined) variables[name] = value;
    } else if (name === 'input' && hasBody) {
      const body = rest.body === undefined ? {} : rest.body;
      const itemErrors: ValidationItem[] = [];
      const value = checkInput(type, body, ['body'], itemErrors);
      for (const item of itemErrors) errors.push(item);
      // Checking stopped where it had found enough problems: the rules would read what it left unread.
      if (itemErrors.length >= MAX_COLLECTED_PROBLEMS) continue;
      // Rule checks run on what parsed, so one reply lists every problem. A rule problem at or under a place the
      // types already refused is left out, and so is one above it that judges values rather than the container
      // (a list's `each` rule is located at the list, and would call a null element too long); a container's own
      // rules (its size, unique paths) still count. Found by prefixes: linear in the problems, however many.
      const refused = new Set(itemErrors.map((item) => locKey(item.loc)));
      const aboveRefused = new Set(itemErrors.flatMap((item) => item.loc.slice(0, -1).map((_part, index) => locKey(item.loc.slice(0, index + 1)))));
      for (const item of validateInputValue(type, value ?? partial(body), ['body'])) {
        if (aboveRefused.has(locKey(item.loc)) && !CONTAINER_RULES.has(item.type)) continue;
        if (!item.loc.some((_part, index) => refused.has(locKey(item.loc.slice(0, index + 1))))) errors.push(item);
      }
      if (value !== undefined) variables[name] = value;
    } else {
      const value = checkInput(type, fromQueryText(type, rest.query.getAll(name)), ['query', name], errors);
      if (value !== undefined) variables[name] = value;
    }
  }
  return { variables, errors };
}

/** A variable definition's input type, resolved once per definition of each schema (a route's document is built once). */
const variableTypes = new WeakMap<GraphQLSchema, WeakMap<VariableDefinitionNode, GraphQLInputType | undefined>>();
function variableType(schema: GraphQLSchema, definition: VariableDefinitionNode): GraphQLInputType | undefined {
  let types = variableTypes.get(schema);
  if (!types) variableTypes.set(schema, (types = new WeakMap()));
  if (!types.has(definition)) types.set(definition, typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined);
  return types.get(definition);
}

/** Rule problems about a list or object as a whole (its size; a class's own checks, such as unique paths), not its values. */
const CONTAINER_RULES = new Set(['too_long', 'too_short', 'value_error']);

function partial(body: unknown): unknown {
  return body && typeof body === 'object' && !Array.isArray(body) ? body : undefined;
}

/** A location as one text (its parts JSON-encoded, so `["a.b"]` and `["a", "b"]` differ). */
const locKey = (loc: (string | number)[]) => JSON.stringify(loc);

/**
 * Maps a GraphQL-side validation location (argument path) to the REST one:
 * `input.x` → `body.x`, a path parameter → `path`, anything else → `query`.
 */
export function toRestLoc(loc: (string | number)[], pathParams: string[]): (string | number)[] {
  if (loc[0] === 'body' || loc[0] === 'query' || loc[0] === 'path') return loc;
  if (loc[0] === 'input') return ['body', ...loc.slice(1)];
  if (typeof loc[0] === 'string' && pathParams.includes(loc[0])) return ['path', ...loc];
  return ['query', ...loc];
}

/** A validation failure, its locations as REST names them (toRestLoc); anything else as it is. */
export function withRestLocs(error: unknown, pathParams: string[]): unknown {
  if (!(error instanceof ValidationError) || !error.errors) return error;
  return new ValidationError(
    error.errors.map((item) => ({ ...item, loc: toRestLoc(item.loc, pathParams) })),
    error.message,
  );
}
