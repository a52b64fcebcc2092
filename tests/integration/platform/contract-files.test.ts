import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createUser } from '../../factories/accounts';
import { OPENAPI_FILE, printApiSchema, printOpenApi, SCHEMA_FILE } from '../../../src/core/schema-file';
import { rest } from '../../helpers/http';
import { useTestApp } from '../../helpers/test-app';
import { OpenApiValidator } from '../../helpers/openapi-validator';

const api = useTestApp();

describe('contract files and docs', () => {
  it('keeps graphql/schema.graphql equal to the schema emitted from the code (run npm run schema:emit)', () => {
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8')).toBe(printApiSchema(api.app.schema));
  });

  it('keeps graphql/openapi.json equal to the served document (run npm run openapi:export)', async () => {
    const res = await rest(api, 'GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(fs.readFileSync(OPENAPI_FILE, 'utf8')).toBe(printOpenApi(res.body));
  });

  it('passes Redocly\'s recommended lint with no error or warning (redocly.yaml says which rule is off and why)', () => {
    const lint = spawnSync(process.execPath, [require.resolve('@redocly/cli/bin/cli.js'), 'lint', '--format=json', OPENAPI_FILE], {
      cwd: path.resolve(__dirname, '../../..'),
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    });
    const report = JSON.parse(lint.stdout.slice(lint.stdout.indexOf('{')));
    const problems = report.problems.map((problem: any) => `${problem.severity} ${problem.ruleId}: ${problem.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toEqual({ errors: 0, warnings: 0, ignored: 0 });
  });

  it('shows request and error examples that the document itself accepts', async () => {
    const document = (await rest(api, 'GET', '/openapi.json')).body;
    const validator = new OpenApiValidator(document);
    const problems: string[] = [];
    let examples = 0;
    for (const [name, schema] of Object.entries<any>(document.components.schemas)) {
      for (const example of schema.examples ?? []) {
        examples += 1;
        const problem = validator.checkComponent(name, example);
        if (problem) problems.push(`${name}: ${problem}`);
      }
    }
    for (const [name, response] of Object.entries<any>(document.components.responses)) {
      const example = response.content['application/json'].example;
      if (example === undefined) continue;
      examples += 1;
      const problem = validator.checkComponent('APIErrorPayload', example);
      if (problem) problems.push(`${name}: ${problem}`);
    }
    expect(problems).toEqual([]);
    expect(examples).toBeGreaterThanOrEqual(20);
  });

  it('serves a valid OpenAPI 3.1 document', async () => {
    const res = await rest(api, 'GET', '/openapi.json');
    expect(res.body.openapi).toBe('3.1.0');
    expect(JSON.stringify(res.body)).not.toContain('"nullable"');
    await expect(SwaggerParser.validate(structuredClone(res.body))).resolves.toBeTruthy();
  });

  it('gives every operation an operationId and a summary, and keeps path params out of the query', async () => {
    const res = await rest(api, 'GET', '/openapi.json');
    const problems: string[] = [];
    const ids = new Map<string, string>();
    for (const [path, methods] of Object.entries<Record<string, any>>(res.body.paths)) {
      const pathParams = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      for (const [method, operation] of Object.entries<any>(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        if (!operation.operationId) problems.push(`${where}: no operationId`);
        else if (!/^[a-z][A-Za-z0-9]*$/.test(operation.operationId)) problems.push(`${where}: operationId ${operation.operationId} is not camelCase`);
        else if (method === 'get' && !/^(get|list)[A-Z]/.test(operation.operationId)) problems.push(`${where}: read ${operation.operationId} is not named get… or list…`);
        if (ids.has(operation.operationId)) problems.push(`${where}: operationId ${operation.operationId} also names ${ids.get(operation.operationId)}`);
        ids.set(operation.operationId, where);
        if (!operation.summary) problems.push(`${where}: no summary`);
        const params = operation.parameters ?? [];
        for (const name of pathParams) {
          if (!params.some((param: any) => param.in === 'path' && param.name === name)) problems.push(`${where}: path param ${name} missing`);
        }
        if (params.some((param: any) => param.in === 'query' && param.name === 'input')) problems.push(`${where}: body repeated as query`);
      }
    }
    expect(problems).toEqual([]);
    expect(JSON.stringify(res.body)).not.toMatch(/"\$ref":"#\/components\/schemas\/(UUID|JSONObject|JSON|DateTimeISO)"/);
  });

  it('documents the rules the server enforces on requests, from the same decorators that enforce them', async () => {
    const document = (await rest(api, 'GET', '/openapi.json')).body;
    const signup = document.components.schemas.SignupInput.properties;
    expect([signup.email, signup.password]).toEqual([
      expect.objectContaining({ maxLength: 320, format: 'email' }),
      expect.objectContaining({ minLength: 8, maxLength: 1024 }),
    ]);
    const limit = document.paths['/api/v1/org/{org}/ws/{workspace}/sessions'].get.parameters.find((param: { name: string }) => param.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    // Refused as the document says: one past the documented maximum is 422 at that parameter.
    const owner = await createUser();
    const over = await rest(api, 'GET', `/org/${owner.orgKey}/ws/default/sessions`, { token: owner.token, query: { limit: limit.schema.maximum + 1 } });
    expect([over.status, over.body.errors.map((item: { loc: string[] }) => item.loc)]).toEqual([422, [['query', 'limit']]]);
  });

  it('documents the reply headers clients read', async () => {
    const document = (await rest(api, 'GET', '/openapi.json')).body;
    const attacks = document.paths['/api/v1/org/{org}/ws/{workspace}/airt/assessments/{assessment_id}/traces/attacks'];
    expect(Object.keys(attacks.get.responses['200'].headers)).toEqual(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'ETag', 'X-Total-Count', 'Link']);
    expect(attacks.get.responses['304']).toBeDefined();
    // Every GET is conditional, the routes the server answers itself and the file downloads too.
    const gets = Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>).flatMap(([path, item]) => (item.get ? [[path, item.get] as const] : []));
    expect(gets.length).toBeGreaterThan(50);
    expect(gets.filter(([, operation]) => !operation.responses['304']).map(([path]) => path)).toEqual([]);
    expect((await rest(api, 'GET', '/health', { headers: { 'If-None-Match': '*' } })).status).toBe(304);
    expect(attacks.post.parameters.map((param: { name: string; in: string }) => `${param.in} ${param.name}`)).toContain('header Idempotency-Key');
    expect(attacks.post.responses['201'].headers['Idempotent-Replayed'].schema).toEqual({ type: 'string', enum: ['true'] });
    // Keys are kept per credential: an anonymous route says nothing of them (the server does not evaluate them there).
    const signup = document.paths['/api/v1/auth/signup'].post;
    expect((signup.parameters ?? []).map((param: { name: string }) => param.name)).not.toContain('Idempotency-Key');
    expect(Object.keys(signup.responses['201'].headers)).not.toContain('Idempotent-Replayed');
    expect(Object.keys(document.components.responses.Error429.headers)).toEqual(['X-Request-Id', 'Retry-After']);
    expect(attacks.get.responses['429']).toEqual({ $ref: '#/components/responses/Error429' });
  });

  it('serves the docs page with Swagger UI from local assets only', async () => {
    const page = await rest(api, 'GET', '/api/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(source.startsWith('/')).toBe(true);
      expect((await rest(api, 'GET', source)).status).toBe(200);
    }
  });

  it('serves GraphiQL to browsers at /graphql referencing only local assets', async () => {
    const page = await rest(api, 'GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.text).toContain('GraphQL playground');
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources).toHaveLength(6);
    for (const source of sources) {
      expect(source).toMatch(/^\/graphql\/assets\//);
      const asset = await rest(api, 'GET', source);
      expect(asset.status).toBe(200);
      expect(asset.text.length).toBeGreaterThan(50);
    }
    // The page's own script (no inline script, for its CSP) renders GraphiQL with the example operations.
    const script = await rest(api, 'GET', '/graphql/assets/playground.js');
    expect(script.text).toContain('React.createElement(GraphiQL');
    expect(script.text).toContain('query CurrentUser');
    expect(page.text).not.toMatch(/https?:\/\//);
  });

  it('keeps CSRF prevention on for GraphQL GET requests without a preflight header', async () => {
    const res = await rest(api, 'GET', '/graphql', { query: { query: '{ __typename }' } });
    // 422 in the status as in the error (Apollo's own would be 400).
    expect([res.status, res.body.errors[0].extensions.status]).toEqual([422, 422]);
    const allowed = await rest(api, 'GET', '/graphql', { query: { query: '{ __typename }' }, headers: { 'apollo-require-preflight': 'true' } });
    expect(allowed.status).toBe(200);
    expect(allowed.body.data.__typename).toBe('Query');
  });
});
