import {
  getNamedType,
  getNullableType,
  GraphQLNonNull,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLObjectType,
  type GraphQLScalarType,
  type GraphQLSchema,
  type GraphQLType,
} from 'graphql';
import { argsClasses } from '../core/validation/arg-rules';
import { inputClassOf, jsonSchemaRules } from '../core/validation/json-schema-rules';
import { rejectsUnknownKeys } from '../core/validation/api-input';
import type { BodyRoute } from '../core/module';
import { IDEMPOTENCY_KEY_PATTERN } from './idempotency';
import { REST_BASE, type RestOperation } from './rest-routes';

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
  if (isScalarType(named)) return scalarSchema(named);
  return { $ref: `#/components/schemas/${named.name}` };
}

function scalarSchema(type: GraphQLScalarType): Json {
  return { ...(SCALARS[type.name] ?? (type.extensions as { jsonSchema?: Json }).jsonSchema ?? {}) };
}

/**
 * The schema of a value as it travels: a GraphQL type without `!` (at any
 * level, list items included) admits null. Enums are named components, so
 * generated clients get one enum type each.
 */
export function wireSchema(type: GraphQLType): Json {
  if (isNonNullType(type)) return baseSchema(type.ofType);
  return withNull(baseSchema(type));
}

function baseSchema(type: GraphQLType): Json {
  if (isListType(type)) return { type: 'array', items: wireSchema(type.ofType) };
  if (isScalarType(type)) return scalarSchema(type);
  return { $ref: `#/components/schemas/${getNamedType(type).name}` };
}

/**
 * OpenAPI 3.1 (JSON Schema 2020-12) null: `null` among the types (an `enum`
 * lists null too), a reference as `anyOf` with `{type: 'null'}`. A schema
 * without `type` (JSON scalar) admits null already.
 */
function withNull(schema: Json): Json {
  if (schema.$ref) return { anyOf: [schema, { type: 'null' }] };
  if (!schema.type) return schema;
  return { ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
}

/**
 * A request value's schema with the rules the server enforces on it (the
 * class-validator decorators of its input or @Args class): lengths, ranges,
 * list sizes, formats. A list's `each` rules go on its items.
 */
function withRules(schema: Json, classes: (new () => object)[], property: string): Json {
  let out = schema;
  for (const target of classes) {
    const { own, items } = jsonSchemaRules(target, property);
    if (!Object.keys(own).length && !Object.keys(items).length) continue;
    const apply = (node: Json): Json => ({ ...node, ...own, ...(Object.keys(items).length && node.items ? { items: { ...(node.items as Json), ...items } } : {}) });
    // A nullable reference (anyOf) carries no rules of its own: they belong to a value's type.
    out = out.anyOf ? out : apply(out);
  }
  return out;
}

/**
 * The operation's name for generated clients: a verb and the field's name in
 * camelCase. A query answering a list (an array or a page) is `list…`, any
 * other query `get…`; a mutation is its own verb (`saveSession`).
 */
export function operationIdOf(kind: 'Query' | 'Mutation', field: GraphQLField<unknown, unknown>): string {
  const camel = field.name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
  if (kind === 'Mutation') return camel;
  const pascal = camel[0].toUpperCase() + camel.slice(1);
  const type = getNullableType(field.type);
  const named = getNamedType(type);
  const page = isObjectType(named) && Object.values(named.getFields()).some((item) => item.extensions?.maxItems === 'page');
  return `${isListType(type) || page ? 'list' : 'get'}${pascal}`;
}

/**
 * A component for an object or input type, rebuilt from the GraphQL type so
 * the document says what the wire carries. REST replies are the GraphQL result
 * with every field selected, so every output field is present (`required`),
 * null when its type is nullable. An input field is required when it is
 * non-null and has no default. GraphQL-only navigation fields are left out,
 * as in the REST schema.
 */
function componentFor(type: GraphQLObjectType | GraphQLInputObjectType): Json {
  const input = isInputObjectType(type);
  const inputClass = input ? inputClassOf(type.name) : null;
  const required: string[] = [];
  const properties: Record<string, Json> = {};
  for (const field of Object.values(type.getFields())) {
    if (field.extensions?.graphqlOnly) continue;
    const defaultValue = input ? (field as GraphQLInputField).defaultValue : undefined;
    if (!input || (isNonNullType(field.type) && defaultValue === undefined)) required.push(field.name);
    properties[field.name] = {
      ...withRules(wireSchema(field.type), inputClass ? [inputClass] : [], field.name),
      ...(defaultValue !== undefined ? { default: defaultValue } : {}),
      ...(field.description ? { description: field.description } : {}),
    };
  }
  return {
    type: 'object',
    ...(required.length ? { required } : {}),
    properties,
    // A strict input's unknown keys are 422 extra_forbidden; any other input's are ignored.
    ...(input && rejectsUnknownKeys(type) ? { additionalProperties: false } : {}),
    ...(type.description ? { description: type.description } : {}),
    ...(input && type.extensions?.example ? { examples: [type.extensions.example] } : {}),
  };
}

const REQUEST_ID_HEADER = { description: "The request's id (the client's X-Request-Id when it sent a valid one)", schema: { type: 'string' } };
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { description: "The caller's requests per minute", schema: { type: 'string' } },
  'X-RateLimit-Remaining': { description: 'Requests left in the current minute', schema: { type: 'string' } },
};
const RETRY_AFTER_HEADER = { description: 'Seconds to wait before retrying', schema: { type: 'string' } };
const ETAG_HEADER = { description: 'Strong entity tag of the reply (send it back in If-None-Match)', schema: { type: 'string' } };
const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Runs the request once: a retry with the same key and request within 24 hours replays the first reply (Idempotent-Replayed: true).',
  schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN },
};
const IDEMPOTENT_REPLAYED_HEADER = { description: 'Present (true) when the reply is the kept one of an earlier request with the same Idempotency-Key', schema: { type: 'string', enum: ['true'] } };

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Invalid request (also a body over the size limit or a malformed request head)',
  '401': 'Authentication failed',
  '403': 'Access forbidden',
  '404': 'Not found',
  '408': 'The request (its head and body) did not arrive within REQUEST_TIMEOUT_MS (the connection closes)',
  '409': 'Already exists or conflicts with the current state',
  '422': 'Validation error',
  '413': 'Request body too large, as sent or once inflated (the connection closes)',
  '415': 'Content-Type or Content-Encoding not accepted by this route',
  '426': 'Upgrade required (X-Client-Version below the minimum)',
  '429': 'Rate limited',
  '500': 'Internal server error',
  '503': 'The database is unavailable (database_error); Retry-After says when to try again',
  '504': 'A statement ran past the time limit of the service and was cancelled (gateway_timeout_error)',
};

