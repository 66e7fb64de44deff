/**
 * Resource vectors. YARN schedules two resources everywhere we care about: memory (MB) and
 * virtual cores. Units are in the field names so a number never travels without its unit.
 */
export interface Resources {
  readonly memoryMB: number;
  readonly vcores: number;
}

export const ZERO: Resources = Object.freeze({ memoryMB: 0, vcores: 0 });

export function res(memoryMB: number, vcores: number): Resources {
  return { memoryMB, vcores };
}

export function add(a: Resources, b: Resources): Resources {
  return { memoryMB: a.memoryMB + b.memoryMB, vcores: a.vcores + b.vcores };
}

export function sub(a: Resources, b: Resources): Resources {
  return { memoryMB: a.memoryMB - b.memoryMB, vcores: a.vcores - b.vcores };
}

export function scale(a: Resources, k: number): Resources {
  return { memoryMB: a.memoryMB * k, vcores: a.vcores * k };
}

/** True when `a` fits inside `b` on every resource. */
export function fits(a: Resources, b: Resources): boolean {
  return a.memoryMB <= b.memoryMB && a.vcores <= b.vcores;
}

export function equals(a: Resources, b: Resources): boolean {
  return a.memoryMB === b.memoryMB && a.vcores === b.vcores;
}

export function max(a: Resources, b: Resources): Resources {
  return { memoryMB: Math.max(a.memoryMB, b.memoryMB), vcores: Math.max(a.vcores, b.vcores) };
}

export function min(a: Resources, b: Resources): Resources {
  return { memoryMB: Math.min(a.memoryMB, b.memoryMB), vcores: Math.min(a.vcores, b.vcores) };
}

/** Dominant share of `a` against `total` (DRF): the largest per-resource fraction. */
export function dominantShare(a: Resources, total: Resources): number {
  const m = total.memoryMB > 0 ? a.memoryMB / total.memoryMB : 0;
  const v = total.vcores > 0 ? a.vcores / total.vcores : 0;
  return Math.max(m, v);
}

export function sum(items: Iterable<Resources>): Resources {
  let memoryMB = 0;
  let vcores = 0;
  for (const r of items) {
    memoryMB += r.memoryMB;
    vcores += r.vcores;
  }
  return { memoryMB, vcores };
}

export function format(r: Resources): string {
  return `<memory:${r.memoryMB}MB, vCores:${r.vcores}>`;
}
