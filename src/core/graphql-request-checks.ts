import {
  getOperationAST,
  GraphQLError,
  getNullableType,
  isInputObjectType,
  isInputType,
  isListType,
  isNonNullType,
  Kind,
  parse,
  TypeInfo,
  typeFromAST,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
  BREAK,
  type DocumentNode,
  type ValueNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { requireViewer, type AppContext } from './context';
import { AppError, ValidationError, type ValidationItem } from './errors';
import { checkDocumentLimits, type DocumentLimits } from './graphql-document-limits';
import { fragmentsUsed } from './graphql-selection';
import { checkInput } from './validation/coerce';

/**
 * GraphQL keeps the REST order of checks: a request that selects a non-public
 * root field without credentials gets 401 before its variables are judged.
 * Root fields reached through fragments count too.
 */
export function checkOperationAuthentication(schema: GraphQLSchema, operation: OperationDefinitionNode, ctx: AppContext, document?: DocumentNode): void {
  if (needsViewer(schema, operation, document)) requireViewer(ctx);
}

/** Whether the operation selects a non-public root field, directly or through fragments. */
function needsViewer(schema: GraphQLSchema, operation: OperationDefinitionNode, document?: DocumentNode): boolean {
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const fields = root?.getFields() ?? {};
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document?.definitions ?? []) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  }
  const seen = new Set<string>();
  const check = (set: SelectionSetNode): boolean => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (check(selection.selectionSet)) return true;
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        if (fragment && !seen.has(selection.name.value)) {
          seen.add(selection.name.value);
          if (check(fragment)) return true;
        }
      } else {
        const field = fields[selection.name.value];
        if (field && !field.extensions?.public) return true;
      }
    }
    return false;
  };
  return check(operation.selectionSet);
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
  const operationName = typeof request.operationName === 'string' ? request.operationName : undefined;
  const verdict = documentVerdict(schema, request.query, operationName, limits);
  if (!verdict) return;
  if (verdict.label) ctx.operation = verdict.label;
  if (verdict.needsViewer) requireViewer(ctx);
  if (verdict.problem) throw verdict.problem;
}

/** What the checks before validation found in one document text: the same for every request that sends it. */
interface DocumentVerdict {
  label: string | null;
  needsViewer: boolean;
  problem: AppError | null;
}

/**
 * Verdicts by schema, limits, operation name and text, so a dashboard sending
 * the same document on every request parses it here once (as Apollo's own
 * document cache does). Bounded: past MAX_VERDICTS texts the oldest go, and
 * texts longer than MAX_CACHED_TEXT, or refused, are judged every time.
 */
const MAX_VERDICTS = 1_000;
const MAX_CACHED_TEXT = 20_000;
const verdicts = new WeakMap<GraphQLSchema, Map<string, DocumentVerdict | null>>();

function documentVerdict(schema: GraphQLSchema, query: string, operationName: string | undefined, limits: DocumentLimits & { maxTokens: number }): DocumentVerdict | null {
  const key = `${limits.maxTokens}:${limits.maxFields}:${limits.maxSelections}:${limits.maxRepeatedFields}:${operationName ?? ''}:${query}`;
  let known = verdicts.get(schema);
  if (!known) {
    known = new Map();
    verdicts.set(schema, known);
  }
  if (known.has(key)) return known.get(key)!;
  const verdict = judgeDocument(schema, query, operationName, limits);
  // A refused document is judged afresh each time (its error is the request's own object).
  if (query.length <= MAX_CACHED_TEXT && !verdict?.problem) {
    if (known.size >= MAX_VERDICTS) known.delete(known.keys().next().value!);
    known.set(key, verdict);
  }
  return verdict;
}

function judgeDocument(schema: GraphQLSchema, query: string, operationName: string | undefined, limits: DocumentLimits & { maxTokens: number }): DocumentVerdict | null {
  let document: DocumentNode;
  try {
    document = parse(query, { maxTokens: limits.maxTokens });
  } catch (error) {
    // graphql-js parses recursively: a document nested deeper than the stack (a list value of a few thousand
    // levels, under the token limit) overflows it, which the transport would answer as a 500.
    if (error instanceof RangeError) {
      const msg = 'The document nests too deeply to be parsed';
      return { label: null, needsViewer: false, problem: new ValidationError([{ loc: ['body', 'query'], msg, type: 'query_depth' }], msg) };
    }
    // A syntax error: graphql-js's own answer (400) follows.
    return null;
  }
  const operation = getOperationAST(document, operationName);
  let problem: AppError | null = null;
  try {
    checkDocumentLimits(document, limits);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    problem = error;
  }
  if (!problem) {
    const literals = literalProblems(schema, document);
    if (literals.length) problem = new ValidationError(literals);
  }
  return {
    label: operation ? `graphql:${operation.name?.value ?? operation.operation}` : null,
    needsViewer: operation ? needsViewer(schema, operation, document) : false,
    problem,
  };
}

