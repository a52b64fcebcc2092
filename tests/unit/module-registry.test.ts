import fs from 'node:fs';
import path from 'node:path';
import { defineScopes, OWNER_ONLY, ALL_ROLES } from '../../src/core/authz/scopes';
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
    expect(policy.isOrgWide('resources:write')).toBe(false);
  });

  it('collects the error types, project counts and authenticators of the modules', () => {
    expect(platform.errorTypes.get('member_limit_exceeded_error')).toBe('members');
    expect(platform.errorTypes.get('validation_error')).toBe('core');
    expect(platform.projectCounts.map((source) => source.field)).toEqual(['sessions', 'airt_assessments', 'evaluations']);
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
});
