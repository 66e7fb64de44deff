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

/** One option of a `schedbrain simulate` command line. */
export type FlagSpec =
  | { readonly type: 'string' }
  /** Repeatable; each value split at commas and appended (`--policy a,b --policy c`). */
  | { readonly type: 'list' }
  /** Repeatable; each value appended as given (`--set k=v`). */
  | { readonly type: 'repeat' }
  | { readonly type: 'bool' }
  | { readonly type: 'number'; readonly integer?: boolean; readonly min?: number }
  | { readonly type: 'choice'; readonly values: readonly string[] };

export type FlagValue = string | string[] | boolean | number;

/**
 * The `simulate` commands' one flag reader: `--flag value` or `--flag=value`, `-h`/`--help`; an
 * unknown argument, a missing value or a number out of range is a UsageError naming the flag.
 * Values may start with `-` (a negative number must reach its range check, not pass as a flag).
 */
export function readFlags(argv: readonly string[], spec: Readonly<Record<string, FlagSpec>>): { values: Record<string, FlagValue>; help: boolean } {
  const values: Record<string, FlagValue> = {};
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    if (raw === '-h' || raw === '--help') {
      help = true;
      continue;
    }
    const eq = raw.startsWith('--') ? raw.indexOf('=') : -1;
    const flag = eq > 0 ? raw.slice(0, eq) : raw;
    const s = flag.startsWith('--') ? spec[flag.slice(2)] : undefined;
    if (!s) throw new UsageError(`unknown argument ${raw}`);
    const name = flag.slice(2);
    if (s.type === 'bool') {
      values[name] = true;
      continue;
    }
    const v = eq > 0 ? raw.slice(eq + 1) : argv[++i];
    if (v === undefined) throw new UsageError(`${flag} needs a value`);
    switch (s.type) {
      case 'string':
        values[name] = v;
        break;
      case 'list':
        values[name] = [
          ...((values[name] as string[] | undefined) ?? []),
          ...v
            .split(',')
            .map((x) => x.trim())
            .filter(Boolean),
        ];
        break;
      case 'repeat':
        values[name] = [...((values[name] as string[] | undefined) ?? []), v];
        break;
      case 'choice':
        if (!s.values.includes(v)) throw new UsageError(`${flag}: expected ${s.values.join(' or ')}, got ${v}`);
        values[name] = v;
        break;
      case 'number': {
        const n = Number(v);
        const what = s.integer ? 'an integer' : 'a number';
        if (v.trim() === '' || !Number.isFinite(n) || (s.integer && !Number.isInteger(n)) || (s.min !== undefined && n < s.min)) {
          const range = s.min === undefined ? '' : s.min === Number.MIN_VALUE ? ' > 0' : ` ≥ ${s.min}`;
          throw new UsageError(`${flag}: expected ${what}${range}, got ${v}`);
        }
        values[name] = n;
        break;
      }
    }
  }
  return { values, help };
}

/**
 * A duration flag in milliseconds that replaces a deprecated one in another unit (`msPerUnit` ms
 * each): its value, or the old flag's converted with the notice to print; both given is a UsageError.
 */
export function msFlag(
  msFlagName: string,
  ms: number | undefined,
  oldFlag: string,
  old: number | undefined,
  unit: string,
  msPerUnit: number,
): { ms?: number; notice?: string } {
  if (old === undefined) return { ms };
  if (ms !== undefined) throw new UsageError(`--${oldFlag} (${unit}) is replaced by --${msFlagName}, which is given too: give only --${msFlagName}`);
  const converted = old * msPerUnit;
  return { ms: converted, notice: `--${oldFlag} (${unit}) is deprecated: read as --${msFlagName} ${converted}; use --${msFlagName}` };
}

/**
 * The short/long cutoff of `--cutoff-ms`, or of the deprecated `--cutoff` (seconds) converted,
 * with the notice to print; both given is a UsageError.
 */
export function cutoffMsFlag(cutoffMs: number | undefined, cutoffS: number | undefined): { cutoffMs?: number; notice?: string } {
  const { ms, notice } = msFlag('cutoff-ms', cutoffMs, 'cutoff', cutoffS, 'seconds', 1000);
  return { cutoffMs: ms, notice };
}
