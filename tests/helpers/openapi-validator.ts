import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Checks HTTP replies against the served OpenAPI 3.1 document: the request
 * (method and path under /api/v1) picks the operation, the status picks the
 * documented response (shared ones resolved from `components.responses`),
 * and Ajv validates the body against its schema as JSON Schema 2020-12, in
 * strict mode (an OpenAPI 3.0 keyword such as `nullable` is an error).
 *
 * Each schema is adapted only where OpenAPI differs from plain JSON Schema:
 * - OpenAPI-only keywords (`example`, `discriminator`, `xml`, `externalDocs`)
 *   are dropped so Ajv can run in strict mode;
 * - refs to `#/components/schemas/X` point into one shared Ajv schema;
 * - objects that list their `properties` are closed (no undocumented fields),
 *   since every component is generated from the GraphQL type it describes.
 */

type Json = Record<string, any>;

export interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, Json> }>>;
  components?: { schemas?: Record<string, Json>; responses?: Record<string, Json> };
}

export const API_BASE = '/api/v1';
const COMPONENTS_ID = 'https://openapi.test/components.json';
const OPENAPI_ONLY = new Set(['example', 'discriminator', 'xml', 'externalDocs']);
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

interface Route {
  template: string;
  segments: string[];
  methods: Record<string, { operationId?: string; responses?: Record<string, Json> }>;
}

export interface ReplyCheck {
  method: string;
  /** Request path, with or without query string. */
  path: string;
  status: number;
  /** Parsed JSON body, or undefined when the reply was not JSON. */
  body: unknown;
  /** Raw text of the reply (for the message when it is not JSON). */
  text?: string;
}

export class OpenApiValidator {
  private readonly ajv: Ajv2020;
  private readonly routes: Route[];
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    this.ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addFormat('int32', { type: 'number', validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 });
    this.ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
    this.ajv.addFormat('float', { type: 'number', validate: () => true });
    this.ajv.addFormat('double', { type: 'number', validate: () => true });
    const definitions = Object.fromEntries(
      Object.entries(document.components?.schemas ?? {}).map(([name, schema]) => [name, toAjvSchema(schema)]),
    );
    this.ajv.addSchema({ $id: COMPONENTS_ID, $defs: definitions });
    this.routes = Object.entries(document.paths)
      .filter(([template]) => template.startsWith(`${API_BASE}/`))
      .map(([template, methods]) => ({ template, segments: template.split('/'), methods }))
      .sort((a, b) => compareTemplates(a.segments, b.segments));
  }

  /** Whether a reply to this path is an API reply the document must describe. */
  static covers(method: string, path: string): boolean {
    const pathname = path.split('?')[0];
    const api = pathname === API_BASE || pathname.startsWith(`${API_BASE}/`);
    return api && pathname !== `${API_BASE}/openapi.json` && method.toUpperCase() !== 'HEAD';
  }

  /** The documented operation for a request: `METHOD /template`, or null for an unknown route. */
  operationFor(method: string, path: string): { key: string; operationId?: string; responses: Record<string, Json> } | null {
    const segments = path.split('?')[0].split('/');
    const verb = method.toLowerCase();
    for (const route of this.routes) {
      if (!matches(route.segments, segments)) continue;
      const operation = route.methods[verb];
      if (operation && HTTP_METHODS.has(verb)) {
        return { key: `${method.toUpperCase()} ${route.template}`, operationId: operation.operationId, responses: operation.responses ?? {} };
      }
    }
    return null;
  }

  /**
   * Problems with a reply, or null when it matches the document. Unknown
   * routes must answer an error status with the APIErrorPayload envelope.
   */
  check(reply: ReplyCheck): { key: string; problem: string | null } {
    const operation = this.operationFor(reply.method, reply.path);
    const key = operation ? `${operation.key} → ${reply.status}` : `unknown route ${reply.method.toUpperCase()} → ${reply.status}`;
    let schema: Json;
    if (!operation) {
      if (reply.status < 400) return { key, problem: `${reply.method.toUpperCase()} ${reply.path} matches no documented operation but answered ${reply.status}` };
      schema = { $ref: '#/components/schemas/APIErrorPayload' };
    } else {
      const documented = operation.responses[String(reply.status)] ?? operation.responses[`${String(reply.status)[0]}XX`] ?? operation.responses.default;
      const response = typeof documented?.$ref === 'string' ? this.document.components?.responses?.[documented.$ref.replace('#/components/responses/', '')] : documented;
      if (!response) {
        const statuses = Object.keys(operation.responses).join(', ');
        return { key, problem: `status ${reply.status} is not documented for ${operation.key} (documented: ${statuses})` };
      }
      const media = response.content?.['application/json'];
      // A reply documented with other media types only (a file's bytes, an archive) is not JSON to validate.
      if (!media && Object.keys(response.content ?? {}).length) return { key, problem: null };
      if (!media) {
        return reply.text ? { key, problem: `${operation.key} documents no JSON body for ${reply.status}, but the reply has one` } : { key, problem: null };
      }
      schema = media.schema ?? {};
    }
    if (reply.body === undefined) return { key, problem: `the reply is not JSON: ${snippet(reply.text ?? '')}` };
    const validate = this.validatorFor(key, schema);
    if (validate(reply.body)) return { key, problem: null };
    return { key, problem: `the body does not match the document:\n${formatErrors(validate.errors ?? [])}\nbody: ${snippet(JSON.stringify(reply.body))}` };
  }

  /** Problems with a value against a component schema (an example of the document), or null when it matches. */
  checkComponent(name: string, value: unknown): string | null {
    const validate = this.validatorFor(`component ${name}`, { $ref: `#/components/schemas/${name}` });
    return validate(value) ? null : formatErrors(validate.errors ?? []);
  }

  private validatorFor(key: string, schema: Json): ValidateFunction {
    const cacheKey = `${key}|${JSON.stringify(schema)}`;
    let validate = this.compiled.get(cacheKey);
    if (!validate) {
      validate = this.ajv.compile(toAjvSchema(schema) as Json);
      this.compiled.set(cacheKey, validate);
    }
    return validate;
  }
}