/**
 * The values written in the document (arguments' and variables' defaults)
 * judged as variables and REST input are (checkInput: the same rules and
 * the same problem types, so no NUL character, no lone surrogate, no number
 * past a double, no JSON nested past MAX_JSON_DEPTH), each at `["body",
 * "query", argument or $variable, …]`: graphql-js would refuse such a value
 * in prose, without saying where or what kind of problem (`uuid_parsing`,
 * `enum`, …), and would pass some on (a NUL character, which PostgreSQL
 * refuses; `1e400` as Infinity). Judged once per document text, with the
 * rest of its verdict; an argument or a type the schema does not have is
 * left to validation.
 */
function literalProblems(schema: GraphQLSchema, document: DocumentNode): ValidationItem[] {
  const typeInfo = new TypeInfo(schema);
  const errors: ValidationItem[] = [];
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const argument = typeInfo.getArgument();
        if (argument) judgeLiteral(argument.type, node.value, ['body', 'query', node.name.value], errors);
        return false;
      },
      VariableDefinition(node) {
        const type = typeFromAST(schema, node.type as never);
        if (node.defaultValue && type && isInputType(type)) judgeLiteral(type, node.defaultValue, ['body', 'query', `$${node.variable.name.value}`], errors);
        return false;
      },
    }),
  );
  return errors;
}

/**
 * A value written in the document, judged whole where it holds no variable;
 * where it does, its parts that hold none (a variable's own value is judged
 * with the variables). A single value where a list is expected is judged as
 * the list of it that GraphQL's input coercion makes of a literal.
 */
function judgeLiteral(type: GraphQLInputType, value: ValueNode, loc: (string | number)[], errors: ValidationItem[]): void {
  const nullable = getNullableType(type);
  if (isListType(nullable) && value.kind !== Kind.LIST && value.kind !== Kind.VARIABLE && value.kind !== Kind.NULL) {
    judgeLiteral(nullable.ofType, value, loc, errors);
    return;
  }
  if (!holdsVariable(value)) {
    checkInput(type, valueFromASTUntyped(value), loc, errors, 'forbid');
    return;
  }
  if (value.kind === Kind.LIST && isListType(nullable)) {
    value.values.forEach((item, index) => judgeLiteral(nullable.ofType, item, [...loc, index], errors));
  } else if (value.kind === Kind.OBJECT && isInputObjectType(nullable)) {
    const fields = nullable.getFields();
    for (const field of value.fields) {
      const declared = fields[field.name.value];
      if (declared) judgeLiteral(declared.type, field.value, [...loc, field.name.value], errors);
    }
  }
}

function holdsVariable(value: ValueNode): boolean {
  let found = false;
  visit(value, {
    Variable() {
      found = true;
      return BREAK;
    },
  });
  return found;
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
 * only describe it in prose.) Values written in the document are judged the
 * same way before validation (literalProblems).
 */
export function checkOperationVariables(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown> | undefined): void {
  const errors: ValidationItem[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    const type = typeFromAST(schema, definition.type as never) as GraphQLInputType | undefined;
    const value = variables?.[name];
    if (!type || (value === undefined && definition.defaultValue)) continue;
    checkInput(type, value, ['variables', name], errors, 'forbid');
  }
  if (!errors.length && variables && Object.values(variables).includes(null)) nullsWhereRequired(schema, document, operation, variables, errors);
  if (errors.length) throw new ValidationError(errors);
}

/**
 * A variable declared nullable and sent as null, used where a value is
 * required (an argument with a default, `limit: Int! = 20`, may take a
 * nullable variable): refused at the variable as a null for that type,
 * rather than by graphql-js while it runs the field (or by the cost
 * estimate, which reads the arguments first).
 */
function nullsWhereRequired(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>, errors: ValidationItem[]): void {
  const typeInfo = new TypeInfo(schema);
  const reported = new Set<string>();
  const used = new Set(fragmentsUsed(document, operation).map((fragment) => fragment.name.value));
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      // The operation and the fragments it spreads (another operation's fragments see other values).
      OperationDefinition: (node) => (node === operation ? undefined : false),
      FragmentDefinition: (node) => (used.has(node.name.value) ? undefined : false),
      Variable(node) {
        const name = node.name.value;
        const expected = typeInfo.getInputType();
        if (variables[name] !== null || !expected || !isNonNullType(expected) || reported.has(name)) return;
        reported.add(name);
        checkInput(expected, null, ['variables', name], errors);
      },
    }),
  );
}
