/**
 * The compiled schemas give zod's own answer: the same output for every recording, and for
 * recordings with a field replaced by any JSON value, either zod's output or a refusal where zod
 * refuses too.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { compile, FAIL, parseFast } from '../../src/yarn/fast-parse.js';
import { appsResponseSchema, appResponseSchema, nodeResponseSchema, nodesResponseSchema } from '../../src/yarn/schemas.js';
import { fixture } from './yarn-fake-rm.js';

const cases: Array<[string, z.ZodTypeAny, string[]]> = [
  ['nodes', nodesResponseSchema, ['nodes.json', 'nodes-empty.json', 'nodes-running.json', 'pending-nodes.json']],
  ['apps', appsResponseSchema, ['apps.json', 'apps-empty.json', 'apps-running.json', 'pending-apps.json']],
  ['node', nodeResponseSchema, ['node.json', 'node-overcommitted.json']],
  ['app', appResponseSchema, ['app.json', 'app-killed.json']],
];

/** Every path to a value in `v` (objects and arrays walked). */
function paths(v: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const out = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

function replaced(v: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const copy = (Array.isArray(v) ? [...v] : { ...(v as object) }) as Record<string | number, unknown>;
  copy[path[0]!] = replaced(copy[path[0]!], path.slice(1), value);
  return copy;
}

describe('compiled RM schemas', () => {
  it.each(cases)('%s: compiled, and the same output as zod for every recording', (_, schema, files) => {
    const fast = compile(schema);
    expect(fast).toBeTypeOf('function');
    for (const f of files) {
      const json = fixture(f);
      const r = fast!(json);
      expect(r).not.toBe(FAIL);
      expect(r).toEqual(schema.parse(json));
    }
  });

  it.each(cases)('%s: a field replaced by any JSON value is accepted as zod accepts it, refused where zod refuses', (_, schema, files) => {
    const fast = compile(schema)!;
    const recordings = files.map((f) => fixture(f));
    const all = recordings.map((r) => paths(r));
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.oneof(fc.jsonValue(), fc.constantFrom(undefined, '', ' ', '12', 'x', null, [], {})), (i, j, value) => {
        const k = i % recordings.length;
        const json = replaced(recordings[k], all[k]![j % all[k]!.length]!, value);
        const z = schema.safeParse(json);
        const r = fast(json);
        if (z.success) expect(r).toEqual(z.data);
        else expect(r).toBe(FAIL);
        expect(parseFast(schema, json).success).toBe(z.success);
      }),
      { numRuns: 300, seed: 19 },
    );
  });
});
