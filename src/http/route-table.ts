/**
 * The one route matcher: `/org/:org/ws/:workspace` patterns (or a prefix
 * ending in `*`), matched segment by segment on the raw path, so an encoded
 * `%2F` stays inside its segment (`owner%2Fname` is one parameter). Used for
 * the ops routes and for finding a REST request's operation (its body limit
 * and log label) before Sofa runs it.
 */
export interface RouteMatch<T> {
  route: T;
  params: Record<string, string>;
}

interface Entry<T> {
  method: string;
  parts: string[];
  prefix: boolean;
  route: T;
}

export class RouteTable<T> {
  private readonly entries: Entry<T>[] = [];

  add(method: string, pattern: string, route: T): this {
    const prefix = pattern.endsWith('*');
    const parts = (prefix ? pattern.slice(0, -1) : pattern).split('/');
    if (prefix) parts.pop();
    this.entries.push({ method, parts, prefix, route });
    return this;
  }

  /** The first route added that matches; literal segments are the caller's order to get right. */
  match(method: string, path: string): RouteMatch<T> | null {
    const segments = path.split('/');
    for (const entry of this.entries) {
      if (entry.method !== method) continue;
      const params = matchSegments(entry.parts, segments, entry.prefix);
      if (params) return { route: entry.route, params };
    }
    return null;
  }
}

function matchSegments(parts: string[], segments: string[], prefix: boolean): Record<string, string> | null {
  if (prefix ? segments.length <= parts.length : segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < parts.length; index += 1) {
    const part = parts[index];
    if (part.startsWith(':')) {
      if (!segments[index]) return null;
      params[part.slice(1)] = decode(segments[index]);
    } else if (part !== segments[index]) {
      return null;
    }
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
