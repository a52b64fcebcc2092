import {
  execute,
  GraphQLError,
  GraphQLObjectType,
  GraphQLSchema,
  Kind,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLField,
  type OperationDefinitionNode,
} from 'graphql';
import { filterSchema, MapperKind, mapSchema } from '@graphql-tools/utils';
import { useSofa } from 'sofa-api';
import type { AppContext } from './core/context';
import { requireViewer } from './core/context';
import { AppError, reportError, toAppError, toEnvelope, ValidationError } from './core/errors';
import type { RestRoute } from './core/graphql-decorators';
import { argsRuleErrors } from './core/rest/arg-rules';
import { readRestVariables, toRestLoc } from './core/rest/read-variables';

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

function envelopeResponse(error: AppError): Response {
  return Response.json(toEnvelope(error), { status: error.status, headers: error.headers });
}

export interface RestServerContext {
  appContext: AppContext;
}

/**
 * Sofa over the REST view of the schema. Sofa matches the route and builds the
 * operation; our `execute` reads the variables strictly (readRestVariables)
 * and turns failures into the spec's envelope.
 */
export function createRestRouter(schema: GraphQLSchema) {
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

  async function restExecute(args: ExecutionArgs): Promise<ExecutionResult> {
    const ctx = args.contextValue as AppContext;
    const operation = args.document.definitions.find((node) => node.kind === Kind.OPERATION_DEFINITION) as OperationDefinitionNode;
    const rootType = operation.operation === 'mutation' ? schema.getMutationType()! : schema.getQueryType()!;
    const rootField = (operation.selectionSet.selections[0] as { name: { value: string } }).name.value;
    const field = rootType.getFields()[rootField];
    ctx.operation = `${rootType.name}.${rootField}`;
    const pathValues = (args.variableValues ?? {}) as Record<string, unknown>;
    const fail = (error: unknown): ExecutionResult => ({
      errors: [new GraphQLError(error instanceof Error ? error.message : 'error', { originalError: error as Error })],
    });
    try {
      // Order of checks: authentication, then request validation.
      if (!field.extensions?.public) requireViewer(ctx);
      if (ctx.rest!.bodyError) return fail(new ValidationError([ctx.rest!.bodyError], 'Request body is not valid JSON'));
      const { variables, errors } = readRestVariables(schema, operation, pathValues, ctx.rest!);
      if (errors.length) {
        // The rules of the arguments that did parse, so one reply lists every problem (bodies already merge both).
        const pathKeys = Object.keys(pathValues);
        const reported = new Set(errors.map((item) => item.loc.slice(0, 2).join('\u0000')));
        const rules = argsRuleErrors(operation.operation === 'mutation' ? 'mutation' : 'query', rootField, variables)
          .map((item) => ({ ...item, loc: toRestLoc(item.loc, pathKeys) }))
          .filter((item) => item.loc[0] !== 'body' && !reported.has(item.loc.slice(0, 2).join('\u0000')));
        return fail(new ValidationError([...errors, ...rules]));
      }
      const result = await execute({ ...args, schema, variableValues: variables });
      for (const error of result.errors ?? []) reportError(ctx.logger, error, { operation: ctx.operation });
      return { ...result, errors: result.errors?.map((error) => restError(error, Object.keys(pathValues))) };
    } catch (error) {
      reportError(ctx.logger, error, { operation: ctx.operation });
      return fail(error);
    }
  }

  function restError(error: GraphQLError, pathParams: string[]): GraphQLError {
    const original = error.originalError;
    if (original instanceof ValidationError && original.errors) {
      const items = original.errors.map((item) => ({ ...item, loc: toRestLoc(item.loc, pathParams) }));
      return new GraphQLError(error.message, { originalError: new ValidationError(items, original.message) });
    }
    return error;
  }

  const router = useSofa({
    schema: sofaSchema,
    basePath: REST_BASE,
    routes,
    customScalars: CUSTOM_SCALARS,
    context: (serverContext: unknown) => (serverContext as RestServerContext).appContext,
    execute: restExecute as never,
    errorHandler: (errors: ReadonlyArray<unknown>) => {
      return envelopeResponse(toAppError(errors[0]).appError);
    },
    openAPI: { endpoint: false, info: { title: 'Agent Platform API', version: '1.0.0' } },
    swaggerUI: { endpoint: false },
  } as never);
  return router;
}
