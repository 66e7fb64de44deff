/** `schedbrain status`, `state`, `policy get|set`, `decisions`, `dry-run`: the engine through the admin API. */
import { stringify as toYaml } from 'yaml';
import { ok, type Schemas } from '../../client/index.js';
import type { AdminContext } from './index.js';
import { fields, isoTime, json, parseDuration, parseTime, readDocument, table, UsageError } from './output.js';

type Action = NonNullable<Schemas['JournalEntry']['action']>;

/** One line for an action: its kind and what it changes. */
export function describeAction(a: Action | undefined): string {
  if (!a) return '';
  switch (a.kind) {
    case 'updateQueues':
      return `updateQueues ${[...a.add.map((q) => `+${q.path}=${q.capacityPct}%`), ...a.update.map((q) => `${q.path}=${q.capacityPct ?? '·'}%${q.maxCapacityPct !== undefined ? `/${q.maxCapacityPct}%` : ''}`)].join(' ')}`;
    case 'setAppPriority':
      return `setAppPriority ${a.appId}=${a.priority}`;
    case 'moveApp':
      return `moveApp ${a.appId} → ${a.queue}`;
    case 'killApp':
      return `killApp ${a.appId}`;
    case 'setNodeResource':
      return `setNodeResource ${a.nodeId} <${a.resource.memoryMB} MB, ${a.resource.vcores} vcores>`;
    case 'suspendContainer':
    case 'resumeContainer':
    case 'killContainer':
      return `${a.kind} ${a.containerId}`;
    default:
      return a.kind;
  }
}

const yesNo = (b: boolean | null | undefined) => (b === null || b === undefined ? '-' : b ? 'yes' : 'no');

export async function status(c: AdminContext): Promise<number> {
  // /healthz answers 503 with the same body when the RM is down or the snapshot stale.
  const h = await c.client.GET('/healthz');
  const health = (h.data ?? h.error) as Schemas['Health'] | undefined;
  if (!health || typeof (health as { status?: unknown }).status !== 'string') return c.fail(h.response.status, h.error);
  const policy = await ok(c.client.GET('/v1/policy'));
  if (c.json)
    c.io.out(json({ server: c.server, health, policy: { name: policy.name, params: policy.params, dryRun: policy.dryRun, updatedAtMs: policy.updatedAtMs } }));
  else {
    const last = health.lastCycle;
    c.io.out(
      fields([
        ['server', c.server],
        ['status', `${health.status}${health.staleReason ? ` (${health.staleReason})` : ''}`],
        ['policy', `${policy.name}${policy.dryRun ? ' (dry-run: decisions are journaled, not applied)' : ''}`],
        ['rm', health.rmReachable === null ? 'not read yet' : health.rmReachable ? 'reachable' : `unreachable${health.rmError ? `: ${health.rmError}` : ''}`],
        ['last cycle', last ? `${last.cycleId} ${last.outcome} at ${isoTime(last.atMs)}${last.error ? `: ${last.error}` : ''}` : '-'],
        ['next cycle', isoTime(health.nextCycleAtMs)],
        ['advisory', `${yesNo(health.advisory)}${health.advisoryReason ? ` (${health.advisoryReason})` : ''}`],
        ['loop', health.running ? 'running' : 'stopped'],
      ]),
    );
  }
  return health.status === 'down' || health.status === 'stale' ? 1 : 0;
}

/** The service's state dump (GET /v1/state, role operate): YAML for people, JSON with --json. */
export async function state(c: AdminContext, args: readonly string[]): Promise<number> {
  if (args.length) throw new UsageError(`state takes no argument (got "${args[0]}")`);
  const s = await ok(c.client.GET('/v1/state'));
  c.io.out(c.json ? json(s) : toYaml(s, { lineWidth: 0 }).trimEnd());
  return 0;
}

function policyText(p: Schemas['PolicyConfig']): string {
  return [
    fields([
      ['policy', p.name],
      ['description', p.description],
      ['dry-run', yesNo(p.dryRun)],
      ['updated', isoTime(p.updatedAtMs)],
      ['registered', p.registered.map((r) => r.name).join(', ')],
    ]),
    'params:',
    json(p.params ?? {}).replace(/^/gm, '  '),
  ].join('\n');
}

export async function policy(c: AdminContext, args: readonly string[]): Promise<number> {
  const [verb, name, ...rest] = args;
  if (verb === 'get' || verb === undefined) {
    if (name !== undefined) throw new UsageError(`policy get takes no argument (got "${name}")`);
    const p = await ok(c.client.GET('/v1/policy'));
    c.io.out(c.json ? json(p) : policyText(p));
    return 0;
  }
  if (verb === 'set') {
    if (!name) throw new UsageError('policy set needs the policy NAME');
    if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
    if (c.flags['dry-run'] && c.flags['no-dry-run']) throw new UsageError('give --dry-run or --no-dry-run, not both');
    let params = typeof c.flags.params === 'string' ? readDocument(c.flags.params, '--params') : undefined;
    const dryRun = c.flags['dry-run'] ? true : c.flags['no-dry-run'] ? false : undefined;
    // The API takes absent params as the policy's defaults: the running policy keeps its own instead.
    if (params === undefined) {
      const running = await ok(c.client.GET('/v1/policy'));
      if (running.name === name) params = running.params;
    }
    const p = await ok(
      c.client.PUT('/v1/policy', { body: { name, ...(params !== undefined ? { params } : {}), ...(dryRun !== undefined ? { dryRun } : {}) } }),
    );
    c.io.out(c.json ? json(p) : policyText(p));
    return 0;
  }
  throw new UsageError(`policy: unknown action "${verb}" (get, set)`);
}

