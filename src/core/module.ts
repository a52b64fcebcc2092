import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { ModelCtor } from 'sequelize-typescript';
import { buildAccessPolicy, type AccessPolicy, type ScopeDefinitions } from './authz/scopes';
import type { AppContext, Loaders } from './context';
import { CORE_ERROR_TYPES, type ErrorType } from './errors';
import type { PrefetchedScope, ScopeHint } from './tenancy/scope';
import type { Viewer } from './viewer';
import type { ReplyRequest } from './reply-budget';

/**
 * How a credential becomes a viewer. `accepts` is a cheap shape check; the
 * first authenticator that accepts a credential decides (null = invalid).
 */
export interface Authenticator {
  name: string;
  accepts(credential: string): boolean;
  /** With a hint, the same statement also reads the route's organization, membership and workspace. */
  authenticate(credential: string, hint: ScopeHint | null): Promise<Authenticated | null>;
}

export interface Authenticated {
  viewer: Viewer;
  prefetched: PrefetchedScope | null;
}

/** Resource counts a module adds to every project (`ProjectResponse.resource_counts`). */
export interface ProjectCountSource {
  /** The field of ProjectResourceCounts this source fills. */
  field: string;
  /** What it counts, in the 409 that refuses to delete a project holding any ("workflow runs"). */
  noun: string;
  /** A scalar sub-select counting the resources of project `p`. */
  sql: string;
}

/**
 * A route whose body is not JSON for a GraphQL operation (an OTLP export in
 * protobuf, a page's form): the module reads the request itself. The HTTP
 * layer matches it (under /api/v1, or from the root for a page) before the
 * REST routes, makes its context (credential, quota) on request, writes its
 * reply with the common headers, and lists an API route in the OpenAPI
 * document with `openapi` as its operation.
 */
export interface BodyRoute {
  method: 'GET' | 'POST' | 'PUT';
  /** Under /api/v1 (`:param` segments), or, for a page (`page: true`), from the root. */
  path: string;
  /** A server-rendered page outside the API (not in the OpenAPI document). */
  page?: boolean;
  /** The bounded metrics and log label. */
  label: string;
  /** The OpenAPI operation of an API route. */
  openapi?: Record<string, unknown>;
  handle(call: BodyRouteCall): Promise<void>;
}

export interface BodyRouteCall {
  req: IncomingMessage;
  /** The request's target, parsed (its query string: `url.searchParams`). */
  url: URL;
  /** The client's address (TRUST_PROXY applies). */
  ip: string;
  params: Record<string, string>;
  /** Authenticates the caller (401 when the credential is bad) and applies its quota (429). */
  context(hint: ScopeHint | null): Promise<AppContext>;
  /** The body, gzip or identity, within `limit` bytes as sent and `inflatedLimit` inflated (413 past either, 415 for another encoding). */
  body(limit: number, inflatedLimit: number): Promise<Buffer>;
  reply(status: number, body: Buffer | string, contentType: string, headers?: Record<string, string | string[]>): void;
  /** A body sent as it is produced, with backpressure (a bundle built while it downloads). */
  replyStream(status: number, contentType: string, headers: Record<string, string>, source: Readable): Promise<void>;
}

/** What a module's loader factory may use besides the viewer. */
export interface LoaderDeps {
  projectCounts: readonly ProjectCountSource[];
}

/**
 * One domain's descriptor (`modules/<domain>/<domain>.module.ts`): everything
 * it plugs into the platform. `modules/index.ts` lists the modules once; the
 * schema, the model list, the loaders, the scopes, the error-type table, the
 * project counts, the authenticators and the SQL descriptions of its types
 * are all built from that list.
 */
export interface AppModule {
  name: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- type-graphql's type for resolver classes
  resolvers?: readonly Function[];
  models?: readonly ModelCtor[];
  /** Its DataLoaders for one request: the request's viewer, and the request itself for loads held to its reply budget (core/reply-budget.ts); both null when the registry learns the loaders' names. */
  loaders?: (viewer: Viewer | null, deps: LoaderDeps, request: ReplyRequest | null) => Partial<Loaders>;
  scopes?: ScopeDefinitions;
  errorTypes?: readonly ErrorType[];
  projectCounts?: readonly ProjectCountSource[];
  authenticators?: readonly Authenticator[];
  bodyRoutes?: readonly BodyRoute[];
  /** Work a serving process keeps doing (span partitions ahead and past retention): started with the server, stopped on shutdown. */
  upkeep?: () => Promise<() => void>;
}

