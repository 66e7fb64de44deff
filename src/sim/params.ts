/**
 * `--set key=value` pairs into policy params, for `schedbrain simulate` and its BoPF scenarios
 * (apart from cli.ts so that the scenario command imports it without an import cycle).
 */
import { z } from 'zod';
import type { AnyPolicy } from '../core/policy.js';

export class UsageError extends Error {}

/** `"3"` → 3, `"true"` → true, anything else stays a string. */
export function parseValue(v: string): unknown {
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return v;
}

function objectShape(schema: z.ZodTypeAny): Record<string, z.ZodTypeAny> | undefined {
  let s: z.ZodTypeAny = schema;
  for (;;) {
    if (s instanceof z.ZodObject) return s.shape as Record<string, z.ZodTypeAny>;
    if (s instanceof z.ZodEffects) s = s.innerType();
    else if (s instanceof z.ZodDefault || s instanceof z.ZodOptional || s instanceof z.ZodNullable) s = s._def.innerType;
    else return undefined;
  }
}

/** Turns `--set key=value` pairs into policy params, validated by the policy's schema. */
export function buildParams(policy: AnyPolicy, sets: readonly string[]): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  const shape = objectShape(policy.paramsSchema as z.ZodTypeAny);
  for (const s of sets) {
    const eq = s.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set expects key=value, got ${s}`);
    const key = s.slice(0, eq).trim();
    const path = key.split('.');
    if (shape && !(path[0] in shape)) {
      throw new UsageError(`--set ${key}: policy ${policy.name} has no parameter ${path[0]} (known: ${Object.keys(shape).sort().join(', ') || 'none'})`);
    }
    let o = params;
    for (const p of path.slice(0, -1)) o = (o[p] ??= {}) as Record<string, unknown>;
    o[path[path.length - 1]] = parseValue(s.slice(eq + 1));
  }
  const r = policy.paramsSchema.safeParse(params);
  if (!r.success) {
    const msg = r.error.issues.map((i) => `--set ${i.path.join('.') || '(params)'}: ${i.message}`).join('; ');
    throw new UsageError(`invalid parameters for policy ${policy.name}: ${msg}`);
  }
  return params;
}
