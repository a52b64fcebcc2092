import {
  GraphQLError,
  GraphQLObjectType,
  GraphQLSchema,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type GraphQLField,
  type OperationDefinitionNode,
} from 'graphql';
import { buildOperationNodeForField, filterSchema, MapperKind, mapSchema } from '@graphql-tools/utils';
import { createSofa, createSofaRouter } from 'sofa-api';
import type { AppContext } from '../core/context';
import { SqlData, type Engine } from '../core/graphql-sql/engine';
import { requireViewer } from '../core/context';
import { type AppError, reportError, toAppError, ValidationError } from '../core/errors';
import type { RestRoute } from '../core/graphql-decorators';
import { NO_STORE_HEADERS, selectsNoStoreField } from '../core/no-store';
import { argsRuleErrors } from '../core/validation/arg-rules';
import { JsonArrayReply } from '../core/json-array-reply';
import { readRestVariables, toRestLoc, withRestLocs } from './read-variables';

export const REST_BASE = '/api/v1';

/** Root fields that carry a @Rest route, in routing order. */
export interface RestOperation {
  kind: 'Query' | 'Mutation';
  field: GraphQLField<unknown, unknown>;
  route: RestRoute;
}

export function restOperations(schema: GraphQLSchema): RestOperation[] {
  const out: RestOperation[] = [];
  for (const [kind, type] of [['Query', schema.getQueryType()], ['Mutation', schema.getMutationType()]] as const) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      const route = field.extensions?.rest as RestRoute | undefined;
      if (route) out.push({ kind, field, route });
    }
  }
  return out.sort((a, b) => compareRoutes(a.route.path, b.route.path));
}

/** Literal segments before parameters, so `/sessions/facets` wins over `/sessions/:id`. */
function compareRoutes(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    const leftParam = left[index].startsWith(':');
    const rightParam = right[index].startsWith(':');
    if (leftParam !== rightParam) return leftParam ? 1 : -1;
  }
  return right.length - left.length;
}

/**
 * The schema Sofa sees: only root fields with a route, in routing order, and
 * without GraphQL-only navigation fields (marked `graphqlOnly`).
 */
export function restSchema(schema: GraphQLSchema): GraphQLSchema {
  const operations = restOperations(schema);
  const order = new Map(operations.map((operation, index) => [`${operation.kind}.${operation.field.name}`, index]));
  const filtered = filterSchema({
    schema,
    rootFieldFilter: (operationName, fieldName) => order.has(`${operationName}.${fieldName}`),
    fieldFilter: (_typeName, _fieldName, config) => !config.extensions?.graphqlOnly,
  });
  return mapSchema(filtered, {
    [MapperKind.ROOT_OBJECT]: (type) => {
      const config = type.toConfig();
      const fields = Object.entries(config.fields).sort(
        ([a], [b]) => (order.get(`${type.name}.${a}`) ?? 0) - (order.get(`${type.name}.${b}`) ?? 0),
      );
      return new GraphQLObjectType({ ...config, fields: Object.fromEntries(fields) });
    },
  });
}

const CUSTOM_SCALARS: Record<string, object> = {
  UUID: { type: 'string', format: 'uuid' },
  DateTimeISO: { type: 'string', format: 'date-time' },
  JSONObject: { type: 'object', additionalProperties: true },
  JSON: {},
};

/** One REST operation, ready to run: Sofa's operation document for its root field. */
export interface RestPlan {
  kind: 'Query' | 'Mutation';
  fieldName: string;
  field: GraphQLField<unknown, unknown>;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  status: number;
  public: boolean;
  /** The reply selects a secret (core/no-store): sent with Cache-Control: no-store. */
  noStore: boolean;
}

/** A REST reply: the result's JSON text, or the error to answer with the spec's envelope. */
export type RestReply = { status: number; text: string } | { status: number; array: JsonArrayReply } | { error: AppError };

export interface RestRouter {
  /** Sofa's OpenAPI document of the REST view (paths, schemas), completed by http/openapi.ts. */
  openAPIDocument: object;
  plans: Map<string, RestPlan>;
  run(plan: RestPlan, ctx: AppContext, pathValues: Record<string, string>): Promise<RestReply>;
}

/**
 * Sofa over the REST view of the schema: it generates the routes, their
 * operation documents and the OpenAPI document once. Requests are matched by
 * our route table (http/route-table.ts) and run here with Sofa's operation
 * document for the route, the same document Sofa's own handler executes
 * (built by the same call with Sofa's models, ignore list and depth limit),
 * without its per-request fetch Request/Response and URL-pattern matching.
 * Variables are read strictly (readRestVariables) and failures become the
 * spec's envelope.
 */
