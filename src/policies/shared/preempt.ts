/**
 * Making room for reserved work by ending the containers of other queues that started last (the
 * least work lost), as CapacityScheduler's preemption would to restore a queue's guarantee.
 */
import { decisionWithLazyReason, type Decision } from '../../core/actions.js';
import type { AppView, ClusterSnapshot } from '../../core/model.js';
import { unitsIn, type ResourceUnit } from '../../core/rsl.js';

/** Free units of the cluster, node by node (a task holds its units on one node). */
export function freeUnits(s: ClusterSnapshot, unit: ResourceUnit): number {
  let free = 0;
  for (const n of s.nodes.values()) {
    if (n.state !== 'RUNNING') continue;
    free += unitsIn({ vcores: n.capacity.vcores - n.used.vcores, memoryMB: n.capacity.memoryMB - n.used.memoryMB }, unit);
  }
  return free;
}

/** True for a queue and the queues below it. */
export function inQueue(app: AppView, queue: string): boolean {
  return app.queue === queue || app.queue.startsWith(`${queue}.`);
}

/**
 * `killContainer` decisions for the containers started last, until `units` units are freed;
 * `victim(app)` is how many units may be taken from an application (0: none). ApplicationMasters
 * are left alone.
 */
export function preemptYoungest(
  s: ClusterSnapshot,
  victim: (app: AppView) => number,
  units: number,
  unit: ResourceUnit,
  policy: string,
  rule: string,
  why: string,
): Decision[] {
  if (units <= 0) return [];
  const victims: { id: string; nodeId: string; startedAtMs: number; units: number; queue: string }[] = [];
  for (const c of s.containers.values()) {
    if (c.appMaster) continue;
    const app = s.apps.get(c.appId);
    if (!app || victim(app) <= 0) continue;
    victims.push({ id: c.id, nodeId: c.nodeId, startedAtMs: c.startedAtMs, units: Math.max(1, unitsIn(c.resource, unit)), queue: app.queue });
  }
  victims.sort((a, b) => b.startedAtMs - a.startedAtMs || (a.id < b.id ? -1 : 1));
  const out: Decision[] = [];
  const taken = new Map<string, number>();
  let freed = 0;
  for (const v of victims) {
    if (freed >= units) break;
    const app = s.apps.get(s.containers.get(v.id)!.appId)!;
    const t = taken.get(app.id) ?? 0;
    if (t + v.units > victim(app)) continue;
    taken.set(app.id, t + v.units);
    freed += v.units;
    out.push(
      decisionWithLazyReason(
        { kind: 'killContainer', containerId: v.id, nodeId: v.nodeId },
        policy,
        rule,
        () => `${why}: container of ${v.queue} started at ${v.startedAtMs} ms gives ${v.units} units`,
      ),
    );
  }
  return out;
}

/**
 * Capacity of one queue and its sibling, in percent of the cluster, for `units` units: shares
 * are measured by the cluster's dominant resource, whose cores or memory may not all form whole
 * units, so one unit's share is its larger fraction.
 */
export function unitSharePct(total: { vcores: number; memoryMB: number }, unit: ResourceUnit): number {
  return 100 * Math.max(total.vcores > 0 ? unit.vcores / total.vcores : 0, total.memoryMB > 0 ? unit.memoryMB / total.memoryMB : 0);
}

/** Percentages for `weights` that sum to exactly 100 at `decimals` (largest remainder; equal when all are 0). */
export function splitPct(weights: readonly number[], decimals: number): number[] {
  const scale = 10 ** decimals;
  const total = weights.reduce((a, b) => a + b, 0);
  const w = total > 0 ? weights : weights.map(() => 1);
  const t = total > 0 ? total : w.length;
  const raw = w.map((x) => (x / t) * 100 * scale);
  const floor = raw.map(Math.floor);
  let left = 100 * scale - floor.reduce((a, b) => a + b, 0);
  const order = raw.map((r, i) => [r - Math.floor(r), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (const [, i] of order) {
    if (left <= 0) break;
    floor[i]++;
    left--;
  }
  return floor.map((x) => x / scale);
}
