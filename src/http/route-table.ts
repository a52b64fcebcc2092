/**
 * The one route matcher: `/org/:org/ws/:workspace` patterns (or a prefix
 * ending in `*`), matched segment by segment on the raw path, so an encoded
 * `%2F` stays inside its segment (`owner%2Fname` is one parameter). Used for
 * the ops routes and for finding a REST request's operation (its body limit
 * and log label) before its operation document is executed.
 */
export interface RouteMatch<T> {
  route: T;
  params: Record<string, string>;
}

interface Entry<T> {
  /** The order it was added in: the first added of the matching routes wins. */
  order: number;
  parts: string[];
  prefix: boolean;
  route: T;
}

/**
 * Routes are kept by method and segment count (prefix routes by method), so
 * a request is compared with the few routes of its shape, not all of them
 * (about a hundred REST routes).
 */
export class RouteTable<T> {
  private readonly exact = new Map<string, Entry<T>[]>();
  private readonly prefixes = new Map<string, Entry<T>[]>();
  private readonly methodNames = new Set<string>();
  private added = 0;

  /** `served`: whether a route is there at all now (a route a switch turns off neither matches nor counts in Allow). */
  constructor(private readonly served: (route: T) => boolean = () => true) {}

  add(method: string, pattern: string, route: T): this {
    const prefix = pattern.endsWith('*');
    const parts = (prefix ? pattern.slice(0, -1) : pattern).split('/');
    if (prefix) parts.pop();
    const entry = { order: this.added, parts, prefix, route };
    this.added += 1;
    this.methodNames.add(method);
    const key = prefix ? method : `${method} ${parts.length}`;
    const bucket = (prefix ? this.prefixes : this.exact).get(key);
    if (bucket) bucket.push(entry);
    else (prefix ? this.prefixes : this.exact).set(key, [entry]);
    return this;
  }

  /** The methods with a route matching `path`, in the order they were first added. */
  methodsOf(path: string): string[] {
    return [...this.methodNames].filter((method) => this.match(method, path) !== null);
  }

  /** The first route added that matches; literal segments are the caller's order to get right. */
  match(method: string, path: string): RouteMatch<T> | null {
    const segments = path.split('/');
    let found: RouteMatch<T> | null = null;
    let order = Infinity;
    for (const entry of this.exact.get(`${method} ${segments.length}`) ?? []) {
      const params = this.served(entry.route) ? matchSegments(entry.parts, segments, false) : null;
      if (params) {
        found = { route: entry.route, params };
        order = entry.order;
        break;
      }
    }
    for (const entry of this.prefixes.get(method) ?? []) {
      if (entry.order > order) break;
      const params = this.served(entry.route) ? matchSegments(entry.parts, segments, true) : null;
      if (params) return { route: entry.route, params };
    }
    return found;
  }
}

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** The methods a path has (HEAD with GET, OPTIONS always), for Allow: empty when no route has the path. */
export function allowedMethods<T>(table: RouteTable<T>, path: string): string[] {
  const methods = table.methodsOf(path);
  if (!methods.length) return [];
  if (methods.includes('GET')) methods.push('HEAD');
  return [...methods, 'OPTIONS'].sort((a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
}

function matchSegments(parts: string[], segments: string[], prefix: boolean): Record<string, string> | null {
  if (prefix ? segments.length <= parts.length : segments.length !== parts.length) return null;
  // Literal segments first: most candidates fail there, before any parameter is decoded.
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index];
    if (part.startsWith(':') ? !segments[index] : part !== segments[index]) return null;
  }
  const params: Record<string, string> = {};
  for (let index = 0; index < parts.length; index += 1) {
    if (parts[index].startsWith(':')) params[parts[index].slice(1)] = decode(segments[index]);
  }
  if (prefix) params['*'] = segments.slice(parts.length).join('/');
  return params;
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
