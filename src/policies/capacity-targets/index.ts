/**
 * capacity-targets: the simplest useful policy. The operator states the capacity (and optionally
 * the maximum capacity) each queue should have; the policy emits one atomic `updateQueues`
 * whenever the cluster differs, and nothing when it already matches. Stateless.
 */
import { z } from 'zod';
import { ValidationError } from '../../core/errors.js';
import { findQueue, type QueueView } from '../../core/model.js';
import { definePolicy } from '../../core/policy.js';

const PCT_EPS = 0.01;
const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf('.')));
const fmt = (x: number) => String(Math.round(x * 100) / 100);

const target = z
  .object({
    /** Guaranteed capacity relative to the parent, 0–100. */
    capacityPct: z.number().min(0).max(100),
    /** Maximum (elastic) capacity relative to the parent, 0–100; unchanged when omitted. */
    maxCapacityPct: z.number().min(0).max(100).optional(),
  })
  .strict()
  .refine((t) => t.maxCapacityPct === undefined || t.maxCapacityPct >= t.capacityPct, {
    message: 'maxCapacityPct must be >= capacityPct',
    path: ['maxCapacityPct'],
  });

export const capacityTargetsParams = z
  .object({
    /** Desired capacities by full queue path (e.g. `root.a`). */
    targets: z.record(z.string().regex(/^root(\.[^.\s]+)+$/, 'queue path must look like root.<name>[.<name>...]'), target).default({}),
  })
  .strict()
  .superRefine((p, ctx) => {
    // Siblings can never sum past 100, whatever the cluster holds.
    const byParent = new Map<string, string[]>();
    for (const path of Object.keys(p.targets)) byParent.set(parentOf(path), [...(byParent.get(parentOf(path)) ?? []), path]);
    for (const [parent, children] of byParent) {
      const total = children.reduce((acc, c) => acc + p.targets[c].capacityPct, 0);
      if (total > 100 + PCT_EPS) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: ['targets', children[children.length - 1], 'capacityPct'],
          message: `children of ${parent} would sum to ${fmt(total)}% (${children.map((c) => `${c}=${p.targets[c].capacityPct}`).join(', ')}); siblings must sum to 100`,
        });
      }
    }
  });

export type CapacityTargetsParams = z.infer<typeof capacityTargetsParams>;

export const capacityTargetsPolicy = definePolicy<CapacityTargetsParams, Record<string, never>>({
  needs: ['queueWrites'],
  // The queue tree alone.
  reads: [],
  name: 'capacity-targets',
  description: 'Holds queue capacities at operator-given targets: one atomic updateQueues whenever the cluster differs.',
  paramsSchema: capacityTargetsParams,
  initialState: () => ({}),
  decide({ snapshot, params, state }) {
    const update: Array<{ path: string; capacityPct?: number; maxCapacityPct?: number }> = [];
    const changes: string[] = [];
    const touchedParents = new Set<string>();
    for (const [path, t] of Object.entries(params.targets)) {
      const q = findQueue(snapshot.rootQueue, path);
      if (!q) throw new ValidationError(`targets.${path}`, `queue ${path} does not exist in the cluster`);
      const u: { path: string; capacityPct?: number; maxCapacityPct?: number } = { path };
      if (Math.abs(q.capacityPct - t.capacityPct) > PCT_EPS) {
        u.capacityPct = t.capacityPct;
        changes.push(`${path} capacity ${fmt(q.capacityPct)}% → ${fmt(t.capacityPct)}%`);
      }
      if (t.maxCapacityPct !== undefined && Math.abs(q.maxCapacityPct - t.maxCapacityPct) > PCT_EPS) {
        u.maxCapacityPct = t.maxCapacityPct;
        changes.push(`${path} max capacity ${fmt(q.maxCapacityPct)}% → ${fmt(t.maxCapacityPct)}%`);
      }
      if (u.capacityPct !== undefined || u.maxCapacityPct !== undefined) {
        update.push(u);
        touchedParents.add(parentOf(path));
      }
    }
    // After applying the targets, every touched parent's children must still sum to 100.
    for (const parent of touchedParents) {
      const p = findQueue(snapshot.rootQueue, parent) as QueueView;
      const parts = p.children.map((c) => ({ path: c.path, pct: params.targets[c.path]?.capacityPct ?? c.capacityPct }));
      const total = parts.reduce((acc, c) => acc + c.pct, 0);
      if (Math.abs(total - 100) > PCT_EPS) {
        const last = [...parts].reverse().find((c) => params.targets[c.path]) ?? parts[0];
        throw new ValidationError(
          `targets.${last.path}.capacityPct`,
          `children of ${parent} would sum to ${fmt(total)}% after applying targets (${parts.map((c) => `${c.path}=${fmt(c.pct)}`).join(', ')}); siblings must sum to 100`,
        );
      }
    }
    if (update.length === 0) return { decisions: [], state, notes: ['all queues already at their targets'] };
    return {
      decisions: [
        {
          action: { kind: 'updateQueues', add: [], update },
          policy: 'capacity-targets',
          rule: 'capacity-targets.hold',
          reason: changes.join('; '),
        },
      ],
      state,
    };
  },
});

export default capacityTargetsPolicy;
