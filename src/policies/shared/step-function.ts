/**
 * Units reserved over time as a run-length step function — a sorted list of change points, each
 * with the units reserved from it to the next — rather than one cell per second (like YARN's
 * RLESparseResourceAllocation). DARSS's reservation file and the Rayon baseline's plan are both
 * one: a 30-day ledger of a busy cluster has as many entries as bookings start and end, not 2.6
 * million.
 *
 * Plain arrays only, so a step function is its own JSON form (policy state, store).
 */

/** `units[i]` units are reserved over [times[i], times[i+1]); after the last point, `units` at it. */
export interface StepFunction {
  times: number[];
  units: number[];
}

/** Floating-point dust below this is zero (units). */
const EPS = 1e-9;

export function emptySteps(): StepFunction {
  return { times: [], units: [] };
}

export function copySteps(f: StepFunction): StepFunction {
  return { times: f.times.slice(), units: f.units.slice() };
}

/** Index of the last change point at or before `t` (-1: before the first, where the value is 0). */
function indexAt(f: StepFunction, t: number): number {
  let lo = 0;
  let hi = f.times.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (f.times[mid] <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export function valueAt(f: StepFunction, t: number): number {
  const i = indexAt(f, t);
  return i < 0 ? 0 : f.units[i];
}

/** Makes `t` a change point (no change in value) and returns its index. */
function splitAt(f: StepFunction, t: number): number {
  const i = indexAt(f, t);
  if (i >= 0 && f.times[i] === t) return i;
  const v = i < 0 ? 0 : f.units[i];
  f.times.splice(i + 1, 0, t);
  f.units.splice(i + 1, 0, v);
  return i + 1;
}

/** Adds `units` over [from, to) (negative to release). */
export function addSteps(f: StepFunction, from: number, to: number, units: number): void {
  if (!(to > from) || units === 0) return;
  const a = splitAt(f, from);
  const b = splitAt(f, to);
  for (let i = a; i < b; i++) {
    const v = f.units[i] + units;
    f.units[i] = Math.abs(v) < EPS ? 0 : v;
  }
  mergeAround(f, Math.max(0, a - 1), Math.min(f.times.length - 1, b + 1));
}

/** Drops change points that do not change the value, in [lo, hi] (and a leading zero). */
function mergeAround(f: StepFunction, lo: number, hi: number): void {
  let w = lo;
  for (let r = lo; r <= hi && r < f.times.length; r++) {
    const prev = w > 0 ? f.units[w - 1] : 0;
    if (f.units[r] === prev && (w > 0 || f.units[r] === 0)) continue;
    f.times[w] = f.times[r];
    f.units[w] = f.units[r];
    w++;
  }
  const removed = Math.min(hi, f.times.length - 1) + 1 - w;
  if (removed > 0) {
    f.times.splice(w, removed);
    f.units.splice(w, removed);
  }
}

/** ∫ f over [from, to), unit·ms. */
export function integral(f: StepFunction, from: number, to: number): number {
  let s = 0;
  forEachSegment(f, from, to, (a, b, v) => {
    s += v * (b - a);
  });
  return s;
}

/** Calls `fn(a, b, v)` for the pieces of [from, to) on which f is constant, in time order. */
export function forEachSegment(f: StepFunction, from: number, to: number, fn: (a: number, b: number, v: number) => void): void {
  if (!(to > from)) return;
  let i = indexAt(f, from);
  let a = from;
  while (a < to) {
    const v = i < 0 ? 0 : f.units[i];
    const next = i + 1 < f.times.length ? Math.min(f.times[i + 1], to) : to;
    fn(a, next, v);
    a = next;
    i++;
  }
}

/** The change points in (from, to), in time order. */
export function changePointsIn(f: StepFunction, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = indexAt(f, from) + 1; i < f.times.length && f.times[i] < to; i++) if (f.times[i] > from) out.push(f.times[i]);
  return out;
}

/** Largest value of f on [from, to). */
export function maxOn(f: StepFunction, from: number, to: number): number {
  let m = 0;
  forEachSegment(f, from, to, (_a, _b, v) => {
    if (v > m) m = v;
  });
  return m;
}

/** Forgets the past: the value before `t` no longer matters (keeps the ledger small). */
export function dropBefore(f: StepFunction, t: number): void {
  const i = indexAt(f, t);
  if (i <= 0) return;
  f.times.splice(0, i);
  f.units.splice(0, i);
  f.times[0] = Math.max(f.times[0], t);
}