/** One OpenAPI 3.1 schema object as the JSON Schema Ajv validates. */
export function toAjvSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toAjvSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (OPENAPI_ONLY.has(key)) continue;
    // Ajv knows this OpenAPI 3.0 keyword; a 3.1 document must say null with JSON Schema's own types.
    if (key === 'nullable') throw new Error('`nullable` is OpenAPI 3.0: a 3.1 document admits null with `type: [..., "null"]` or `anyOf`');
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = value.startsWith('#/components/schemas/') ? `${COMPONENTS_ID}#/$defs/${value.slice(21)}` : value;
    } else if (key === 'properties' && value && typeof value === 'object') {
      // Property names are not schemas: convert each value, keep the names.
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([name, item]) => [name, toAjvSchema(item)]));
    } else {
      out[key] = toAjvSchema(value);
    }
  }
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function matches(template: string[], segments: string[]): boolean {
  return (
    template.length === segments.length &&
    template.every((part, index) => (part.startsWith('{') && part.endsWith('}') ? segments[index] !== '' : part === segments[index]))
  );
}

/** Literal segments before parameters, as the router matches them. */
function compareTemplates(a: string[], b: string[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    const left = a[index].startsWith('{');
    const right = b[index].startsWith('{');
    if (left !== right) return left ? 1 : -1;
  }
  return b.length - a.length;
}

function formatErrors(errors: ErrorObject[]): string {
  return errors
    .slice(0, 10)
    .map((error) => `  ${error.instancePath || '(body)'} ${error.message}${error.params && Object.keys(error.params).length ? ` ${JSON.stringify(error.params)}` : ''}`)
    .join('\n');
}

function snippet(text: string, length = 600): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}
