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
  rawBody?: string;
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
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON (HTML pages, metrics)
  }
  return { status: response.status, body: parsed as T, headers: response.headers, text };
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
