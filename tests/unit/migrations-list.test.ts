import fs from 'node:fs';
import path from 'node:path';
import { migrations } from '../../migrations';

describe('the migration list', () => {
  it('is every NNNN-name.ts file of migrations/, in name order, each with its up function', () => {
    const files = fs
      .readdirSync(path.resolve(__dirname, '../../migrations'))
      .filter((file) => /^\d{4}-.*\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    expect(files.length).toBeGreaterThan(15);
    expect(migrations.map((migration) => migration.name)).toEqual(files);
    for (const migration of migrations) expect(typeof migration.up).toBe('function');
  });
});
