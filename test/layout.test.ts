import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const SKIP = new Set(['__snapshots__', '.output', 'node_modules']);

function folders(dir: string): string[] {
  const subs = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory() && !SKIP.has(e.name));
  return [dir, ...subs.flatMap((e) => folders(join(dir, e.name)))];
}
const entries = (dir: string) => readdirSync(dir).filter((name) => !SKIP.has(name));
const files = (dir: string) => entries(dir).filter((name) => statSync(join(dir, name)).isFile());

/** Every .ts file's relative imports, `import type`, re-exports and dynamic `import()` included. */
function importGraph(dir: string): Map<string, string[]> {
  const all = folders(dir).flatMap((d) =>
    files(d)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => join(d, f)),
  );
  const known = new Set(all);
  const graph = new Map<string, string[]>();
  for (const file of all) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name.replace(/\.js$/, '.ts')))
      .map((path) => (known.has(path) ? path : join(path, 'index.ts')))
      .filter((path) => known.has(path));
    graph.set(file, targets);
  }
  return graph;
}

/** The import cycles: strongly connected components of more than one file, or a file importing itself. */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) found.push(component);
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the layout a newcomer reads', () => {
  it('keeps at most 8 loose files at the root of src/', () => {
    expect(files(join(root, 'src')).length).toBeLessThanOrEqual(8);
  });

  it('has no folder in src/ or test/ with more than 20 files, or with a single entry', () => {
    const problems = ['src', 'test']
      .flatMap((top) => folders(join(root, top)))
      .flatMap((dir) => {
        const name = relative(root, dir);
        if (files(dir).length > 20) return [`${name} holds ${files(dir).length} files`];
        if (entries(dir).length === 1) return [`${name} holds only ${entries(dir)[0]}`];
        return [];
      });
    expect(problems).toEqual([]);
  });

  it('mirrors src/ in test/: every test folder but e2e, bench and helpers has its folder in src/', () => {
    const extra = folders(join(root, 'test'))
      .map((dir) => relative(join(root, 'test'), dir))
      .filter((rel) => rel !== '' && !/^(e2e|bench|helpers)(\/|$)/.test(rel) && !rel.startsWith('ui/host'))
      .filter((rel) => !folders(join(root, 'src')).includes(join(root, 'src', rel)));
    expect(extra).toEqual([]);
  });

  it('has no import cycle in src/, type-only imports included', () => {
    const found = cycles(importGraph(join(root, 'src'))).map((c) => c.map((f) => relative(root, f)).sort());
    expect(found).toEqual([]);
  });

  it('finds a cycle made of type-only and dynamic imports, so the check above can fail', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cycle-'));
    writeFileSync(join(dir, 'a.ts'), "import type { B } from './b.js';\nexport type A = B;\n");
    writeFileSync(join(dir, 'b.ts'), "export type B = string;\nexport const c = () => import('./c.js');\n");
    writeFileSync(join(dir, 'c.ts'), "export { type A } from './a.js';\n");
    writeFileSync(join(dir, 'd.ts'), "import './a.js';\n");
    const found = cycles(importGraph(dir)).map((c) => c.map((f) => relative(dir, f)).sort());
    expect(found).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
