import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApolloServer, HeaderMap, type ApolloServerOptionsWithGateway, type BaseContext } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { GraphQLError, Kind, type ASTVisitor, type DocumentNode, type ExecutionResult, type GraphQLSchema, type OperationDefinitionNode, type ValidationContext } from 'graphql';
import type { AppContext } from '../core/context';
import { stringifyResult, UNWRITABLE_REPLY, type Engine } from '../core/graphql-sql/engine';
import type { ScopeHint } from '../core/tenancy/scope';
import { ForbiddenError, MethodNotAllowedError, RateLimitedError, replyTooLarge, reportError, ValidationError, type ValidationItem } from '../core/errors';
import { operationHash, trustedHashes } from '../core/trusted-documents';
import { startSpan, type ActiveSpan } from '../core/telemetry';
import { formatGraphQLError } from '../core/errors/graphql-errors';
import { isPlainObject } from '../core/validation/coerce';
import { config } from '../config/config';
import { checkOperationLimits } from '../core/graphql-limits';
import { NO_STORE_HEADERS, selectsNoStoreField } from '../core/no-store';
import { asRequestError, checkDocumentBeforeValidation, checkOperationAuthentication, checkOperationVariables } from '../core/graphql-request-checks';
import { DEFAULT_BODY_LIMIT, readJsonBody } from './body';
import { contextFor, routeMethod, type RequestState } from './request';
import { oversizedReply, prefersHtml, sendBody, sendHtml } from './respond';
import { GRAPHIQL_PAGE } from './static-assets';

/** The methods /graphql answers (Allow). */
export const GRAPHQL_METHODS = ['GET', 'HEAD', 'POST', 'OPTIONS'];