type Entry = Schemas['JournalEntry'];

function decisionRows(entries: readonly Entry[]): string[][] {
  return entries.map((e) => [
    isoTime(e.timeMs),
    e.cycleId,
    e.rule,
    `${e.result}${e.count ? ` ×${e.count}` : ''}`,
    [describeAction(e.action), e.reason, e.skipReason ? `(${e.skipReason})` : '', e.error ? `error: ${e.error}` : ''].filter(Boolean).join(' — '),
  ]);
}
const DECISION_HEADER = ['TIME', 'CYCLE', 'RULE', 'RESULT', 'ACTION — REASON'];

const matchesRule = (rule: string, want: string | undefined) => want === undefined || rule === want || rule.startsWith(`${want}.`);

export async function decisions(c: AdminContext, args: readonly string[]): Promise<number> {
  if (args.length) throw new UsageError(`decisions takes no argument (got "${args[0]}")`);
  const f = c.flags;
  const limit = f.limit === undefined ? 50 : Number(f.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError(`--limit must be an integer 1..1000, got "${String(f.limit)}"`);
  const rule = typeof f.rule === 'string' ? f.rule : undefined;
  const filters = { ...(typeof f.policy === 'string' ? { policy: f.policy } : {}), ...(typeof f.cycle === 'string' ? { cycle: f.cycle } : {}) };
  let since = typeof f.since === 'string' ? parseTime(f.since, '--since', Date.now()) : undefined;
  const intervalMs = typeof f.interval === 'string' ? parseDuration(f.interval, '--interval') : 2000;
  const seen = new Set<string>();
  let headerShown = false;
  const print = (entries: readonly Entry[]) => {
    const shown = entries.filter((e) => matchesRule(e.rule, rule));
    if (c.json) {
      // Following prints one entry per line, as they come; otherwise one JSON array.
      if (f.follow) for (const e of shown) c.io.out(JSON.stringify(e));
      else c.io.out(json(shown));
      return;
    }
    if (!shown.length && (headerShown || f.follow)) return;
    const text = table(DECISION_HEADER, decisionRows(shown), c.io.columns);
    c.io.out(headerShown ? text.slice(text.indexOf('\n') + 1) : text);
    headerShown = true;
  };

  // The first page: the newest `limit` (shown oldest first), or from --since onwards.
  const first =
    since === undefined
      ? (await ok(c.client.GET('/v1/decisions', { params: { query: { limit, order: 'desc', ...filters } } }))).entries.reverse()
      : (await ok(c.client.GET('/v1/decisions', { params: { query: { limit, order: 'asc', since: String(since), ...filters } } }))).entries;
  for (const e of first) seen.add(e.id);
  print(first);
  if (!f.follow) return 0;
  // From the last entry shown (the service's clock, not this machine's); an empty journal from its start.
  since = first.at(-1)?.timeMs ?? since ?? 0;
  while (!c.signal?.aborted) {
    await sleep(intervalMs, c.signal);
    if (c.signal?.aborted) break;
    // Entries of one millisecond may straddle two pages: ask from the last time seen, drop what was shown.
    for (;;) {
      const page: Entry[] = (await ok(c.client.GET('/v1/decisions', { params: { query: { limit: 1000, order: 'asc', since: String(since), ...filters } } })))
        .entries;
      const fresh = page.filter((e) => !seen.has(e.id));
      for (const e of fresh) seen.add(e.id);
      print(fresh);
      if (page.length) since = page.at(-1)!.timeMs;
      if (page.length < 1000 || !fresh.length) break;
    }
  }
  return 0;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}

export async function dryRun(c: AdminContext, args: readonly string[]): Promise<number> {
  const [name, ...rest] = args;
  if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
  const params = typeof c.flags.params === 'string' ? readDocument(c.flags.params, '--params') : undefined;
  const r = await ok(c.client.POST('/v1/dry-run', { body: { ...(name ? { name } : {}), ...(params !== undefined ? { params } : {}) } }));
  if (c.json) {
    c.io.out(json(r));
    return r.outcome === 'ok' ? 0 : 1;
  }
  c.io.out(
    `${r.policy}: ${r.outcome} on the snapshot of ${isoTime(r.snapshotAtMs)}${r.advisory ? ' (advisory: the backend cannot write queues)' : ''}${r.error ? `: ${r.error}` : ''}`,
  );
  if (r.decisions.length) {
    const rows = r.decisions.map((d) => [
      d.rule,
      d.result,
      [describeAction(d.action), d.reason, d.skipReason ? `(${d.skipReason})` : '', d.detail ?? '', d.error ? `error: ${d.error}` : '']
        .filter(Boolean)
        .join(' — '),
    ]);
    c.io.out(table(['RULE', 'RESULT', 'ACTION — REASON'], rows, c.io.columns));
  } else c.io.out('no decisions');
  for (const n of r.notes) c.io.out(`note: ${n}`);
  return r.outcome === 'ok' ? 0 : 1;
}
