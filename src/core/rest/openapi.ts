import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import { REST_BASE, type RestOperation } from '../../rest';

type Json = Record<string, unknown>;

const SCALARS: Record<string, Json> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer', format: 'int32' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTimeISO: { type: 'string', format: 'date-time' },
};

/** JSON Schema for a GraphQL type: components for named types, inline scalars. */
export function schemaFor(type: GraphQLType): Json {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return { type: 'array', items: schemaFor(nullable.ofType) };
  const named = getNamedType(nullable);
  if (isScalarType(named)) {
    return { ...(SCALARS[named.name] ?? (named.extensions as { jsonSchema?: Json }).jsonSchema ?? {}) };
  }
  return { $ref: `#/components/schemas/${named.name}` };
}

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Invalid request',
  '401': 'Authentication failed',
  '403': 'Access forbidden',
  '404': 'Not found',
  '409': 'Already exists or conflicts with the current state',
  '422': 'Validation error',
  '429': 'Rate limited',
  '500': 'Internal server error',
};

/**
 * The OpenAPI 3 document. Components come from Sofa; each operation is
 * rebuilt from the schema and its @Rest route, which fixes Sofa's known faults
 * (body fields repeated as query parameters, path parameters in bodies,
 * dangling scalar refs, mutations without operationId).
 */
export function buildOpenApiDocument(schema: GraphQLSchema, sofaDocument: Json, operations: RestOperation[]): Json {
  const sofaComponents = ((sofaDocument.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const schemas: Record<string, Json> = {};
  for (const [name, value] of Object.entries(sofaComponents)) {
    if (schema.getType(name) && !isScalarType(schema.getType(name))) schemas[name] = fixRefs(value, schema) as Json;
  }
  schemas.APIErrorPayload = {
    type: 'object',
    required: ['code', 'detail', 'type'],
    properties: {
      code: { type: 'integer', description: 'HTTP status code' },
      detail: { type: 'string' },
      type: { type: 'string', description: 'Stable machine-readable error type' },
      errors: {
        type: 'array',
        nullable: true,
        items: {
          type: 'object',
          required: ['loc', 'msg', 'type'],
          properties: {
            loc: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
            msg: { type: 'string' },
            type: { type: 'string' },
          },
        },
      },
    },
  };

  const paths: Record<string, Record<string, Json>> = {};
  for (const { field, route } of operations) {
    const openPath = REST_BASE + route.path.replace(/:(\w+)/g, '{$1}');
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
    const parameters: Json[] = [];
    let requestBody: Json | undefined;
    for (const arg of field.args) {
      if (pathParams.includes(arg.name)) {
        parameters.push({ name: arg.name, in: 'path', required: true, schema: schemaFor(arg.type), description: arg.description ?? undefined });
      } else if (arg.name === 'input' && route.method !== 'GET') {
        requestBody = {
          required: isNonNullType(arg.type),
          content: { 'application/json': { schema: schemaFor(arg.type) } },
        };
      } else {
        const list = isListType(getNullableType(arg.type));
        parameters.push({
          name: arg.name,
          in: 'query',
          required: isNonNullType(arg.type),
          schema: queryParamSchema(arg.type as GraphQLInputType, arg.defaultValue),
          ...(list ? { style: 'form', explode: true } : {}),
          description: arg.description ?? undefined,
        });
      }
    }
    const responses: Record<string, Json> = {};
    for (const status of [route.status ?? 200, ...(route.alsoReturns ?? [])]) {
      responses[String(status)] = {
        description: status === 201 ? 'Created' : 'Successful response',
        content: { 'application/json': { schema: schemaFor(field.type as GraphQLOutputType) } },
      };
    }
    for (const [code, description] of Object.entries(ERROR_STATUSES)) {
      responses[code] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/APIErrorPayload' } } } };
    }
    paths[openPath] ??= {};
    paths[openPath][route.method.toLowerCase()] = {
      operationId: field.name,
      summary: field.description ?? field.name,
      tags: route.tags ?? [],
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses,
      ...(field.extensions?.public ? { security: [] } : {}),
    };
  }

  return {
    openapi: '3.0.3',
    info: {
      title: 'Agent Platform API',
      version: '1.0.0',
      description:
        'REST view of the GraphQL schema served at /graphql (generated by sofa-api). Errors use the APIErrorPayload envelope.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      schemas,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'JWT access token or API key' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  };
}

function queryParamSchema(type: GraphQLInputType, defaultValue: unknown): Json {
  const base = schemaFor(type);
  const named = getNamedType(type);
  if (isEnumType(named)) {
    const values = { type: 'string', enum: named.getValues().map((value) => value.name) };
    return isListType(getNullableType(type)) ? { type: 'array', items: values } : { ...values, ...(defaultValue !== undefined ? { default: defaultValue } : {}) };
  }
  return defaultValue !== undefined && !isInputObjectType(named) ? { ...base, default: defaultValue } : base;
}

/** Replaces refs to scalars (which have no component) with inline schemas. */
function fixRefs(value: unknown, schema: GraphQLSchema): unknown {
  if (Array.isArray(value)) return value.map((item) => fixRefs(item, schema));
  if (!value || typeof value !== 'object') return value;
  const object = value as Json;
  if (typeof object.$ref === 'string') {
    const name = object.$ref.split('/').pop()!;
    const type = schema.getType(name);
    if (!type || isScalarType(type)) return type ? schemaFor(type) : {};
    if (!isObjectType(type) && !isInputObjectType(type) && !isEnumType(type)) return {};
    return object;
  }
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, fixRefs(item, schema)]));
}
