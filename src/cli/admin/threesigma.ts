/** `schedbrain threesigma slos|predict|plan|history`: 3Sigma's SLO classes, predictor, plan and history through the admin API. */
import { ok, type Schemas } from '../../client/index.js';
import type { AdminContext } from './index.js';
import { fields, isoTime, json, readDocument, shortDuration, table, UsageError } from './output.js';

type SloClass = Schemas['ThreeSigmaSloClass'];

const matchText = (m: SloClass['match']) =>
  Object.entries(m)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
const deadlineText = (c: SloClass) => (c.deadlineMs !== undefined ? `submit + ${shortDuration(c.deadlineMs)}` : `submit + ${1 + (c.slack ?? 0)} × predicted`);
const classRows = (cs: readonly SloClass[]) =>
  cs.map((c) => [c.id, matchText(c.match), deadlineText(c), c.utility === undefined ? 'default' : String(c.utility)]);
const CLASS_HEADER = ['ID', 'MATCH', 'DEADLINE', 'UTILITY'];

async function slos(c: AdminContext, verb: string, rest: readonly string[]): Promise<number> {
  const [arg, extra] = rest;
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const idPath = () => {
    if (!arg) throw new UsageError(`threesigma slos ${verb} needs the class ID`);
    return { params: { path: { id: arg } } };
  };
  switch (verb) {
    case 'list': {
      const r = await ok(c.client.GET('/v1/threesigma/slos'));
      if (c.json) c.io.out(json(r));
      else {
        if (!r.running) c.io.out('(the threesigma policy is not running: the classes apply once it runs)');
        c.io.out(r.classes.length ? table(CLASS_HEADER, classRows(r.classes), c.io.columns) : 'no SLO classes');
      }
      return 0;
    }
    case 'get': {
      const r = await ok(c.client.GET('/v1/threesigma/slos/{id}', idPath()));
      c.io.out(c.json ? json(r) : table(CLASS_HEADER, classRows([r]), c.io.columns));
      return 0;
    }
    case 'add': {
      if (!arg) throw new UsageError('threesigma slos add needs the class: a JSON or YAML file, inline JSON, or - for standard input');
      const doc = readDocument(arg, 'SLO class');
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
        throw new UsageError('SLO class: expected an object { id, match, deadlineMs | slack, utility? }');
      const r = await ok(c.client.POST('/v1/threesigma/slos', { body: doc as SloClass }));
      c.io.out(
        c.json
          ? json(r)
          : `SLO class ${r.class.id} added: ${matchText(r.class.match)} → deadline ${deadlineText(r.class)}${r.running ? '' : ' (applies once threesigma runs)'}`,
      );
      return 0;
    }
    case 'delete':
    case 'rm': {
      await ok(c.client.DELETE('/v1/threesigma/slos/{id}', idPath()));
      c.io.out(c.json ? json({ deleted: arg }) : `SLO class ${arg} removed (applications already seen keep their deadline)`);
      return 0;
    }
    default:
      throw new UsageError(`threesigma slos: unknown action "${verb}" (list, get, add, rm)`);
  }
}

const nmaeText = (x: number | null) => (x === null ? '-' : x.toFixed(3));

async function predict(c: AdminContext, rest: readonly string[]): Promise<number> {
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const appId = typeof c.flags.app === 'string' ? c.flags.app : undefined;
  const features = typeof c.flags.features === 'string' ? c.flags.features : undefined;
  if ((appId === undefined) === (features === undefined)) throw new UsageError('threesigma predict needs one of --app ID and --features k=v,...');
  const r = await ok(c.client.GET('/v1/threesigma/predict', { params: { query: appId !== undefined ? { app: appId } : { features: features! } } }));
  if (c.json) {
    c.io.out(json(r));
    return 0;
  }
  const x = r.prediction;
  c.io.out(
    fields([
      ['job', `${r.job.name} (user ${r.job.user}, queue ${r.job.queue})`],
      [
        'expert',
        x ? `${x.feature}/${x.estimator}${x.fallback ? ' (fallback: every job)' : ''}, ${x.runs} runs, NMAE ${nmaeText(x.nmae)}` : 'nothing learned yet',
      ],
      ['point estimate', x ? shortDuration(x.pointEstimateMs) : '-'],
      ['SLO class', r.sloClass ?? '-'],
      ...(r.app
        ? [
            [
              'application',
              `${r.app.id}: ${r.app.kind ?? 'not seen by the policy yet'}${r.app.deadlineMs !== null ? `, deadline ${isoTime(r.app.deadlineMs)}` : ''}`,
            ] as const,
            [
              'plan uses',
              r.app.planned ? `${r.app.planned.feature}/${r.app.planned.estimator}, point ${shortDuration(r.app.planned.pointEstimateMs)}` : '-',
            ] as const,
          ]
        : []),
    ]),
  );
  if (r.histogram) {
    c.io.out(`\nhistogram of ${r.histogram.feature} (${r.histogram.runs} runs, ${shortDuration(r.histogram.minMs)} to ${shortDuration(r.histogram.maxMs)}):`);
    c.io.out(
      table(
        ['RUNTIME', 'RUNS'],
        r.histogram.bins.map((b) => [shortDuration(Math.round(b.centroidMs)), String(b.count)]),
        c.io.columns,
      ),
    );
  }
  c.io.out('');
  c.io.out(
    table(
      ['FEATURE', 'ESTIMATOR', 'NMAE', 'RUNS', 'SCORED', 'ESTIMATE', ''],
      r.experts.map((e) => [
        e.feature,
        e.estimator,
        nmaeText(e.nmae),
        String(e.runs),
        String(e.scoredRuns),
        shortDuration(Math.round(e.estimateMs)),
        e.chosen ? 'chosen' : '',
      ]),
      c.io.columns,
    ),
  );
  if (r.expertsTruncated) c.io.out('(more experts than shown: use --json)');
  return 0;
}

