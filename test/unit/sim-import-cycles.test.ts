import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// ESLint's import-x/no-cycle does not count `import type`; this counts every import and re-export
// (what `npx madge --circular --extensions ts src/sim` reports).
const SIM = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/sim');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The modules of src/sim a file imports or re-exports from, types included. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+'(\.[^']+)'/gms)) {
    const target = resolve(dirname(file), m[1].replace(/\.js$/, '.ts'));
    if (target.startsWith(SIM)) out.push(target);
  }
  return out;
}

/** Every import cycle of the graph, each as a list of files (depth-first search, one per back edge). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    path.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') found.push(path.slice(path.indexOf(g)));
      else if (!state.has(g)) visit(g);
    }
    path.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

describe('src/sim imports', () => {
  it('has no import cycle, type-only imports included', () => {
    const graph = new Map(sources(SIM).map((f) => [f, importsOf(f)]));
    expect(graph.size).toBeGreaterThan(10);
    expect([...graph.values()].some((targets) => targets.length > 0)).toBe(true);
    expect(cycles(graph).map((c) => c.map((f) => relative(SIM, f)).join(' > '))).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });
});
