import fs from 'node:fs';
import { GraphQLEnumType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import { wireSchema } from '../../src/http/openapi';
import { OPENAPI_FILE } from '../../src/core/schema-file';
import { OpenApiValidator, type OpenApiDocument } from '../helpers/openapi-validator';

// The committed document equals the served one (contract-files.test.ts).
const document = JSON.parse(fs.readFileSync(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
const validator = new OpenApiValidator(document);
const SESSION_PATH = '/api/v1/org/acme/ws/main/sessions/0b9f6a8e-2d7c-4f7e-9a41-5c3e2f1d0a9b';

/** The usage of a session without messages. */
const usage = {
  compaction_count: 0,
  current_cache_creation_input_tokens: 0,
  current_cache_read_input_tokens: 0,
  current_cost_usd: null,
  current_input_tokens: 0,
  current_message_count: 0,
  current_output_tokens: 0,
  current_tool_call_count: 0,
  last_generation_input_tokens: null,
  total_cache_creation_input_tokens: 0,
  total_cache_read_input_tokens: 0,
  total_cost_usd: null,
  total_input_tokens: 0,
  total_message_count: 0,
  total_output_tokens: 0,
  total_tool_call_count: 0,
};

/** A fresh session as the API answers it: every nullable field present and null. */
function session(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: '0b9f6a8e-2d7c-4f7e-9a41-5c3e2f1d0a9b',
    agent: null,
    model: 'gpt',
    title: null,
    origin: 'user',
    visibility: 'private',
    workspace_id: '1b9f6a8e-2d7c-4f7e-9a41-5c3e2f1d0a9b',
    user_id: '2b9f6a8e-2d7c-4f7e-9a41-5c3e2f1d0a9b',
    project_id: null,
    project_key: null,
    project_name: null,
    runtime_id: null,
    group_id: null,
    group: null,
    labels: {},
    message_count: 0,
    recent_message_count: null,
    preview_text: null,
    last_message_at: null,
    created_at: '2025-01-01T00:00:00.000Z',
    updated_at: '2025-01-01T00:00:00.000Z',
    archived_at: null,
    frozen_at: null,
    frozen_by: null,
    created_by: null,
    shared_at: null,
    shared_by: null,
    usage,
    events: null,
    ...overrides,
  };
}

describe('OpenAPI reply validator', () => {
  it('accepts a reply whose nullable fields (scalars, enums, references) are null', () => {
    expect(validator.check({ method: 'GET', path: SESSION_PATH, status: 200, body: session() })).toEqual({
      key: 'GET /api/v1/org/{org}/ws/{workspace}/sessions/{session_id} → 200',
      problem: null,
    });
  });

  it('accepts the same fields when they carry values', () => {
    const body = session({
      agent: 'claude',
      frozen_by: 'user',
      frozen_at: '2025-01-02T00:00:00.000Z',
      created_by: { id: '2b9f6a8e-2d7c-4f7e-9a41-5c3e2f1d0a9b', email: 'a@b.c', username: 'a', full_name: null },
    });
    expect(validator.check({ method: 'GET', path: SESSION_PATH, status: 200, body }).problem).toBeNull();
  });

  it('rejects a wrong type, a missing required field and an undocumented field, naming each', () => {
    const { agent: _agent, ...withoutAgent } = session();
    const { problem } = validator.check({ method: 'GET', path: SESSION_PATH, status: 200, body: { ...withoutAgent, title: 42, extra: true } });
    expect(problem).toContain("must have required property 'agent'");
    expect(problem).toContain('/title must be string');
    expect(problem).toContain('must NOT have additional properties');
    expect(problem).toContain('body: {"id":"0b9f6a8e');
  });

  it('rejects a value outside a nullable enum and a malformed date-time', () => {
    const { problem } = validator.check({ method: 'GET', path: SESSION_PATH, status: 200, body: session({ frozen_by: 'robot', archived_at: 'yesterday' }) });
    expect(problem).toContain('/frozen_by must be equal to one of the allowed values');
    expect(problem).toContain('/archived_at must match format "date-time"');
  });

  it('rejects a status the operation does not document', () => {
    expect(validator.check({ method: 'GET', path: SESSION_PATH, status: 418, body: {} }).problem).toMatch(/status 418 is not documented/);
  });

  it('checks error replies against the APIErrorPayload envelope', () => {
    const envelope = { code: 422, detail: 'Request validation failed', errors: [{ loc: ['query', 'limit'], msg: 'bad', type: 'int_parsing' }], type: 'validation_error' };
    expect(validator.check({ method: 'GET', path: SESSION_PATH, status: 422, body: envelope }).problem).toBeNull();
    expect(validator.check({ method: 'GET', path: SESSION_PATH, status: 404, body: { detail: 'x' } }).problem).toContain("required property 'code'");
  });

  it('matches literal segments before parameters', () => {
    expect(validator.operationFor('GET', '/api/v1/org/acme/ws/main/sessions/facets?agent=a')?.operationId).toBe('getSessionFacets');
    expect(validator.operationFor('GET', '/api/v1/org/acme/ws/main/sessions/abcd')?.operationId).toBe('getSession');
    expect(validator.operationFor('GET', '/api/v1/org/acme/ws/main/sessions')?.operationId).toBe('listSessions');
  });

  it('holds unknown routes to the 404 envelope', () => {
    const envelope = { code: 404, detail: 'Route not found', errors: null, type: 'not_found_error' };
    expect(validator.check({ method: 'GET', path: '/api/v1/nope', status: 404, body: envelope }).problem).toBeNull();
    expect(validator.check({ method: 'GET', path: '/api/v1/nope', status: 200, body: {} }).problem).toMatch(/matches no documented operation/);
  });

  it('documents health and readiness', () => {
    expect(validator.check({ method: 'GET', path: '/api/v1/health', status: 200, body: { status: 'ok' } }).problem).toBeNull();
    expect(validator.check({ method: 'GET', path: '/api/v1/health/ready', status: 503, body: { status: 'unavailable', database: 'unreachable' } }).problem).toBeNull();
  });

  it('reports a reply that is not JSON', () => {
    expect(validator.check({ method: 'GET', path: '/api/v1/health', status: 200, body: undefined, text: '<html>' }).problem).toMatch(/not JSON: <html>/);
  });
});

describe('wire schema of a GraphQL type', () => {
  const Thing = new GraphQLObjectType({ name: 'Thing', fields: { id: { type: GraphQLString } } });
  const Kind = new GraphQLEnumType({ name: 'Kind', values: { a: {}, b: {} } });

  it('admits null where the type is nullable, in the OpenAPI 3.1 (JSON Schema) dialect', () => {
    expect(wireSchema(GraphQLString)).toEqual({ type: ['string', 'null'] });
    expect(wireSchema(new GraphQLNonNull(GraphQLString))).toEqual({ type: 'string' });
    expect(wireSchema(Thing)).toEqual({ anyOf: [{ $ref: '#/components/schemas/Thing' }, { type: 'null' }] });
    // An enum is its named component, so generated clients get one enum type.
    expect(wireSchema(Kind)).toEqual({ anyOf: [{ $ref: '#/components/schemas/Kind' }, { type: 'null' }] });
    expect(wireSchema(new GraphQLNonNull(Kind))).toEqual({ $ref: '#/components/schemas/Kind' });
    expect(wireSchema(new GraphQLList(new GraphQLNonNull(GraphQLString)))).toEqual({ type: ['array', 'null'], items: { type: 'string' } });
  });

  it('validates with no OpenAPI 3.0 keyword left: a strict validator refuses `nullable`', () => {
    expect(() => new OpenApiValidator({ paths: {}, components: { schemas: { Old: { type: 'string', nullable: true } } } })).toThrow(/nullable/);
  });
});