/** Statuses only the module body routes answer (REST bodies over their limit are 400, as the spec says). */
const BODY_ROUTE_ONLY = ['413', '415'];

/** What a client sees for the common errors (the envelope every error shares). */
const ERROR_EXAMPLES: Record<string, Json> = {
  '401': { code: 401, detail: 'Invalid or expired token', type: 'authentication_error', errors: null },
  '403': { code: 403, detail: 'Your role in this workspace does not allow this', type: 'forbidden_error', errors: null },
  '404': { code: 404, detail: 'Session not found', type: 'not_found_error', errors: null },
  '409': { code: 409, detail: 'A workspace with this key already exists', type: 'conflict_error', errors: null },
  '422': {
    code: 422,
    detail: 'Validation error',
    type: 'validation_error',
    errors: [{ loc: ['body', 'name'], msg: 'name must be shorter than or equal to 255 characters', type: 'string_too_long' }],
  },
  '429': { code: 429, detail: 'Rate limit exceeded; retry later', type: 'usage_limit_exceeded_error', errors: null },
};

/**
 * The OpenAPI 3.1 document. Sofa names the components; object and input
 * components are rebuilt from their GraphQL types (nullability and presence,
 * see componentFor), and each operation is rebuilt from the schema and its
 * @Rest route, which fixes Sofa's known faults (body fields repeated as query
 * parameters, path parameters in bodies, dangling scalar refs, mutations
 * without operationId, nullable fields not marked nullable). Every test reply
 * is validated against this document (tests/helpers/openapi-validator.ts).
 */
