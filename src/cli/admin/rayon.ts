/** `schedbrain rayon reservations list|get|submit|delete`: workflows reserved in the RM's ReservationSystem. */
import { ok, type Schemas } from '../../client/index.js';
import { JOB_TAG, REQUEST_TAG } from '../../core/rsl.js';
import type { AdminContext } from './index.js';
import { isoTime, json, readDocument, table, UsageError } from './output.js';

type Reservation = Schemas['RayonReservation'];

const rows = (list: readonly Reservation[]) => list.map((r) => [r.id, r.reservationId, r.queue, isoTime(r.deadlineMs), String(r.allocations.length)]);
const HEADER = ['ID', 'RESERVATION', 'QUEUE', 'DEADLINE', 'ALLOCATIONS'];

function allocations(r: Reservation, columns?: number): string {
  if (!r.allocations.length) return 'no allocation left (the reservation is over)';
  return table(
    ['FROM', 'TO', 'MEMORY MB', 'VCORES'],
    r.allocations.map((a) => [isoTime(a.fromMs), isoTime(a.toMs), String(a.memoryMB), String(a.vcores)]),
    columns,
  );
}

export async function rayon(c: AdminContext, args: readonly string[]): Promise<number> {
  const [resource, verb = 'list', arg, extra] = args;
  if (resource !== 'reservations') throw new UsageError(`rayon: unknown resource "${resource ?? ''}" (reservations)`);
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const idPath = () => {
    if (!arg) throw new UsageError(`rayon reservations ${verb} needs the request ID`);
    return { params: { path: { id: arg } } };
  };
  switch (verb) {
    case 'list': {
      const r = await ok(c.client.GET('/v1/rayon/reservations'));
      if (c.json) c.io.out(json(r));
      else c.io.out(r.reservations.length ? table(HEADER, rows(r.reservations), c.io.columns) : 'no reservations');
      return 0;
    }
    case 'get': {
      const r = await ok(c.client.GET('/v1/rayon/reservations/{id}', idPath()));
      c.io.out(c.json ? json(r) : `${table(HEADER, rows([r]), c.io.columns)}\n${allocations(r, c.io.columns)}`);
      return 0;
    }
    case 'submit': {
      if (!arg) throw new UsageError('rayon reservations submit needs the workflow: a JSON or YAML file, inline JSON, or - for standard input');
      const doc = readDocument(arg, 'workflow');
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new UsageError('workflow: expected an object with jobs and a deadlineMs');
      const r = await ok(c.client.POST('/v1/rayon/reservations', { body: doc as Schemas['RayonWorkflowInput'] }));
      if (c.json) c.io.out(json(r));
      else {
        c.io.out(`request ${r.id} reserved as ${r.reservationId} in queue ${r.queue}`);
        c.io.out(allocations(r, c.io.columns));
        c.io.out(`submit its jobs to queue ${r.queue} with reservation ${r.reservationId} and the tags ${REQUEST_TAG}=${r.id}, ${JOB_TAG}=<job>`);
      }
      return 0;
    }
    case 'delete':
    case 'rm': {
      await ok(c.client.DELETE('/v1/rayon/reservations/{id}', idPath()));
      c.io.out(c.json ? json({ deleted: arg }) : `reservation of ${arg} given back`);
      return 0;
    }
    default:
      throw new UsageError(`rayon reservations: unknown action "${verb}" (list, get, submit, delete)`);
  }
}