export function createRestRouter(schema: GraphQLSchema, engine: Engine): RestRouter {
  const sofaSchema = restSchema(schema);
  const routes: Record<string, { method: RestRoute['method']; path: string; responseStatus: number; tags?: string[] }> = {};
  for (const operation of restOperations(schema)) {
    routes[`${operation.kind}.${operation.field.name}`] = {
      method: operation.route.method,
      path: operation.route.path,
      responseStatus: operation.route.status ?? 200,
      tags: operation.route.tags,
    };
  }
  const sofa = createSofa({
    schema: sofaSchema,
    basePath: REST_BASE,
    routes,
    customScalars: CUSTOM_SCALARS,
    openAPI: { endpoint: false, info: { title: 'Agent Platform API', version: '1.0.0' } },
    swaggerUI: { endpoint: false },
  } as never);
  const router = createSofaRouter(sofa);

  const plans = new Map<string, RestPlan>();
  for (const operation of restOperations(schema)) {
    const operationNode = sofaOperationNode(sofa, operation);
    const document: DocumentNode = { kind: Kind.DOCUMENT, definitions: [operationNode] };
    plans.set(`${operation.kind}.${operation.field.name}`, {
      kind: operation.kind,
      fieldName: operation.field.name,
      field: operation.field,
      document,
      operation: operationNode,
      status: operation.route.status ?? 200,
      public: Boolean(operation.field.extensions?.public),
      noStore: selectsNoStoreField(schema, document),
    });
  }

  async function run(plan: RestPlan, ctx: AppContext, pathValues: Record<string, string>): Promise<RestReply> {
    ctx.operation = `${plan.kind}.${plan.fieldName}`;
    if (plan.noStore) Object.assign(ctx.response.headers, NO_STORE_HEADERS);
    const pathKeys = Object.keys(pathValues);
    try {
      // Order of checks: authentication, then request validation.
      if (!plan.public) requireViewer(ctx);
      if (ctx.rest!.bodyError) return { error: new ValidationError([ctx.rest!.bodyError], 'Request body is not valid JSON') };
      const { variables, errors } = readRestVariables(schema, plan.operation, pathValues, ctx.rest!);
      if (errors.length || plan.kind === 'Query') {
        // The rules of the arguments that did parse, so one reply lists every problem (bodies already merge both);
        // a query the engine answers in SQL runs no resolver, where these rules would run otherwise.
        const reported = new Set(errors.map((item) => item.loc.slice(0, 2).join('\u0000')));
        const rules = argsRuleErrors(plan.kind === 'Mutation' ? 'mutation' : 'query', plan.fieldName, variables)
          .map((item) => ({ ...item, loc: toRestLoc(item.loc, pathKeys) }))
          .filter((item) => item.loc[0] !== 'body' && !reported.has(item.loc.slice(0, 2).join('\u0000')));
        if (errors.length || rules.length) return { error: new ValidationError([...errors, ...rules]) };
      }
      const result = await engine.execute({ document: plan.document, variables, operationName: plan.operation.name?.value }, ctx, { elements: true });
      if (result.errors?.length) {
        for (const error of result.errors) reportError(ctx.logger, error, { operation: ctx.operation });
        return { error: toAppError(restError(result.errors[0], pathKeys)).appError };
      }
      if (result.data instanceof SqlData) {
        const reply = result.data.fields.get(plan.fieldName)!;
        return reply instanceof JsonArrayReply ? { status: plan.status, array: reply } : { status: plan.status, text: reply };
      }
      return { status: plan.status, text: JSON.stringify(result.data?.[plan.fieldName] ?? null) };
    } catch (error) {
      reportError(ctx.logger, error, { operation: ctx.operation });
      return { error: toAppError(error).appError };
    }
  }

  return { openAPIDocument: router.openAPIDocument as object, plans, run };
}

/** The operation Sofa builds for a root field (sofa-api router.js createQueryRoute / createMutationRoute). */
function sofaOperationNode(sofa: ReturnType<typeof createSofa>, operation: RestOperation): OperationDefinitionNode {
  return buildOperationNodeForField({
    kind: operation.kind === 'Mutation' ? OperationTypeNode.MUTATION : OperationTypeNode.QUERY,
    schema: sofa.schema,
    field: operation.field.name,
    models: sofa.models,
    ignore: sofa.ignore,
    circularReferenceDepth: sofa.depthLimit,
  });
}

function restError(error: GraphQLError, pathParams: string[]): GraphQLError {
  const original = error.originalError;
  const located = withRestLocs(original, pathParams);
  return located === original ? error : new GraphQLError(error.message, { originalError: located as ValidationError });
}
