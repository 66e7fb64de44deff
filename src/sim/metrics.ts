/**
 * Simulation metrics: job completion time (finish − arrival) and slowdown (completion time over
 * the job's run time alone), percentiles, the short/long split, utilisation.
 *
 * Percentiles use linear interpolation between closest ranks (numpy's default): for sorted
 * x[0..n-1], p-th percentile = x[h] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]) with h = (n − 1)·p/100.
 */
import type { JobRecord } from './engine.js';

export interface Dist {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly mean: number;
  readonly max: number;
}

/** Per-trace short/long cutoffs on mean task duration (seconds), from the Eagle/Kairos/Pigeon papers. */
export const TRACE_CUTOFFS_S: Readonly<Record<string, number>> = {
  yahoo: 90.5811,
  cloudera: 272.783,
  google: 1129.532,
  facebook: 76.5951,
};

/** The default cutoff for a trace file name (by family), if any. */
export function cutoffForTrace(name: string): number | undefined {
  const n = name.toLowerCase();
  for (const [k, v] of Object.entries(TRACE_CUTOFFS_S)) if (n.includes(k)) return v;
  return undefined;
}

export function percentile(sorted: readonly number[], p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (n === 1) return sorted[0];
  const h = ((n - 1) * p) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

export function dist(values: readonly number[]): Dist {
  const s = Float64Array.from(values).sort();
  const arr = Array.from(s);
  let sum = 0;
  for (const v of arr) sum += v;
  const n = arr.length;
  return {
    count: n,
    p50: percentile(arr, 50),
    p90: percentile(arr, 90),
    p99: percentile(arr, 99),
    mean: n ? sum / n : NaN,
    max: n ? arr[n - 1] : NaN,
  };
}

export interface JobMetric {
  readonly appId: string;
  readonly name: string;
  readonly arrivalS: number;
  readonly finishS: number;
  readonly jctS: number;
  readonly slowdown: number;
  readonly meanTaskS: number;
  readonly short: boolean;
}

export interface Metrics {
  readonly jobs: number;
  readonly killed: number;
  readonly unfinished: number;
  /** Job completion time, seconds. */
  readonly jct: Dist;
  readonly slowdown: Dist;
  /** Short jobs (mean task duration below the cutoff, or tagged short). */
  readonly short: Dist & { readonly slowdown: Dist };
  readonly long: Dist & { readonly slowdown: Dist };
  /** Short/long cutoff on mean task duration, ms (none: every job short unless tagged). */
  readonly cutoffMs?: number;
  readonly makespanS: number;
}

/**
 * Summarises finished jobs. A job is short when its workload marks it so, else when its mean
 * task duration is below `cutoffMs`; with neither, every job counts as short. Killed jobs are
 * counted apart and excluded from the distributions.
 */
export function jobMetrics(records: readonly (JobRecord | undefined)[], cutoffMs?: number, forceCutoff = false): { metrics: Metrics; perJob: JobMetric[] } {
  const perJob: JobMetric[] = [];
  let killed = 0;
  let unfinished = 0;
  let first = Infinity;
  let last = 0;
  for (const r of records) {
    if (!r || r.finishMs === undefined) {
      unfinished++;
      continue;
    }
    if (r.killed) {
      killed++;
      continue;
    }
    const jct = (r.finishMs - r.arrivalMs) / 1000;
    const short = !forceCutoff && r.jobClass ? r.jobClass === 'short' : cutoffMs === undefined ? true : r.meanTaskMs < cutoffMs;
    first = Math.min(first, r.arrivalMs);
    last = Math.max(last, r.finishMs);
    perJob.push({
      appId: r.appId,
      name: r.name,
      arrivalS: r.arrivalMs / 1000,
      finishS: r.finishMs / 1000,
      jctS: jct,
      slowdown: r.idealMs > 0 ? (r.finishMs - r.arrivalMs) / r.idealMs : 1,
      meanTaskS: r.meanTaskMs / 1000,
      short,
    });
  }
  const part = (xs: JobMetric[]): Dist & { slowdown: Dist } => ({ ...dist(xs.map((j) => j.jctS)), slowdown: dist(xs.map((j) => j.slowdown)) });
  const metrics: Metrics = {
    jobs: perJob.length,
    killed,
    unfinished,
    jct: dist(perJob.map((j) => j.jctS)),
    slowdown: dist(perJob.map((j) => j.slowdown)),
    short: part(perJob.filter((j) => j.short)),
    long: part(perJob.filter((j) => !j.short)),
    cutoffMs,
    makespanS: perJob.length ? (last - first) / 1000 : 0,
  };
  return { metrics, perJob };
}

/** Empirical CDF points (x sorted, y = i/n). */
export function cdf(values: readonly number[]): { x: number[]; y: number[] } {
  const x = Array.from(Float64Array.from(values).sort());
  return { x, y: x.map((_, i) => (i + 1) / x.length) };
}

export interface CdfSeries {
  readonly label: string;
  readonly values: readonly number[];
}

export interface CdfPlotOptions {
  readonly title?: string;
  readonly xLabel?: string;
  readonly logX?: boolean;
  readonly width?: number;
  readonly height?: number;
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function niceTicks(lo: number, hi: number, n: number): number[] {
  const span = hi - lo || 1;
  const raw = span / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9 * span; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

const fmt = (v: number): string => (Math.abs(v) >= 1e6 || (Math.abs(v) < 1e-2 && v !== 0) ? v.toExponential(0) : String(Number(v.toPrecision(4))));

/** A CDF plot (one step line per series) as a self-contained SVG document. */
export function cdfSvg(series: readonly CdfSeries[], o: CdfPlotOptions = {}): string {
  const W = o.width ?? 640;
  const H = o.height ?? 420;
  const m = { l: 60, r: 20, t: o.title ? 36 : 16, b: 50 };
  const pw = W - m.l - m.r;
  const ph = H - m.t - m.b;
  const all = series.flatMap((s) => [...s.values]).filter((v) => Number.isFinite(v) && (!o.logX || v > 0));
  let lo = all.length ? Math.min(...all) : 0;
  let hi = all.length ? Math.max(...all) : 1;
  if (o.logX) {
    lo = 10 ** Math.floor(Math.log10(lo));
    hi = 10 ** Math.ceil(Math.log10(hi));
    if (hi <= lo) hi = lo * 10;
  } else {
    lo = Math.min(0, lo);
    if (hi <= lo) hi = lo + 1;
  }
  const sx = (v: number): number => m.l + (o.logX ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v - lo) / (hi - lo)) * pw;
  const sy = (p: number): number => m.t + (1 - p) * ph;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  if (o.title) parts.push(`<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${esc(o.title)}</text>`);
  // Grid and ticks.
  const xt = o.logX ? Array.from({ length: Math.round(Math.log10(hi / lo)) + 1 }, (_, i) => lo * 10 ** i) : niceTicks(lo, hi, 6);
  for (const v of xt) {
    const x = sx(v).toFixed(1);
    parts.push(`<line x1="${x}" y1="${m.t}" x2="${x}" y2="${m.t + ph}" stroke="#ddd"/>`);
    parts.push(`<text x="${x}" y="${m.t + ph + 16}" text-anchor="middle">${fmt(v)}</text>`);
  }
  for (let k = 0; k <= 5; k++) {
    const p = k / 5;
    const y = sy(p).toFixed(1);
    parts.push(`<line x1="${m.l}" y1="${y}" x2="${m.l + pw}" y2="${y}" stroke="#ddd"/>`);
    parts.push(`<text x="${m.l - 6}" y="${(sy(p) + 4).toFixed(1)}" text-anchor="end">${p.toFixed(1)}</text>`);
  }
  parts.push(`<rect x="${m.l}" y="${m.t}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  parts.push(
    `<text x="${m.l + pw / 2}" y="${H - 10}" text-anchor="middle">${esc(o.xLabel ?? 'job completion time (s)')}${o.logX ? ' (log scale)' : ''}</text>`,
  );
  parts.push(`<text transform="translate(16 ${m.t + ph / 2}) rotate(-90)" text-anchor="middle">CDF</text>`);
  series.forEach((s, i) => {
    const { x, y } = cdf(s.values.filter((v) => Number.isFinite(v) && (!o.logX || v > 0)));
    if (!x.length) return;
    const pts: string[] = [`${sx(x[0]).toFixed(1)},${sy(0).toFixed(1)}`];
    let prev = 0;
    for (let k = 0; k < x.length; k++) {
      const px = sx(x[k]).toFixed(1);
      pts.push(`${px},${sy(prev).toFixed(1)}`, `${px},${sy(y[k]).toFixed(1)}`);
      prev = y[k];
    }
    const c = COLOURS[i % COLOURS.length];
    parts.push(`<polyline fill="none" stroke="${c}" stroke-width="1.8" points="${pts.join(' ')}"/>`);
    const ly = m.t + 14 + i * 16;
    parts.push(`<line x1="${m.l + pw - 120}" y1="${ly - 4}" x2="${m.l + pw - 100}" y2="${ly - 4}" stroke="${c}" stroke-width="2"/>`);
    parts.push(`<text x="${m.l + pw - 95}" y="${ly}">${esc(s.label)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