export interface GraphQLTransport {
  handle(req: IncomingMessage, res: ServerResponse, url: URL, state: RequestState): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The organization and workspace a GraphQL request names in its variables
 * `org` and `workspace` (as the dashboards' documents do), read with the
 * credential in its one statement, as a REST route's path keys are. Only a
 * prefetch: the tenant check uses it when it resolves exactly these keys and
 * reads its own row otherwise, so variables named differently cost nothing
 * but the statement a query would run anyway.
 */
function scopeHintOf(body: unknown): ScopeHint | null {
  const variables = (body as { variables?: unknown } | null)?.variables as Record<string, unknown> | null | undefined;
  const org = variables?.org;
  const workspace = variables?.workspace;
  if (typeof org !== 'string') return null;
  if (workspace !== undefined && typeof workspace !== 'string') return null;
  return { org, workspace: workspace ?? null };
}

/** GRAPHQL_TRUSTED_DOCUMENTS: an operation off the allow-list is refused (403) before anything runs. */
function checkTrustedDocument(document: DocumentNode, operationName: string | null | undefined): void {
  const trusted = trustedHashes();
  if (!trusted) return;
  const hash = operationHash(document, operationName);
  if (hash === null || !trusted.has(hash)) throw new ForbiddenError('Only trusted GraphQL documents run on this server; this operation is not one of them');
}

/**
 * POST /graphql through Apollo (executeHTTPGraphQLRequest, CSRF prevention
 * on), and GraphiQL for a browser's GET. The same context factory as REST.
 */
export async function createGraphQLTransport(schema: GraphQLSchema, engine: Engine): Promise<GraphQLTransport> {
  // The read engine is Apollo's executor, supplied through its gateway interface (the schema never changes).
  const gateway: ApolloServerOptionsWithGateway<AppContext & BaseContext>['gateway'] = {
    onSchemaLoadOrUpdate(callback) {
      callback({ apiSchema: schema, coreSupergraphSdl: '' });
      return () => undefined;
    },
    // The operation the client named (Apollo's own `operationName` is the one it resolved: none for an unknown name,
    // which would run the document's only operation instead of failing).
    load: async () => ({
      executor: ({ document, request, context }) =>
        engine.execute({ document, operationName: request.operationName, variables: request.variables }, context as AppContext) as Promise<ExecutionResult<Record<string, unknown>>>,
    }),
    stop: async () => undefined,
  };
  const apollo = new ApolloServer<AppContext & BaseContext>({
    gateway,
    stringifyResult,
    csrfPrevention: true,
    // No automatic persisted queries: the allow-list of documents is GRAPHQL_TRUSTED_DOCUMENTS, and APQ's
    // hash lookup answered a hash that is not text with a 500 (a client sending one is told it is not supported).
    persistedQueries: false,
    introspection: config().GRAPHQL_INTROSPECTION,
    validationRules: [KnownOperationTypesRule],
    // Off in production: a validation error then names no field or type the caller did not write ("Did you mean …?").
    hideSchemaDetailsFromClientErrors: !config().GRAPHQL_FIELD_SUGGESTIONS,
    formatError: formatGraphQLError,
    includeStacktraceInErrorResponses: false,
    // A huge document stops parsing at this many tokens (400 → answered as 422 below).
    parseOptions: { maxTokens: config().GRAPHQL_MAX_TOKENS },
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      // No HTTP caching of GraphQL replies (they are per caller): without this Apollo wraps every field resolver to compute cache hints.
      ApolloServerPluginCacheControlDisabled(),
      {
        async requestDidStart({ contextValue }) {
          // The operation's span while tracing is on (core/telemetry.ts), from its resolution to its reply.
          let span: ActiveSpan | null = null;
          return {
            async didResolveOperation({ operationName, operation, request, document, response }) {
              // Logged per request; metrics keep the bounded route label `graphql`.
              contextValue.operation = `graphql:${operationName ?? operation?.operation ?? 'anonymous'}`;
              span = startSpan(`graphql ${operation?.operation ?? 'operation'} ${operationName ?? 'anonymous'}`, {
                'graphql.operation.name': operationName ?? '',
                'graphql.operation.type': operation?.operation ?? '',
              });
              // A reply that may carry a token or a new key is never cached (fields marked @NoStore).
              if (selectsNoStoreField(schema, document)) response.http.headers.set('cache-control', NO_STORE_HEADERS['Cache-Control']);
              if (!operation) return;
              // The scope read with the credential is a snapshot from before the document ran: a mutation's later
              // fields must see what its earlier ones changed (a workspace created, renamed, a role changed).
              if (operation.operation !== 'query') contextValue.prefetched = null;
              // Order of checks before execution: credentials, variables, then the budget (credentials and the
              // document's size were checked before validation in handle(); a persisted query's hash is checked here).
              const settings = config();
              try {
                checkTrustedDocument(document, operationName);
                checkOperationAuthentication(schema, operation, contextValue, document);
                checkOperationVariables(schema, document, operation, request.variables);
                checkOperationLimits(schema, document, operationName ?? undefined, request.variables, {
                  maxDepth: settings.GRAPHQL_MAX_DEPTH,
                  maxAliases: settings.GRAPHQL_MAX_ALIASES,
                  maxCost: settings.GRAPHQL_MAX_COST,
                });
              } catch (error) {
                throw asRequestError(error);
              }
            },
            async willSendResponse({ response, operation }) {
              const errors = response.body.kind === 'single' ? response.body.singleResult.errors : undefined;
              span?.end(errors?.length ? errors[0].message : undefined);
              const quota = quotaRefusals.get(contextValue.response);
              if (quota) quota.nothingDone = everyRootFieldFailed(operation, errors ?? []);
            },
            async didEncounterErrors({ errors }) {
              for (const error of errors) {
                reportError(contextValue.logger, error, { operation: contextValue.operation });
                if (error.originalError instanceof RateLimitedError && !quotaRefusals.has(contextValue.response)) quotaRefusals.set(contextValue.response, { error: error.originalError, nothingDone: false });
              }
            },
          };
        },
      },
    ],
  });
  await apollo.start();

  /** A request to /graphql (labelled `graphql` by the caller, so that its refusals are GraphQL replies). */
  async function handle(req: IncomingMessage, res: ServerResponse, url: URL, state: RequestState): Promise<void> {
    const method = routeMethod(req);
    if (method !== 'GET' && method !== 'POST') throw new MethodNotAllowedError(GRAPHQL_METHODS);
    // A GET's reply depends on its Accept: the playground, or GraphQL's JSON in the media type asked for.
    if (method === 'GET' && config().GRAPHQL_PLAYGROUND && prefersHtml(req)) return sendHtml(res, GRAPHIQL_PAGE, { Vary: 'Accept' });
    const body = await readJsonBody(req, DEFAULT_BODY_LIMIT);
    if (body.error) throw new ValidationError([body.error], 'Request body is not valid JSON');
    const headers = new HeaderMap();
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const ctx = await contextFor(req, state, null, scopeHintOf(body.value));
    // A POST body that is not a GraphQL request: 422, as every other refusal here (Apollo would answer 400 while
    // the error's own status said 422). Refusals thrown here are GraphQL replies (app.ts fail(), the route's label).
    if (method !== 'GET') {
      const problems = requestShapeProblems(body.value);
      if (problems.length) throw new ValidationError(problems, 'The body is not a GraphQL request');
    }
    // Credentials and the document's size before Apollo validates it (graphql-js validation is not linear).
    const settings = config();
    const request = (method === 'GET' ? Object.fromEntries(url.searchParams) : body.value) as Record<string, unknown> | null;
    if (request && typeof request === 'object' && !Array.isArray(request)) {
      checkDocumentBeforeValidation(schema, { query: request.query, operationName: request.operationName }, ctx, {
        maxTokens: settings.GRAPHQL_MAX_TOKENS,
        maxFields: settings.GRAPHQL_MAX_FIELDS,
        maxSelections: settings.GRAPHQL_MAX_SELECTIONS,
        maxRepeatedFields: settings.GRAPHQL_MAX_REPEATED_FIELDS,
      });
    }
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method, headers, search: url.search, body: body.value },
      context: async () => ctx,
    });
    const replyHeaders: Record<string, string> = {};
    // Apollo's names are lower case; Cache-Control takes the request's own key, so a reply carries it once.
    for (const [name, value] of response.headers) if (name !== 'content-type') replyHeaders[name === 'cache-control' ? 'Cache-Control' : name] = value;
    // The schema has no @defer or @stream: Apollo's reply is always complete.
    if (response.body.kind !== 'complete') throw new Error('GraphQL replied incrementally, which this server does not offer');
    const text = response.body.string;
    const tooLarge = text === UNWRITABLE_REPLY ? replyTooLarge('graphql', null) : oversizedReply(text, 'graphql');
    if (tooLarge) throw tooLarge;
    // A field refused by a quota (the account operations' per-IP and per-account quotas) tells the client when to come
    // back; when every root field failed, the reply is the quota's 429 as on REST, with its X-RateLimit-* (beside a
    // field that was done, the request's own quota headers stay and only Retry-After is added).
    if (method === 'GET') replyHeaders.Vary = 'Accept';
    const quota = quotaRefusals.get(ctx.response);
    if (quota) Object.assign(replyHeaders, quota.nothingDone ? quota.error.headers : { 'Retry-After': quota.error.headers['Retry-After'] });
    const status = quota?.nothingDone ? quota.error.status : replyStatus(response.status ?? 200, text);
    sendBody(res, status, text, response.headers.get('content-type') ?? 'application/json; charset=utf-8', replyHeaders);
  }

  return { handle, stop: () => apollo.stop() };
}

