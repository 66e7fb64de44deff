/**
 * One cycle of a queue-share baseline (DRF, strict priority): allocate by `mode`, give every leaf
 * its share as capacity, spread what nobody asks for equally, and send it when it moved enough.
 */
import { z } from 'zod';
import type { Decision } from '../../../core/actions.js';
import type { ClusterSnapshot } from '../../../core/model.js';
import { dominantShare } from '../../../core/resources.js';
import { allocate, type AllocQueue, type Mode } from './allocate.js';
import { capacityDecision, planCapacities } from './capacities.js';
import { leafLoads, managedLeaves } from './leaves.js';

export const shareParamsSchema = z.object({
  parentQueue: z.string().min(1).default('root'),
  hysteresisPct: z.number().min(0).max(100).default(2),
  capacityDecimals: z.number().int().min(0).max(3).default(1),
  maxCapacityPct: z.number().min(0).max(100).default(100),
});
export type ShareParams = z.infer<typeof shareParamsSchema>;

export function queueShareCycle(
  snapshot: ClusterSnapshot,
  params: ShareParams,
  mode: Exclude<Mode, 'bopf'>,
  policy: string,
  kindOf: (leafName: string) => 'LQ' | 'TQ',
): { decisions: Decision[]; notes: string[] } {
  const capacity = snapshot.totalCapacity;
  const leaves = managedLeaves(snapshot, params.parentQueue).map((q) => q.path);
  const loads = leafLoads(snapshot, leaves);
  const queues: AllocQueue[] = leaves.map((path) => {
    const l = loads.get(path)!;
    return { id: path, kind: kindOf(l.name), cls: 'elastic', demand: l.demand };
  });
  const alloc = allocate(mode, capacity, queues);
  const shares = new Map(leaves.map((p) => [p, dominantShare(alloc.get(p)!.guarantee, capacity)]));
  const plan = planCapacities(leaves, [{ label: mode, shares }], leaves, new Map(), params.capacityDecimals);
  const targets = leaves.map((path) => {
    const capacityPct = plan.pct.get(path)!;
    // Max-capacity never below capacity (CapacityScheduler would refuse the whole mutation).
    return { path, capacityPct, maxCapacityPct: Math.max(params.maxCapacityPct, capacityPct), why: alloc.get(path)!.why };
  });
  const { decision, note } = capacityDecision(snapshot, targets, { policy, rule: 'allocate', hysteresisPct: params.hysteresisPct });
  return { decisions: decision ? [decision] : [], notes: [...plan.notes, note] };
}
