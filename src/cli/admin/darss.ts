/** `schedbrain darss requests|quota|ledger`: DARSS workflow requests through the admin API. */
import { ok, type Schemas } from '../../client/index.js';
import { JOB_TAG, REQUEST_TAG } from '../../core/rsl.js';
import type { AdminContext } from './index.js';
import { fields, isoTime, json, parseDuration, parseTime, readDocument, shortDuration, table, UsageError } from './output.js';

type Request = Schemas['DarssRequest'];

function requestRows(requests: readonly Request[]): string[][] {
  return requests.map((r) => [
    r.id,
    r.group,
    isoTime(r.deadlineMs),
    `${r.progress.jobsDone}/${r.progress.jobs}`,
    shortDuration(r.slackMs),
    r.noLongerFit ? `no longer fits (${r.noLongerFit.bookedUnits} booked > ${r.noLongerFit.limitUnits} units)` : '',
  ]);
}
const REQUEST_HEADER = ['ID', 'GROUP', 'DEADLINE', 'JOBS DONE', 'SLACK', 'NOTE'];

const jobsTable = (jobs: Request['jobs'], columns?: number) =>
  table(
    ['JOB', 'LATEST START', 'BOOKED FROM', 'DONE'],
    jobs.map((j) => [j.job, isoTime(j.latestStartMs), isoTime(j.bookedStartMs), j.done ? 'yes' : 'no']),
    columns,
  );

async function requests(c: AdminContext, verb: string, rest: readonly string[]): Promise<number> {
  const [arg, extra] = rest;
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const idPath = () => {
    if (!arg) throw new UsageError(`darss requests ${verb} needs the request ID`);
    return { params: { path: { id: arg } } };
  };
  switch (verb) {
    case 'list': {
      const r = await ok(c.client.GET('/v1/darss/requests', { params: { query: typeof c.flags.group === 'string' ? { group: c.flags.group } : {} } }));
      if (c.json) c.io.out(json(r));
      else if (!r.requests.length) c.io.out('no admitted requests');
      else c.io.out(table(REQUEST_HEADER, requestRows(r.requests), c.io.columns));
      return 0;
    }
    case 'get': {
      const r = await ok(c.client.GET('/v1/darss/requests/{id}', idPath()));
      if (c.json) c.io.out(json(r));
      else {
        c.io.out(
          fields([
            ['id', r.id],
            ['group', r.group],
            ['deadline', isoTime(r.deadlineMs)],
            ['admitted', isoTime(r.admittedAtMs)],
            ['slack', shortDuration(r.slackMs)],
            ['decision', `${r.decision.rule}: ${r.decision.reason}`],
          ]),
        );
        c.io.out(jobsTable(r.jobs, c.io.columns));
      }
      return 0;
    }
    case 'submit': {
      if (!arg) throw new UsageError('darss requests submit needs the workflow: a JSON or YAML file, inline JSON, or - for standard input');
      const doc = readDocument(arg, 'workflow');
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UsageError('workflow: expected an object with jobs (and a deadlineMs)');
      const r = await ok(c.client.POST('/v1/darss/requests', { body: doc as Schemas['DarssWorkflowInput'] }));
      if (c.json) c.io.out(json(r));
      else {
        c.io.out(`request ${r.id} admitted: ${r.decision.reason}`);
        c.io.out(
          table(
            ['JOB', 'LATEST START'],
            Object.entries(r.latestStarts).map(([job, t]) => [job, isoTime(t)]),
            c.io.columns,
          ),
        );
        c.io.out(`tag its YARN applications ${REQUEST_TAG}=${r.id} and ${JOB_TAG}=<job>`);
      }
      return 0;
    }
    case 'delete':
    case 'rm': {
      await ok(c.client.DELETE('/v1/darss/requests/{id}', idPath()));
      c.io.out(c.json ? json({ withdrawn: arg }) : `request ${arg} withdrawn; its bookings are released`);
      return 0;
    }
    default:
      throw new UsageError(`darss requests: unknown action "${verb}" (list, get, submit, delete)`);
  }
}

