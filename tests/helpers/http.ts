import net from 'node:net';
import fs from 'node:fs';
import nodePath from 'node:path';
import { OpenApiValidator, type OpenApiDocument } from './openapi-validator';
import type { TestApp } from './test-app';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

export interface RequestOptions {
  token?: string;
  body?: unknown;
  /** Sent as-is instead of JSON.stringify(body). */
  rawBody?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean | (string | number | boolean)[]>;
}

/** REST call through the real HTTP handler. Paths are relative to /api/v1 unless they start with `/api` or `/graphql`. */
export async function rest<T = any>(app: TestApp, method: string, path: string, options: RequestOptions = {}): Promise<HttpResult<T>> {
  const full = path.startsWith('/api') || path.startsWith('/graphql') || path.startsWith('/metrics') ? path : `/api/v1${path}`;
  const url = new URL(app.baseUrl + full);
  for (const [name, value] of Object.entries(options.query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(item));
  }
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization ??= `Bearer ${options.token}`;
  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  let isJson = false;
  try {
    parsed = text ? JSON.parse(text) : undefined;
    isJson = text !== '' && (response.headers.get('content-type') ?? '').includes('application/json');
  } catch {
    // not JSON (HTML pages, metrics)
  }
  await checkAgainstOpenApi(app, method, url.pathname + url.search, response.status, isJson ? parsed : undefined, text);
  return { status: response.status, body: parsed as T, headers: response.headers, text };
}

/** The served document's validator, fetched once per app (so once per test file). */
const validators = new Map<string, Promise<OpenApiValidator>>();

export function openApiValidator(app: TestApp): Promise<OpenApiValidator> {
  let validator = validators.get(app.baseUrl);
  if (!validator) {
    validator = fetch(`${app.baseUrl}/api/v1/openapi.json`)
      .then((response) => response.json())
      .then((document) => new OpenApiValidator(document as OpenApiDocument));
    validators.set(app.baseUrl, validator);
  }
  return validator;
}

/**
 * Every REST reply of the suite must be one the OpenAPI document allows: a
 * documented status of its operation and a body matching that response's
 * schema. GraphQL, metrics, docs pages, assets and the document itself are
 * not API replies and are skipped.
 */
async function checkAgainstOpenApi(app: TestApp, method: string, path: string, status: number, body: unknown, text: string): Promise<void> {
  if (!OpenApiValidator.covers(method, path)) return;
  const { key, problem } = (await openApiValidator(app)).check({ method, path, status, body, text });
  recordCoverage(key, problem);
  if (problem) throw new Error(`Reply to ${method.toUpperCase()} ${path.split('?')[0]} breaks the OpenAPI document (${key}): ${problem}`);
}

/** With OPENAPI_COVERAGE_DIR set, each file appends the (operation, status) pairs it validated. */
function recordCoverage(key: string, problem: string | null): void {
  const dir = process.env.OPENAPI_COVERAGE_DIR;
  if (!dir) return;
  fs.mkdirSync(dir, { recursive: true });
  fs.appendFileSync(nodePath.join(dir, `${process.pid}.txt`), `${problem ? 'FAIL' : 'ok'}\t${key}\n`);
}

/** GraphQL call through the real HTTP handler. */
export async function gql<T = any>(
  app: TestApp,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<HttpResult<{ data?: T; errors?: { message: string; path?: string[]; extensions: Record<string, any> }[] }>> {
  return rest(app, 'POST', '/graphql', { token, body: { query, variables } });
}

/** Sends `bytes` as written (a request fetch could not make: two headers of one name, a broken head) and reads until the server closes the connection. */
export function sendRaw(app: TestApp, bytes: string): Promise<string> {
  const { port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('end', () => resolve(received));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? resolve(received) : reject(error)));
    socket.write(bytes);
  });
}
