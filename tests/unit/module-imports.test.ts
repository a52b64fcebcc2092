import fs from 'node:fs';
import path from 'node:path';

const MODULES_DIR = path.resolve(__dirname, '../../src/modules');

/** The sibling modules each module imports from (`from '../<module>/…'`). */
function siblingImports(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const entry of fs.readdirSync(MODULES_DIR, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const imports = new Set<string>();
    for (const file of fs.readdirSync(path.join(MODULES_DIR, entry.name), { recursive: true }) as string[]) {
      if (!file.endsWith('.ts')) continue;
      const text = fs.readFileSync(path.join(MODULES_DIR, entry.name, file), 'utf8');
      for (const match of text.matchAll(/from '\.\.\/([a-z-]+)\//g)) if (match[1] !== entry.name) imports.add(match[1]);
    }
    out.set(entry.name, imports);
  }
  return out;
}

describe('module imports', () => {
  it('has no two sibling modules importing each other (a field on another domain\'s type lives with the data\'s owner)', () => {
    const graph = siblingImports();
    expect(graph.size).toBeGreaterThan(10);
    const twoWay = [...graph].flatMap(([name, imports]) => [...imports].filter((other) => graph.get(other)?.has(name) && name < other).map((other) => `${name} <-> ${other}`));
    expect(twoWay).toEqual([]);
  });
});

describe('layers', () => {
  it('has core, db and http import no domain module (only the registry, src/modules/index.ts, which the transports read)', () => {
    const SRC = path.resolve(__dirname, '../../src');
    const found: string[] = [];
    for (const layer of ['core', 'db', 'http']) {
      for (const file of fs.readdirSync(path.join(SRC, layer), { recursive: true }) as string[]) {
        if (!file.endsWith('.ts')) continue;
        const text = fs.readFileSync(path.join(SRC, layer, file), 'utf8');
        for (const match of text.matchAll(/from '((?:\.\.\/)+modules\/[^']+)'/g)) found.push(`${layer}/${file}: ${match[1]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
