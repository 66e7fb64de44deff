/**
 * A compiled form of the RM schemas for the big lists: validating 10,000 nodes or apps with zod
 * took 0.5–0.8 s each (docs/benchmarks.md), against 0.1 s for JSON.parse. `compile` turns a zod
 * schema built from the kinds schemas.ts uses (objects that strip, strings, booleans, literals,
 * `num`, `list`, arrays, optional, nullable) into a plain function giving zod's own output;
 * anything else is left to zod. A value the compiled form refuses is parsed again by zod, so
 * errors read the same (`parseFast`).
 */
import { z } from 'zod';

/** Returned by a compiled check for a value zod would refuse. */
export const FAIL: unique symbol = Symbol('fail');
type Fast = (v: unknown) => unknown;

/** Schemas compiled by their meaning rather than their zod type (`num`, `list`): see `markFast`. */
const marked = new WeakMap<z.ZodTypeAny, (compileItem: (s: z.ZodTypeAny) => Fast | undefined) => Fast | undefined>();
const compiled = new WeakMap<z.ZodTypeAny, Fast | null>();
/** What a marked schema is, for `describeSchema` (`list` gives its item schema). */
const markedKinds = new WeakMap<z.ZodTypeAny, { kind: 'num' } | { kind: 'list'; item: z.ZodTypeAny }>();

/** Declares how a preprocessing schema compiles (its zod form stays what parses it otherwise). */
export function markFast(
  schema: z.ZodTypeAny,
  how: (compileItem: (s: z.ZodTypeAny) => Fast | undefined) => Fast | undefined,
  kind?: { kind: 'num' } | { kind: 'list'; item: z.ZodTypeAny },
): void {
  marked.set(schema, how);
  if (kind) markedKinds.set(schema, kind);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function compile(schema: z.ZodTypeAny): Fast | undefined {
  const known = compiled.get(schema);
  if (known !== undefined) return known ?? undefined;
  compiled.set(schema, null); // a recursive schema is left to zod
  const fast = build(schema);
  compiled.set(schema, fast ?? null);
  return fast;
}

function build(schema: z.ZodTypeAny): Fast | undefined {
  const how = marked.get(schema);
  if (how) return how(compile);
  if (schema instanceof z.ZodString) return schema._def.checks.length === 0 ? (v) => (typeof v === 'string' ? v : FAIL) : undefined;
  if (schema instanceof z.ZodBoolean) return (v) => (typeof v === 'boolean' ? v : FAIL);
  if (schema instanceof z.ZodLiteral) {
    const value: unknown = schema._def.value;
    return (v) => (v === value ? v : FAIL);
  }
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    const inner = compile(schema._def.innerType as z.ZodTypeAny);
    if (!inner) return undefined;
    const empty = schema instanceof z.ZodOptional ? undefined : null;
    return (v) => (v === empty ? v : inner(v));
  }
  if (schema instanceof z.ZodArray) {
    const d = schema._def;
    if (d.exactLength !== null || d.minLength !== null || d.maxLength !== null) return undefined;
    const item = compile(d.type as z.ZodTypeAny);
    return item ? (v) => arrayOf(v, item) : undefined;
  }
  if (schema instanceof z.ZodObject) {
    if (schema._def.unknownKeys !== 'strip' || !(schema._def.catchall instanceof z.ZodNever)) return undefined;
    const shape = schema.shape as Record<string, z.ZodTypeAny>;
    const keys = Object.keys(shape);
    const checks: Fast[] = [];
    for (const k of keys) {
      const f = compile(shape[k]!);
      if (!f) return undefined;
      checks.push(f);
    }
    return (v) => {
      if (!isObject(v)) return FAIL;
      const out: Record<string, unknown> = {};
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        const r = checks[i]!(v[k]);
        if (r === FAIL) return FAIL;
        // As zod: a key is set when its value is defined or the input has it.
        if (r !== undefined || k in v) out[k] = r;
      }
      return out;
    };
  }
  return undefined;
}

export function arrayOf(v: unknown, item: Fast): unknown {
  if (!Array.isArray(v)) return FAIL;
  const out = new Array<unknown>(v.length);
  for (let i = 0; i < v.length; i++) {
    const r = item(v[i]);
    if (r === FAIL) return FAIL;
    out[i] = r;
  }
  return out;
}

/** Zod's answer for `json`, through the compiled form when there is one and it accepts. */
export function parseFast<T>(schema: z.ZodType<T, z.ZodTypeDef, unknown>, json: unknown): z.SafeParseReturnType<unknown, T> {
  const fast = compile(schema as z.ZodTypeAny);
  if (fast) {
    const r = fast(json);
    if (r !== FAIL) return { success: true, data: r as T };
  }
  return schema.safeParse(json);
}

/**
 * The compiled form as plain data (structured-cloneable), for a check run in another thread
 * (`list-parser.ts`): the same kinds `compile` handles, with the same meaning. Undefined where
 * `compile` would leave the schema to zod.
 */
export type SchemaSpec =
  | { readonly k: 'str' | 'bool' | 'num' }
  | { readonly k: 'lit'; readonly v: string | number | boolean | null }
  | { readonly k: 'opt' | 'null'; readonly inner: SchemaSpec }
  | { readonly k: 'arr' | 'list'; readonly item: SchemaSpec }
  | { readonly k: 'obj'; readonly keys: readonly string[]; readonly values: readonly SchemaSpec[] };

const described = new WeakMap<z.ZodTypeAny, SchemaSpec | null>();

/** Memoised: one schema, one spec object (the worker keeps its compiled check by it). */
export function describeSchema(schema: z.ZodTypeAny): SchemaSpec | undefined {
  const known = described.get(schema);
  if (known !== undefined) return known ?? undefined;
  const spec = describeUncached(schema);
  described.set(schema, spec ?? null);
  return spec;
}

function describeUncached(schema: z.ZodTypeAny): SchemaSpec | undefined {
  if (!compile(schema)) return undefined;
  const kind = markedKinds.get(schema);
  if (kind?.kind === 'num') return { k: 'num' };
  if (kind?.kind === 'list') {
    const item = describeSchema(kind.item);
    return item ? { k: 'list', item } : undefined;
  }
  if (marked.has(schema)) return undefined;
  if (schema instanceof z.ZodString) return { k: 'str' };
  if (schema instanceof z.ZodBoolean) return { k: 'bool' };
  if (schema instanceof z.ZodLiteral) {
    const v: unknown = schema._def.value;
    return v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? { k: 'lit', v } : undefined;
  }
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable) {
    const inner = describeSchema(schema._def.innerType as z.ZodTypeAny);
    return inner ? { k: schema instanceof z.ZodOptional ? 'opt' : 'null', inner } : undefined;
  }
  if (schema instanceof z.ZodArray) {
    const item = describeSchema(schema._def.type as z.ZodTypeAny);
    return item ? { k: 'arr', item } : undefined;
  }
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, z.ZodTypeAny>;
    const keys = Object.keys(shape);
    const values: SchemaSpec[] = [];
    for (const key of keys) {
      const v = describeSchema(shape[key]!);
      if (!v) return undefined;
      values.push(v);
    }
    return { k: 'obj', keys, values };
  }
  return undefined;
}