/**
 * graphql-js 17's rule, absent from 16: an operation whose root type the
 * schema lacks (a subscription: this API has none) is a validation error,
 * not an execution answering `data: null` with 200.
 */
function KnownOperationTypesRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (!context.getSchema().getRootType(node.operation)) {
        context.reportError(new GraphQLError(`This API does not offer ${node.operation} operations`, { nodes: node }));
      }
    },
  };
}

/**
 * Requests a quota refused a field of (RateLimitedError), and whether nothing else was done (every root field
 * failed); keyed by the request's ResponseControl, which Apollo's shallow copy of the context shares.
 */
const quotaRefusals = new WeakMap<AppContext['response'], { error: RateLimitedError; nothingDone: boolean }>();

/**
 * Each root field of the operation has an error of its own, so none was done (`data` cannot tell: a mutation's
 * non-null field that fails nulls the fields done before it). Root fragments count as done.
 */
function everyRootFieldFailed(operation: OperationDefinitionNode | undefined, errors: readonly { path?: readonly (string | number)[] }[]): boolean {
  if (!operation) return false;
  const failed = new Set(errors.filter((error) => error.path?.length === 1).map((error) => error.path![0]));
  return operation.selectionSet.selections.every((selection) => selection.kind === Kind.FIELD && failed.has((selection.alias ?? selection.name).value));
}

/** What makes a POST body not a GraphQL request: `{query, operationName?, variables?, extensions?}`, each of its type. */
function requestShapeProblems(value: unknown): ValidationItem[] {
  if (!isPlainObject(value)) return [{ loc: ['body'], msg: 'Input should be an object with query', type: 'dict_type' }];
  const request = value;
  const problems: ValidationItem[] = [];
  const optional = (key: string, ok: (item: unknown) => boolean, msg: string, type: string) => {
    if (request[key] !== undefined && request[key] !== null && !ok(request[key])) problems.push({ loc: ['body', key], msg, type });
  };
  optional('query', (item) => typeof item === 'string', 'Input should be a valid string', 'string_type');
  optional('operationName', (item) => typeof item === 'string', 'Input should be a valid string', 'string_type');
  optional('variables', isPlainObject, 'Input should be a valid dictionary', 'dict_type');
  optional('extensions', isPlainObject, 'Input should be a valid dictionary', 'dict_type');
  return problems;
}

/** The largest reply read back for its status: a refusal's reply is a few hundred bytes. */
const MAX_REFUSAL_TEXT = 64 * 1024;

/**
 * A request Apollo refused (its HTTP rules such as CSRF prevention, parsing,
 * validation, the checks above, variables, a persisted query) has no data
 * and answers the status its error carries, as every refusal here: Apollo's
 * own is 400 or 500 where the error says 401, 403 or 422, and 200 for a
 * persisted query. Such replies are small and begin with their errors; a
 * reply with data keeps Apollo's status.
 */
function replyStatus(status: number, text: string): number {
  if (status < 400 && !(text.length <= MAX_REFUSAL_TEXT && text.startsWith('{"errors"'))) return status;
  let reply: { data?: unknown; errors?: { extensions?: { status?: unknown } }[] };
  try {
    reply = JSON.parse(text) as typeof reply;
  } catch {
    return status;
  }
  const carried = reply.errors?.[0]?.extensions?.status;
  return reply.data === undefined && typeof carried === 'number' ? carried : status;
}
