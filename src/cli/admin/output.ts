/** What the operator commands print and read: tables, times, documents given inline or as files. */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { SchedbrainError } from '../../core/errors.js';

/** A mistake in the command line: exit code 2, with the command's usage. */
export class UsageError extends SchedbrainError {}

export interface AdminIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Terminal width when stdout is a terminal: long last columns are cut to fit. */
  readonly columns?: number;
}

/** Columns padded to their widest cell; the last column is not padded, and cut to `columns` when given. */
export function table(header: readonly string[], rows: readonly (readonly string[])[], columns?: number): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) => {
    const text = cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
    return columns && text.length > columns ? `${text.slice(0, Math.max(0, columns - 1))}…` : text;
  };
  return [line(header), ...rows.map(line)].join('\n');
}

/** `key  value` lines, keys aligned. */
export function fields(pairs: readonly (readonly [string, string])[]): string {
  const w = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n');
}

/** Epoch ms as an ISO-8601 UTC time to the second. */
export function isoTime(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration such as `90s`, `15m`, `2h`, `1d`, or a number of milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new UsageError(`${flag}: expected a duration such as 500ms, 30s, 15m, 2h or 1d, got "${text}"`);
  return Math.round(Number(m[1]) * UNIT_MS[m[2] ?? 'ms']!);
}

/** A point in time: epoch milliseconds, an ISO-8601 date-time, or a duration back from now (`10m`). */
export function parseTime(text: string, flag: string, nowMs: number): number {
  if (/^\d+$/.test(text)) return Number(text);
  if (/^\d+(\.\d+)?(ms|s|m|h|d)$/.test(text)) return nowMs - parseDuration(text, flag);
  const t = Date.parse(text);
  if (!Number.isFinite(t))
    throw new UsageError(`${flag}: expected epoch milliseconds, an ISO-8601 date-time or a duration back from now (10m, 2h), got "${text}"`);
  return t;
}

/** A JSON or YAML document given inline (`{...}`), as a file name, or `-` for standard input. */
export function readDocument(arg: string, what: string): unknown {
  const inline = /^\s*[[{]/.test(arg);
  let text: string;
  if (inline) text = arg;
  else {
    try {
      text = readFileSync(arg === '-' ? 0 : arg, 'utf8');
    } catch (e) {
      throw new UsageError(
        `${what}: cannot read ${arg === '-' ? 'standard input' : arg}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
      );
    }
  }
  try {
    return parseYaml(text, { maxAliasCount: 100 }) as unknown;
  } catch (e) {
    throw new UsageError(`${what}: ${inline ? 'not valid JSON or YAML' : `${arg} is not valid JSON or YAML`}: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Milliseconds as the largest whole units that fit: `1h30m`, `45s`, `250ms`; negative with a minus. */
export function shortDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 0) return `-${shortDuration(-ms)}`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  let s = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (s >= size) {
      parts.push(`${Math.floor(s / size)}${unit}`);
      s %= size;
    }
  }
  if (s || !parts.length) parts.push(`${s}s`);
  return parts.slice(0, 2).join('');
}
