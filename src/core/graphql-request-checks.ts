import {
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  typeFromAST,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { requireViewer, type AppContext } from './context';
import { AppError, ValidationError, type ValidationItem } from './errors';
import { checkDocumentLimits, type DocumentLimits } from './graphql-document-limits';
import { checkInput } from './validation/coerce';

/**
 * GraphQL keeps the REST order of checks: a request that selects a non-public
 * root field without credentials gets 401 before its variables are judged.
 * Root fields reached through fragments count too.
 */
export function checkOperationAuthentication(schema: GraphQLSchema, operation: OperationDefinitionNode, ctx: AppContext, document?: DocumentNode): void {
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const fields = root?.getFields() ?? {};
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document?.definitions ?? []) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  }
  const seen = new Set<string>();
  const check = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) check(selection.selectionSet);
      else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !seen.has(selection.name.value)) {
          seen.add(selection.name.value);
          check(fragment);
        }
      } else {
        const field = fields[selection.name.value];
        if (field && !field.extensions?.public) requireViewer(ctx);
      }
    }
  };
  check(operation.selectionSet);
}

/** What a GraphQL request carries, as the transport read it (a POST body, or a GET's query string). */
export interface GraphQLRequestText {
  query: unknown;
  operationName: unknown;
}

/**
 * The checks that run before graphql-js validation, whose cost grows faster
 * than the document (its overlapping-fields rule): the caller is already
 * known and within its quota (the transport made the context), the document
 * is parsed with the same token limit Apollo applies, then credentials (401
 * for a non-public root field) and the document's size
 * (graphql-document-limits.ts, 422). A request without a query text (a
 * persisted query's hash), a document that does not parse or that names no
 * single operation is left to Apollo, which answers it as before (its parse
 * is bounded by the token limit, and a hash names a document that passed
 * here when it was registered).
 */
export function checkDocumentBeforeValidation(
  schema: GraphQLSchema,
  request: GraphQLRequestText,
  ctx: AppContext,
  limits: DocumentLimits & { maxTokens: number },
): void {
  if (typeof request.query !== 'string') return;
  let document: DocumentNode;
  try {
    document = parse(request.query, { maxTokens: limits.maxTokens });
  } catch {
    return;
  }
  const operationName = typeof request.operationName === 'string' ? request.operationName : undefined;
  const operation = getOperationAST(document, operationName);
  if (operation) {
    ctx.operation = `graphql:${operation.name?.value ?? operation.operation}`;
    checkOperationAuthentication(schema, operation, ctx, document);
  }
  checkDocumentLimits(document, limits);
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
