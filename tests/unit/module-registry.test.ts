import fs from 'node:fs';
import path from 'node:path';
import { defineScopes, OWNER_ONLY, ALL_ROLES } from '../../src/core/authz/scopes';
import { isObjectType } from 'graphql';
import { createSchema } from '../../src/schema';
import { buildPlatform, type AppModule } from '../../src/core/module';
import { MODULES, platform } from '../../src/modules';

describe('the module registry', () => {
  it('lists every domain folder of src/modules once, each with its descriptor', () => {
    const root = path.resolve(__dirname, '../../src/modules');
    const folders = fs.readdirSync(root, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    for (const folder of folders) {
      expect(fs.readdirSync(path.join(root, folder)).filter((file) => file.endsWith('.module.ts'))).toEqual([`${folder}.module.ts`]);
    }
    expect(MODULES.map((module) => module.name).sort()).toEqual([...folders].sort());
  });

  it('builds the roles from the scopes the modules declare: owners hold every scope, readers only reads', () => {
    const { policy } = platform;
    expect(policy.scopes).toEqual(expect.arrayContaining(['org:read', 'members:manage', 'resources:write', 'catalog:publish']));
    for (const scope of policy.scopes) expect(policy.roleHas('owner', scope)).toBe(true);
    expect(policy.scopes.filter((scope) => policy.roleHas('reader', scope)).sort()).toEqual(['members:read', 'org:read']);
    expect(policy.roleHas('contributor', 'resources:write')).toBe(true);
    expect(policy.roleHas('contributor', 'members:manage')).toBe(false);
    expect(policy.isOrgWide('members:manage')).toBe(true);
    // The catalogs belong to the whole organization: a workspace-limited key never writes them.
    expect(policy.isOrgWide('catalog:publish')).toBe(true);
    expect(policy.isOrgWide('resources:write')).toBe(false);
  });

  it('collects the error types, project counts and authenticators of the modules', () => {
    expect(platform.errorTypes.get('member_limit_exceeded_error')).toBe('members');
    expect(platform.errorTypes.get('validation_error')).toBe('core');
    expect(platform.projectCounts.map((source) => source.field)).toEqual(['sessions', 'session_groups', 'airt_assessments', 'workflow_runs', 'evaluations']);
    expect(platform.authenticators.map((authenticator) => authenticator.name)).toEqual(['access token', 'API key']);
  });

  it('refuses two modules declaring one scope, one error type or one name', () => {
    const scopes = defineScopes({ 'x:read': { roles: ALL_ROLES } });
    const a: AppModule = { name: 'a', scopes, errorTypes: ['mail_error'] };
    expect(() => buildPlatform([a, { name: 'b', scopes }])).toThrow(/x:read is declared by two modules/);
    expect(() => buildPlatform([a, { name: 'b', errorTypes: ['mail_error'] }])).toThrow(/mail_error is declared by a and b/);
    expect(() => buildPlatform([a, { name: 'a' }])).toThrow(/listed twice/);
    expect(buildPlatform([a, { name: 'b', scopes: defineScopes({ 'x:write': { roles: OWNER_ONLY } }) }]).policy.roleHas('reader', 'x:write' as never)).toBe(
      false,
    );
  });

  it('finds each field’s SQL on the field itself (its `sql` extension) and each compiled root’s on the root field', async () => {
    const schema = await createSchema();
    const described = new Set<string>();
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      if (Object.values(type.getFields()).some((field) => field.extensions.sql)) described.add(type.name);
    }
    expect([...described].sort()).toEqual(
      expect.arrayContaining(['ProjectResponse', 'SessionCreatorResponse', 'SessionGroupSummary', 'SessionListResponse', 'SessionResponse', 'SessionUsageResponse', 'WorkspaceResponse']),
    );
    const roots = Object.values(schema.getQueryType()!.getFields()).filter((field) => field.extensions.sqlRoot).map((field) => field.name);
    expect(roots.sort()).toEqual(['assessment_analytics', 'assessment_attacks', 'datasets', 'session', 'sessions', 'tasks', 'trace_spans', 'workspace']);
  });

  it('makes a module’s loaders on first use, with the request’s viewer, once per request; two modules may not declare one loader', () => {
    const made: (string | null)[] = [];
    const loaders = (viewer: { user: { id: string } } | null) => {
      made.push(viewer?.user.id ?? null);
      return { first: { viewer: viewer?.user.id ?? null }, second: { viewer: viewer?.user.id ?? null } };
    };
    const built = buildPlatform([{ name: 'a', loaders: loaders as never }, { name: 'b' }]);
    made.length = 0; // the build learns the names once, without a viewer
    const request = built.createLoaders({ user: { id: 'u-1' } } as never) as unknown as Record<string, { viewer: string }>;
    const other = built.createLoaders(null) as unknown as Record<string, { viewer: string | null }>;
    expect(made).toEqual([]);
    expect(request.second.viewer).toBe('u-1');
    expect(request.first).toBe(request.first);
    expect(request.first.viewer).toBe('u-1');
    expect(other.first.viewer).toBeNull();
    expect(made).toEqual(['u-1', null]);
    expect(Object.keys(request).sort()).toEqual(['first', 'second']);
    // Nothing but a request's own loaders object makes loaders (never with no tenant by accident).
    const foreign = Object.create(Object.getPrototypeOf(other)) as Record<string, unknown>;
    expect(() => foreign.first).toThrow(/outside a request's loaders/);
    expect(Object.keys(built.createLoaders(null))).toEqual([]); // own properties appear on first use
    expect(() => buildPlatform([{ name: 'a', loaders: loaders as never }, { name: 'b', loaders: loaders as never }])).toThrow(/Loader first is declared by two modules/);
  });
});