async function plan(c: AdminContext, rest: readonly string[]): Promise<number> {
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const r = await ok(c.client.GET('/v1/threesigma/plan'));
  if (c.json) c.io.out(json(r));
  else if (!r.plan) c.io.out('no plan yet (the policy has not run a cycle)');
  else {
    const p = r.plan;
    c.io.out(
      fields([
        ['at', isoTime(p.atMs)],
        ['solver', `${p.solver} (${p.status})`],
        ['MILP', `${p.columns} columns × ${p.rows} rows, ${p.nonzeros} nonzeros`],
        ['objective', `${p.objective.toFixed(3)}${p.mipGap !== null ? `, gap ${(p.mipGap * 100).toFixed(2)} %` : ''}`],
        ['time to plan', p.planMs !== null ? `${p.planMs.toFixed(1)} ms` : '-'],
        ['pending', `${p.pending}: ${p.startNow} start now, ${p.deferred} deferred, ${p.withoutUtility} without utility`],
        ['running', `${p.running}, ${p.preempted} preempted`],
      ]),
    );
  }
  return 0;
}

async function historyCommand(c: AdminContext, verb: string, rest: readonly string[]): Promise<number> {
  const [arg, extra] = rest;
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  if (verb === 'import') {
    if (!arg) throw new UsageError('threesigma history import needs the records: a JSON or YAML file (an array of records, or { records }), inline JSON, or -');
    const doc = readDocument(arg, 'history');
    const records = Array.isArray(doc) ? doc : (doc as { records?: unknown } | null)?.records;
    if (!Array.isArray(records)) throw new UsageError('history: expected an array of history records, or an object { records: [...] }');
    const r = await ok(
      c.client.POST('/v1/threesigma/history', { body: { records: records as Schemas['HistoryRecord'][], ...(c.flags['no-learn'] ? { learn: false } : {}) } }),
    );
    c.io.out(c.json ? json(r) : `${r.received} records: ${r.stored} stored, ${r.duplicates} already known; ${r.note}`);
    return 0;
  }
  if (verb === 'pull') {
    if (arg !== undefined) throw new UsageError(`unexpected argument "${arg}"`);
    const source = typeof c.flags.source === 'string' ? c.flags.source : 'rm';
    if (source !== 'rm') throw new UsageError(`--source: one of rm, got "${source}"`);
    const r = await ok(c.client.POST('/v1/threesigma/history/pull', { params: { query: { source } } }));
    c.io.out(
      c.json
        ? json(r)
        : `pulled from ${r.source}: ${r.listed} ended applications listed, ${r.added} new, ${r.skipped} skipped${r.learned ? `; the predictor learned ${r.learned} runtimes` : ''}`,
    );
    return 0;
  }
  throw new UsageError(`threesigma history: unknown action "${verb}" (import, pull)`);
}

export async function threesigma(c: AdminContext, args: readonly string[]): Promise<number> {
  const [resource, verb, ...rest] = args;
  switch (resource) {
    case 'slos':
      return slos(c, verb ?? 'list', rest);
    case 'predict':
      return predict(c, verb === undefined ? [] : [verb, ...rest]);
    case 'plan':
      return plan(c, verb === undefined ? [] : [verb, ...rest]);
    case 'history':
      if (verb === undefined) throw new UsageError('threesigma history needs an action (import, pull)');
      return historyCommand(c, verb, rest);
    default:
      throw new UsageError(`threesigma: unknown resource "${resource ?? ''}" (slos, predict, plan, history)`);
  }
}
