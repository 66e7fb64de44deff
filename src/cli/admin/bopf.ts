/** `schedbrain bopf queues list|get|add|set|rm`: BoPF queue registration through the admin API. */
import { ok, type Schemas } from '../../client/index.js';
import type { AdminContext } from './index.js';
import { fields, json, readDocument, shortDuration, table, UsageError } from './output.js';

type Queue = Schemas['BopfQueue'];
type Spec = Schemas['BopfQueueSpecInput'];

function queueRows(queues: readonly Queue[]): string[][] {
  return queues.map((q) => [
    q.name,
    q.kind,
    q.class,
    q.kind === 'LQ' ? shortDuration(q.spec.periodMs) : '-',
    q.kind === 'LQ' ? shortDuration(q.spec.burstDeadlineMs) : '-',
    q.kind === 'LQ' ? `${q.demand.vcoreSeconds} vcore·s, ${q.demand.memoryMBSeconds} MB·s` : '-',
    q.reason,
  ]);
}
const QUEUE_HEADER = ['NAME', 'KIND', 'CLASS', 'PERIOD', 'DEADLINE', 'BURST DEMAND', 'REASON'];

function admissionText(verb: string, r: { queue: Queue; admission: Schemas['BopfAdmission'] }, columns?: number): string {
  const checks = r.admission.checks.map((x) => [x.condition, x.passed ? 'passed' : 'failed', x.detail]);
  return `queue ${r.queue.name} ${verb}: ${r.admission.class} — ${r.admission.reason}\n${table(['CONDITION', 'RESULT', 'DETAIL'], checks, columns)}`;
}

function spec(arg: string | undefined, usage: string): Spec {
  if (!arg) throw new UsageError(`${usage} needs the queue spec: a JSON or YAML file, inline JSON, or - for standard input`);
  const doc = readDocument(arg, 'queue spec');
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UsageError('queue spec: expected an object such as {"name":"etl","kind":"TQ"}');
  return doc as Spec;
}

export async function bopf(c: AdminContext, args: readonly string[]): Promise<number> {
  const [resource, verb, ...rest] = args;
  if (resource !== 'queues') throw new UsageError(`bopf: unknown resource "${resource ?? ''}" (queues)`);
  const arg = rest[0];
  const most = verb === 'set' ? 2 : 1;
  if (rest.length > most) throw new UsageError(`unexpected argument "${rest[most]}"`);
  const path = (name: string | undefined) => {
    if (!name) throw new UsageError(`bopf queues ${verb} needs the queue NAME`);
    return { params: { path: { name } } };
  };
  switch (verb ?? 'list') {
    case 'list': {
      const r = await ok(c.client.GET('/v1/bopf/queues'));
      if (c.json) c.io.out(json(r));
      else {
        const cap = r.capacity ? `capacity <${r.capacity.memoryMB} MB, ${r.capacity.vcores} vcores>` : 'no capacity known yet';
        c.io.out(`${r.variant}, ${cap}, ${r.queues.length} queue(s)`);
        if (r.queues.length) c.io.out(table(QUEUE_HEADER, queueRows(r.queues), c.io.columns));
      }
      return 0;
    }
    case 'get': {
      const q = await ok(c.client.GET('/v1/bopf/queues/{name}', path(arg)));
      c.io.out(
        c.json
          ? json(q)
          : `${fields([
              ['name', q.name],
              ['kind', q.kind],
              ['class', q.class],
              ['reason', q.reason],
            ])}\nspec:\n${json(q.spec).replace(/^/gm, '  ')}`,
      );
      return 0;
    }
    case 'add': {
      const r = await ok(c.client.POST('/v1/bopf/queues', { body: spec(arg, 'bopf queues add') }));
      c.io.out(c.json ? json(r) : admissionText('registered', r, c.io.columns));
      return 0;
    }
    case 'set': {
      const [name, file] = [arg, rest[1]];
      if (!name || !file) throw new UsageError('bopf queues set needs the queue NAME and its spec (file, inline JSON or -)');
      const r = await ok(c.client.PUT('/v1/bopf/queues/{name}', { ...path(name), body: spec(file, 'bopf queues set') }));
      c.io.out(c.json ? json(r) : admissionText('re-registered', r, c.io.columns));
      return 0;
    }
    case 'rm':
    case 'delete': {
      await ok(c.client.DELETE('/v1/bopf/queues/{name}', path(arg)));
      c.io.out(c.json ? json({ removed: arg }) : `queue ${arg} unregistered`);
      return 0;
    }
    default:
      throw new UsageError(`bopf queues: unknown action "${verb}" (list, get, add, set, rm)`);
  }
}
