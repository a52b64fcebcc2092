import { GraphQLError, Kind, typeFromAST, type GraphQLInputType, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { requireViewer, type AppContext } from './context';
import { AppError, ValidationError, type ValidationItem } from './errors';
import { checkInput } from './validation/coerce';

/**
 * GraphQL keeps the REST order of checks: a request that selects a non-public
 * root field without credentials gets 401 before its variables are judged.
 */
export function checkOperationAuthentication(schema: GraphQLSchema, operation: OperationDefinitionNode, ctx: AppContext): void {
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const fields = root?.getFields() ?? {};
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) continue;
    const field = fields[selection.name.value];
    if (!field || field.extensions?.public) continue;
    requireViewer(ctx);
  }
}

/**
 * An error raised before execution (the checks of this file and the budget),
 * as Apollo needs it to keep its own HTTP status (Apollo would answer 500).
 * The transport wraps once around all of them.
 */
export function asRequestError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  return new GraphQLError(error.message, { originalError: error, extensions: { http: { status: error.status } } });
}

/**
 * The GraphQL side of strict input checking: variables are checked against
 * the operation's variable types before execution, with the same rules and
 * item types as REST bodies, and every problem reported at once at
 * `["variables", name, ...]`. (graphql-js would stop at the first problem and
 * only describe it in prose.)
 */
export function checkOperationVariables(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown> | undefined,
): void {
  const errors: ValidationItem[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined;
    const value = variables?.[name];
    if (!type || (value === undefined && definition.defaultValue)) continue;
    checkInput(type, value, ['variables', name], errors);
  }
  if (errors.length) throw new ValidationError(errors);
}