/** The registry, assembled. */
export interface Platform {
  modules: readonly AppModule[];
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type -- type-graphql's type for resolver classes
  resolvers: Function[];
  models: ModelCtor[];
  policy: AccessPolicy;
  /** Every error `type` the API can answer, with the module that owns it (core for the shared ones). */
  errorTypes: ReadonlyMap<ErrorType, string>;
  projectCounts: ProjectCountSource[];
  authenticators: Authenticator[];
  bodyRoutes: BodyRoute[];
  /** Starts every module's upkeep; resolves with one function stopping them all. */
  startUpkeep(): Promise<() => void>;
  /** A request's loaders (see lazyLoaders); `request` is the request whose reply budget their loads count against. */
  createLoaders(viewer: Viewer | null, request?: ReplyRequest): Loaders;
}

export function buildPlatform(modules: readonly AppModule[]): Platform {
  const names = new Set<string>();
  const errorTypes = new Map<ErrorType, string>(CORE_ERROR_TYPES.map((type) => [type, 'core']));
  for (const module of modules) {
    if (names.has(module.name)) throw new Error(`Module ${module.name} is listed twice`);
    names.add(module.name);
    for (const type of module.errorTypes ?? []) {
      if (errorTypes.has(type)) throw new Error(`Error type ${type} is declared by ${errorTypes.get(type)} and ${module.name}`);
      errorTypes.set(type, module.name);
    }
  }
  const projectCounts = modules.flatMap((module) => module.projectCounts ?? []);
  const deps: LoaderDeps = { projectCounts };
  return {
    modules,
    resolvers: modules.flatMap((module) => module.resolvers ?? []),
    models: modules.flatMap((module) => module.models ?? []),
    policy: buildAccessPolicy(modules.flatMap((module) => (module.scopes ? [module.scopes] : []))),
    errorTypes,
    projectCounts,
    authenticators: modules.flatMap((module) => module.authenticators ?? []),
    bodyRoutes: modules.flatMap((module) => module.bodyRoutes ?? []),
    async startUpkeep() {
      const stops = await Promise.all(modules.flatMap((module) => (module.upkeep ? [module.upkeep()] : [])));
      return () => stops.forEach((stop) => stop());
    },
    createLoaders: lazyLoaders(modules, deps),
  };
}

/**
 * A request's loaders, each module's made on first use: a request touches
 * one or two modules' loaders (a small REST read, none), and making all
 * 27 DataLoaders and their closures on every request was a visible
 * part of its fixed cost. Every loader name is learnt once, from a factory
 * call without a viewer (factories only build DataLoaders); its getter, on
 * the request's object, calls the owning module's factory with the request's
 * viewer and keeps all of that module's loaders on the object (so a loader
 * is an own property only once its module was used: nothing enumerates them).
 */
function lazyLoaders(modules: readonly AppModule[], deps: LoaderDeps): (viewer: Viewer | null, request?: ReplyRequest) => Loaders {
  const requests = new WeakMap<object, { viewer: Viewer | null; request: ReplyRequest | null }>();
  const prototype = {};
  for (const module of modules) {
    const factory = module.loaders;
    if (!factory) continue;
    for (const name of Object.keys(factory(null, deps, null))) {
      if (Object.prototype.hasOwnProperty.call(prototype, name)) throw new Error(`Loader ${name} is declared by two modules`);
      Object.defineProperty(prototype, name, {
        enumerable: true,
        get(this: object) {
          const made = requests.get(this);
          if (!made) throw new Error(`Loader ${name} read outside a request's loaders`);
          const loaders = factory(made.viewer, deps, made.request) as Record<string, unknown>;
          if (!(name in loaders)) throw new Error(`Module ${module.name} did not make loader ${name} for this viewer`);
          for (const [key, loader] of Object.entries(loaders)) Object.defineProperty(this, key, { value: loader, enumerable: true });
          return loaders[name];
        },
      });
    }
  }
  return (viewer, request) => {
    const loaders = Object.create(prototype) as Loaders;
    requests.set(loaders, { viewer, request: request ?? null });
    return loaders;
  };
}