export function buildOpenApiDocument(
  schema: GraphQLSchema,
  sofaDocument: Json,
  operations: RestOperation[],
  errorTypes: readonly string[],
  bodyRoutes: readonly BodyRoute[] = [],
): Json {
  const sofaComponents = ((sofaDocument.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const schemas: Record<string, Json> = {};
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]);
  for (const [name, value] of Object.entries(sofaComponents)) {
    const type = schema.getType(name);
    if (!type || isScalarType(type) || roots.has(type as GraphQLObjectType)) continue;
    schemas[name] = isObjectType(type) || isInputObjectType(type) ? componentFor(type) : (fixRefs(value, schema) as Json);
  }
  // Rebuilt components may reference types Sofa did not list (it types some nested inputs as bare objects).
  for (let missing = danglingRefs(schemas); missing.length; missing = danglingRefs(schemas)) {
    for (const name of missing) {
      const type = schema.getType(name);
      schemas[name] = type && (isObjectType(type) || isInputObjectType(type)) ? componentFor(type) : {};
    }
  }
  schemas.APIErrorPayload = {
    type: 'object',
    required: ['code', 'detail', 'errors', 'type'],
    properties: {
      code: { type: 'integer', description: 'HTTP status code' },
      detail: { type: 'string' },
      // The error-type table of the module registry: core's types and each module's own.
      type: { type: 'string', enum: [...errorTypes].sort(), description: 'Stable machine-readable error type' },
      errors: {
        type: ['array', 'null'],
        description: 'Validation items (422); null otherwise',
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
  for (const { kind, field, route } of operations) {
    const openPath = REST_BASE + route.path.replace(/:(\w+)/g, '{$1}');
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1]);
    const parameters: Json[] = [];
    let requestBody: Json | undefined;
    const rules = argsClasses(kind === 'Mutation' ? 'mutation' : 'query', field.name);
    for (const arg of field.args) {
      if (pathParams.includes(arg.name)) {
        parameters.push({ name: arg.name, in: 'path', required: true, schema: withRules(schemaFor(arg.type), rules, arg.name), description: arg.description ?? undefined });
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
          schema: withRules(queryParamSchema(arg.type as GraphQLInputType, arg.defaultValue), rules, arg.name),
          ...(list ? { style: 'form', explode: true } : {}),
          description: arg.description ?? undefined,
        });
      }
    }
    // Keys are kept per credential: offered where the route requires one.
    const idempotent = route.method === 'POST' && !field.extensions?.public;
    if (idempotent) parameters.push(IDEMPOTENCY_KEY_PARAMETER);
    const responses: Record<string, Json> = {};
    for (const status of [route.status ?? 200, ...(route.alsoReturns ?? [])]) {
      responses[String(status)] = {
        description: status === 201 ? 'Created' : 'Successful response',
        headers: {
          'X-Request-Id': REQUEST_ID_HEADER,
          ...(field.extensions?.public ? {} : RATE_LIMIT_HEADERS),
          ...(route.method === 'GET' && status === 200 ? { ETag: ETAG_HEADER } : {}),
          ...(idempotent ? { 'Idempotent-Replayed': IDEMPOTENT_REPLAYED_HEADER } : {}),
          ...Object.fromEntries(Object.entries(route.replyHeaders ?? {}).map(([name, description]) => [name, { description, schema: { type: 'string' } }])),
        },
        // A REST route answers a lookup that found nothing with 404, never a null body.
        content: { 'application/json': { schema: wireSchema(isNonNullType(field.type) ? field.type : new GraphQLNonNull(field.type)) } },
      };
    }
    if (route.method === 'GET') Object.assign(responses, NOT_MODIFIED);
    for (const code of Object.keys(ERROR_STATUSES)) if (!BODY_ROUTE_ONLY.includes(code)) responses[code] = { $ref: `#/components/responses/Error${code}` };
    paths[openPath] ??= {};
    paths[openPath][route.method.toLowerCase()] = {
      operationId: operationIdOf(kind, field),
      summary: field.description ?? field.name,
      tags: route.tags ?? [],
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses,
      ...(field.extensions?.public ? { security: [] } : {}),
    };
  }

  for (const route of bodyRoutes) {
    if (route.page || !route.openapi) continue;
    // A trailing `*` (a path of any depth) is documented as a `path` parameter that may hold slashes.
    const openPath = `${REST_BASE}${route.path.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}')}`;
    const pathParams = [...route.path.matchAll(/:(\w+)/g)].map((match) => ({ name: match[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (route.path.endsWith('/*')) pathParams.push({ name: 'path', in: 'path', required: true, schema: { type: 'string' }, description: 'A file path; its slashes are sent as they are' } as never);
    const own = route.openapi.responses as Record<string, Json>;
    const errors = Object.fromEntries(Object.keys(ERROR_STATUSES).filter((code) => !BODY_ROUTE_ONLY.includes(code) || code in own).map((code) => [code, { $ref: `#/components/responses/Error${code}` }]));
    paths[openPath] ??= {};
    paths[openPath][route.method.toLowerCase()] = { ...route.openapi, parameters: pathParams, responses: { ...errors, ...own, ...(route.method === 'GET' ? NOT_MODIFIED : {}) } };
  }

  Object.assign(schemas, HEALTH_SCHEMAS);
  Object.assign(paths, HEALTH_PATHS);

  return {
    openapi: '3.1.0',
    info: {
      title: 'Agent Platform API',
      version: '1.0.0',
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'REST view of the GraphQL schema served at /graphql (generated by sofa-api). Errors use the APIErrorPayload envelope.',
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      schemas,
      // One error response per status, shared by every operation.
      responses: Object.fromEntries(
        Object.entries(ERROR_STATUSES).map(([code, description]) => [
          `Error${code}`,
          {
            description,
            headers: { 'X-Request-Id': REQUEST_ID_HEADER, ...(code === '429' || code === '503' ? { 'Retry-After': RETRY_AFTER_HEADER } : {}) },
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/APIErrorPayload' }, ...(ERROR_EXAMPLES[code] ? { example: ERROR_EXAMPLES[code] } : {}) },
            },
          },
        ]),
      ),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'JWT access token or API key' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
  };
}

const HEALTH_SCHEMAS: Record<string, Json> = {
  HealthResponse: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['ok'] } },
    description: 'Liveness: the process answers; the database is not consulted.',
  },
  ReadinessResponse: {
    type: 'object',
    required: ['status', 'database'],
    properties: {
      status: { type: 'string', enum: ['ok', 'unavailable'] },
      database: { type: 'string', enum: ['ok', 'unreachable'] },
    },
    description: 'Readiness: whether the database answers.',
  },
};

