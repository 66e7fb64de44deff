/**
 * One self-contained HTML page comparing policies replayed on the same workload: a side-by-side
 * table of the run summaries and the CDFs of job completion time and slowdown as inline SVG
 * (src/sim/metrics.ts cdfSvg). No script, no stylesheet or font from elsewhere: the file opens
 * offline and can be mailed as it is.
 */
import { cdfSvg, type Dist } from './metrics.js';
import type { SimulateResult } from './simulate.js';

export interface ReportOptions {
  readonly title?: string;
  /**
   * Job completion times as they were on the real cluster (a recorded trace), s: drawn with the
   * replays as a reference.
   */
  readonly recordedJctS?: readonly number[];
  /** Lines shown under the title (what was replayed, from where). */
  readonly notes?: readonly string[];
  /** Plot the x axes on a log scale. */
  readonly logX?: boolean;
  /** When the report was made (shown at the bottom); default now. */
  readonly generatedAt?: Date;
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const f1 = (x: number): string => (Number.isFinite(x) ? x.toFixed(1) : '–');
const f2 = (x: number): string => (Number.isFinite(x) ? x.toFixed(2) : '–');
const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '–');

interface Row {
  readonly label: string;
  readonly cell: (r: SimulateResult) => string;
  /** Lower is better: the best cell of the row is marked. */
  readonly lowerBetter?: (r: SimulateResult) => number;
}

const distRows = (name: string, pick: (r: SimulateResult) => Dist, fmt: (x: number) => string): Row[] =>
  (['p50', 'p90', 'p99', 'mean'] as const).map((k) => ({ label: `${name} ${k}`, cell: (r) => fmt(pick(r)[k]), lowerBetter: (r) => pick(r)[k] }));

const ROWS: readonly Row[] = [
  { label: 'jobs finished', cell: (r) => String(r.jobs) },
  { label: 'jobs killed', cell: (r) => String(r.killed) },
  { label: 'jobs unfinished', cell: (r) => String(r.unfinished) },
  { label: 'tasks', cell: (r) => String(r.tasks) },
  { label: 'makespan (s)', cell: (r) => f1(r.makespanS), lowerBetter: (r) => r.makespanS },
  ...distRows('JCT (s)', (r) => r.jct, f1),
  ...distRows('slowdown', (r) => r.slowdown, f2),
  { label: 'short jobs: JCT p50 (s)', cell: (r) => f1(r.short.p50), lowerBetter: (r) => r.short.p50 },
  { label: 'long jobs: JCT p50 (s)', cell: (r) => f1(r.long.p50), lowerBetter: (r) => r.long.p50 },
  { label: 'CPU utilisation', cell: (r) => pct(r.utilisation.cpu) },
  { label: 'actions applied / failed', cell: (r) => `${r.actions.applied} / ${r.actions.failed}` },
];

function table(results: readonly SimulateResult[]): string {
  const head = `<tr><th>metric</th>${results.map((r) => `<th>${escapeHtml(r.policy)}</th>`).join('')}</tr>`;
  const body = ROWS.map((row) => {
    let best = -1;
    if (row.lowerBetter && results.length > 1) {
      const vs = results.map(row.lowerBetter);
      const min = Math.min(...vs.filter(Number.isFinite));
      // Marked only when one policy alone is best.
      if (Number.isFinite(min) && vs.filter((v) => v === min).length === 1) best = vs.indexOf(min);
    }
    const cells = results.map((r, i) => `<td${i === best ? ' class="best"' : ''}>${escapeHtml(row.cell(r))}</td>`).join('');
    return `<tr><th scope="row">${escapeHtml(row.label)}</th>${cells}</tr>`;
  }).join('\n');
  return `<table>\n<thead>${head}</thead>\n<tbody>\n${body}\n</tbody>\n</table>`;
}

/** An SVG document's root element, for inlining (the XML declaration, if any, dropped). */
function inlineSvg(svg: string): string {
  return svg.replace(/^<\?xml[^>]*>\s*/, '').trim();
}

export function simulationReportHtml(results: readonly SimulateResult[], o: ReportOptions = {}): string {
  if (results.length === 0) throw new Error('a report needs at least one run');
  const workload = results[0].workload;
  const title = o.title ?? `${workload}: ${results.map((r) => r.policy).join(', ')}`;
  const reference = o.recordedJctS?.length ? [{ label: 'recorded cluster', values: o.recordedJctS }] : [];
  const jctPlot = cdfSvg([...results.map((r) => ({ label: r.policy, values: r.perJob.map((j) => j.jctS) })), ...reference], {
    title: 'Job completion time',
    xLabel: 'job completion time (s)',
    logX: o.logX,
  });
  const slowdownPlot = cdfSvg(
    results.map((r) => ({ label: r.policy, values: r.perJob.map((j) => j.slowdown) })),
    { title: 'Slowdown', xLabel: 'slowdown (completion time over run time alone)', logX: o.logX },
  );
  const first = results[0];
  const cluster = `${first.nodes} nodes × ${first.coresPerNode} cores (first node's size), seed ${first.seed}`;
  const notes = [`Workload ${workload}; ${cluster}.`, ...(o.notes ?? [])];
  const generated = (o.generatedAt ?? new Date()).toISOString();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.7em; text-align: right; }
thead th { background: #f2f2f2; }
tbody th { text-align: left; font-weight: normal; }
td.best { background: #e3f4e3; font-weight: bold; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; }
footer { color: #777; font-size: 0.85em; margin-top: 2em; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
${notes.map((n) => `<p>${escapeHtml(n)}</p>`).join('\n')}
<h2>Side by side</h2>
<p>Lower is better for times and slowdowns; the best of a row is marked when one policy alone has it.</p>
${table(results)}
<h2>Distributions</h2>
<div class="plots">
${inlineSvg(jctPlot)}
${inlineSvg(slowdownPlot)}
</div>
<footer>schedbrain simulate, ${escapeHtml(generated)}</footer>
</body>
</html>
`;
}
