/**
 * The TypeScript side of the shim contract cannot drift from the file the Java side is tested
 * against (yarn-adapter/src/main/resources/schedbrain-shim-contract.json): every `$defs` entry has
 * a zod schema with the same properties, required set, types, enums and bounds; every example
 * parses; every endpoint the client uses is in `x-endpoints` with the same request/response.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SHIM_CONTRACT_VERSION, SHIM_ROUTES, shimErrorCodes, shimWireSchemas, type ShimWireName } from '../../src/yarn/shim-client.js';
import { RESERVED_SCORE_MIN } from '../../src/policies/pigeon/index.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const contract = JSON.parse(readFileSync(join(root, 'yarn-adapter/src/main/resources/schedbrain-shim-contract.json'), 'utf8')) as {
  'x-contract-version': number;
  'x-reserved-score-min': number;
  'x-endpoints': { method: string; path: string; request?: string; response: string; errors: { status: number; error: string }[] }[];
  $defs: Record<string, JsonSchema>;
};

interface JsonSchema {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  $ref?: string;
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  examples?: unknown[];
}

/** A normal form both sides are reduced to. */
interface Shape {
  types: string[];
  ref?: string;
  enum?: unknown[];
  min?: number;
  max?: number;
  items?: Shape;
  values?: Shape;
  props?: Record<string, Shape>;
  required?: string[];
  closed?: boolean;
}

const defName = new Map<z.ZodTypeAny, string>(Object.entries(shimWireSchemas).map(([k, v]) => [v as z.ZodTypeAny, k]));

function fromJson(s: JsonSchema, top = false): Shape {
  if (s.$ref) return { types: ['object'], ref: s.$ref.replace('#/$defs/', '') };
  if (s.oneOf) {
    const parts = s.oneOf.map((p) => fromJson(p));
    const ref = parts.find((p) => p.ref)?.ref;
    return { types: [...new Set(parts.flatMap((p) => p.types))].sort(), ...(ref ? { ref } : {}) };
  }
  const types = (Array.isArray(s.type) ? s.type : [s.type!]).slice().sort();
  const out: Shape = { types };
  const e = s.enum ?? (s.const !== undefined ? [s.const] : undefined);
  if (e) out.enum = [...e].sort();
  const min = s.minimum ?? s.minLength;
  const max = s.maximum ?? s.maxLength;
  if (min !== undefined) out.min = min;
  if (max !== undefined) out.max = max;
  if (s.items) out.items = fromJson(s.items);
  if (typeof s.additionalProperties === 'object') out.values = fromJson(s.additionalProperties);
  if (s.properties || (top && types.includes('object') && !out.values)) {
    out.props = Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, fromJson(v)]));
    out.required = [...(s.required ?? [])].sort();
    out.closed = s.additionalProperties === false;
  }
  return out;
}

function fromZod(t: z.ZodTypeAny, top = false): Shape {
  const name = defName.get(t);
  if (name && !top) return { types: ['object'], ref: name };
  if (t instanceof z.ZodNullable) {
    const inner = fromZod(t.unwrap());
    return { ...inner, types: [...new Set([...inner.types, 'null'])].sort() };
  }
  if (t instanceof z.ZodOptional) return fromZod(t.unwrap());
  if (t instanceof z.ZodString) {
    const out: Shape = { types: ['string'] };
    for (const c of t._def.checks) {
      if (c.kind === 'min') out.min = c.value;
      if (c.kind === 'max') out.max = c.value;
    }
    return out;
  }
  if (t instanceof z.ZodNumber) {
    const out: Shape = { types: [t.isInt ? 'integer' : 'number'] };
    for (const c of t._def.checks) {
      if (c.kind === 'min') out.min = c.value;
      if (c.kind === 'max') out.max = c.value;
    }
    return out;
  }
  if (t instanceof z.ZodBoolean) return { types: ['boolean'] };
  if (t instanceof z.ZodEnum) return { types: ['string'], enum: [...(t.options as string[])].sort() };
  if (t instanceof z.ZodLiteral) return { types: [typeof t.value], enum: [t.value] };
  if (t instanceof z.ZodArray) return { types: ['array'], items: fromZod(t.element) };
  if (t instanceof z.ZodRecord) return { types: ['object'], values: fromZod(t.valueSchema) };
  if (t instanceof z.ZodObject) {
    const shape = t.shape as Record<string, z.ZodTypeAny>;
    return {
      types: ['object'],
      props: Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, fromZod(v)])),
      required: Object.entries(shape)
        .filter(([, v]) => !v.isOptional())
        .map(([k]) => k)
        .sort(),
      closed: t._def.unknownKeys === 'strict',
    };
  }
  throw new Error(`zod type ${t.constructor.name} not handled by the contract test`);
}

describe('shim wire contract (zod ↔ schedbrain-shim-contract.json)', () => {
  it('has a zod schema for every $defs entry and no extra', () => {
    expect(Object.keys(shimWireSchemas).sort()).toEqual(Object.keys(contract.$defs).sort());
    expect(SHIM_CONTRACT_VERSION).toBe(contract['x-contract-version']);
  });

  it('reserves nodes from the score Pigeon gives its reserved workers', () => {
    expect(contract['x-reserved-score-min']).toBe(RESERVED_SCORE_MIN);
  });

  for (const name of Object.keys(contract.$defs)) {
    it(`${name}: same properties, required set, types, enums and bounds`, () => {
      const zod = shimWireSchemas[name as ShimWireName] as z.ZodTypeAny;
      expect(fromZod(zod, true)).toEqual(fromJson(contract.$defs[name]!, true));
    });

    it(`${name}: every example in the file parses`, () => {
      const zod = shimWireSchemas[name as ShimWireName] as z.ZodTypeAny;
      for (const ex of contract.$defs[name]!.examples ?? []) {
        const r = zod.safeParse(ex);
        expect(r.success, JSON.stringify(r.error?.issues)).toBe(true);
      }
    });
  }

  it('error codes are the enum of Error', () => {
    expect([...shimErrorCodes].sort()).toEqual([...(contract.$defs.Error!.properties!.error!.enum as string[])].sort());
    for (const e of contract['x-endpoints'].flatMap((x) => x.errors)) expect(shimErrorCodes).toContain(e.error);
  });

  it('the client routes are exactly the documented endpoints', () => {
    const documented = contract['x-endpoints'].map(({ method, path, request, response }) => ({ method, path, response, ...(request ? { request } : {}) }));
    const used = SHIM_ROUTES.map((r) => ({ ...r }));
    expect(used.sort(byRoute)).toEqual(documented.sort(byRoute));
  });

  it('requests with unknown or missing fields are rejected on this side too', () => {
    expect(shimWireSchemas.ContainerRef.safeParse({ nodeId: 'n', containerId: 'c', force: true }).success).toBe(false);
    expect(shimWireSchemas.ContainerRef.safeParse({ nodeId: 'n' }).success).toBe(false);
    expect(shimWireSchemas.LeaseRequest.safeParse({ holder: 'h', ttlMs: 0 }).success).toBe(false);
    expect(shimWireSchemas.RankingRequest.safeParse({ scores: { a: 'x' }, leastLoadedFirst: true, ttlMs: 5 }).success).toBe(false);
  });
});

function byRoute(a: { method: string; path: string }, b: { method: string; path: string }): number {
  return `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`);
}