const jsonResponse = (description: string, name: string): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
});

/** Every GET's 200 is conditional (http/respond.ts): If-None-Match naming its ETag, or `*`, is answered 304. */
const NOT_MODIFIED: Record<string, Json> = { '304': { description: 'Not modified: If-None-Match named the current ETag (or `*`)', headers: { ETag: ETAG_HEADER } } };

/** Node answers a malformed or oversized request head before any route runs (createHttpServer). */
const BAD_REQUEST_HEAD = { '400': jsonResponse('Malformed or oversized request head', 'APIErrorPayload') };

/** Routes the HTTP handler answers itself (src/app.ts), before any GraphQL operation. */
const HEALTH_PATHS: Record<string, Record<string, Json>> = {
  [`${REST_BASE}/health`]: {
    get: {
      operationId: 'getHealth',
      summary: 'Liveness: {"status": "ok"} without authentication or database.',
      tags: ['platform'],
      security: [],
      parameters: [],
      responses: { '200': jsonResponse('The process is up', 'HealthResponse'), ...NOT_MODIFIED, ...BAD_REQUEST_HEAD },
    },
  },
  [`${REST_BASE}/health/ready`]: {
    get: {
      operationId: 'getReadiness',
      summary: 'Readiness: checks the database; 503 while it does not answer.',
      tags: ['platform'],
      security: [],
      parameters: [],
      responses: {
        '200': jsonResponse('Ready', 'ReadinessResponse'),
        '503': jsonResponse('The database does not answer', 'ReadinessResponse'),
        ...NOT_MODIFIED,
        ...BAD_REQUEST_HEAD,
      },
    },
  },
};

function queryParamSchema(type: GraphQLInputType, defaultValue: unknown): Json {
  const base = schemaFor(type);
  const named = getNamedType(type);
  if (isEnumType(named)) {
    const values = { $ref: `#/components/schemas/${named.name}` };
    return isListType(getNullableType(type)) ? { type: 'array', items: values } : { ...values, ...(defaultValue !== undefined ? { default: defaultValue } : {}) };
  }
  return defaultValue !== undefined && !isInputObjectType(named) ? { ...base, default: defaultValue } : base;
}

function danglingRefs(schemas: Record<string, Json>): string[] {
  const names = [...JSON.stringify(schemas).matchAll(/"#\/components\/schemas\/(\w+)"/g)].map((match) => match[1]);
  return [...new Set(names)].filter((name) => !(name in schemas));
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