const quotaText = (q: Schemas['DarssQuota']) =>
  fields([
    ['best effort', `${q.m} of ${q.n} units per ${shortDuration(q.periodMs)} (${q.bestEffortUnits} of ${q.capacityUnits} units now)`],
    ['production cap', `${q.productionCapPct} % (${q.productionLimitUnits} units)`],
    ...(q.noLongerFit?.length ? [['no longer fit', q.noLongerFit.join(', ')] as const] : []),
  ]);

function numberFlag(c: AdminContext, name: string): number | undefined {
  const v = c.flags[name];
  if (typeof v !== 'string') return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${v}"`);
  return n;
}

async function quota(c: AdminContext, verb: string, rest: readonly string[]): Promise<number> {
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (verb === 'get') {
    const q = await ok(c.client.GET('/v1/darss/quota'));
    c.io.out(c.json ? json(q) : quotaText(q));
    return 0;
  }
  if (verb === 'set') {
    const m = numberFlag(c, 'm');
    const n = numberFlag(c, 'n');
    const periodMs = typeof c.flags.period === 'string' ? parseDuration(c.flags.period, '--period') : undefined;
    const productionCapPct = numberFlag(c, 'production-cap-pct');
    if (m === undefined && n === undefined && periodMs === undefined && productionCapPct === undefined)
      throw new UsageError('darss quota set needs at least one of --m, --n, --period, --production-cap-pct');
    // What is not given stays as it is.
    const now = await ok(c.client.GET('/v1/darss/quota'));
    const q = await ok(
      c.client.PUT('/v1/darss/quota', {
        body: { m: m ?? now.m, n: n ?? now.n, periodMs: periodMs ?? now.periodMs, productionCapPct: productionCapPct ?? now.productionCapPct },
      }),
    );
    c.io.out(c.json ? json(q) : quotaText(q));
    return 0;
  }
  throw new UsageError(`darss quota: unknown action "${verb}" (get, set)`);
}

async function ledger(c: AdminContext, rest: readonly string[]): Promise<number> {
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const now = Date.now();
  const from = typeof c.flags.from === 'string' ? parseTime(c.flags.from, '--from', now) : undefined;
  // --to also takes a duration after --from (or now): `--to 6h`.
  const to =
    typeof c.flags.to === 'string'
      ? /^\d+(\.\d+)?(ms|s|m|h|d)$/.test(c.flags.to)
        ? (from ?? now) + parseDuration(c.flags.to, '--to')
        : parseTime(c.flags.to, '--to', now)
      : undefined;
  const query = {
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(typeof c.flags.group === 'string' ? { group: c.flags.group } : {}),
  };
  const l = await ok(c.client.GET('/v1/darss/ledger', { params: { query } }));
  if (c.json) {
    c.io.out(json(l));
    return 0;
  }
  c.io.out(
    `${l.group ? `group ${l.group}` : 'production'} from ${isoTime(l.fromMs)} to ${isoTime(l.toMs)}: capacity ${l.capacityUnits} units, production limit ${l.productionLimitUnits}`,
  );
  c.io.out(
    table(
      ['FROM', 'TO', 'UNITS'],
      l.steps.map((s) => [isoTime(s.fromMs), isoTime(s.toMs), String(Math.round(s.units * 1000) / 1000)]),
      c.io.columns,
    ),
  );
  if (l.truncated) c.io.out('(truncated: ask for a shorter span)');
  return 0;
}

export async function darss(c: AdminContext, args: readonly string[]): Promise<number> {
  const [resource, verb, ...rest] = args;
  switch (resource) {
    case 'requests':
      return requests(c, verb ?? 'list', rest);
    case 'quota':
      return quota(c, verb ?? 'get', rest);
    case 'ledger':
      return ledger(c, verb === undefined ? [] : [verb, ...rest]);
    default:
      throw new UsageError(`darss: unknown resource "${resource ?? ''}" (requests, quota, ledger)`);
  }
}
