/**
 * A full diff of two snapshots, what the backends' change sets are checked against: a node
 * changed when anything its change covers differs (state, rack, capacities, its containers), an
 * app when any of its fields does.
 */
import type { ClusterSnapshot } from '../../src/core/model.js';

/**
 * Everything a node's change covers, as text. `containerOrder: 'ignored'` compares a node's
 * containers as a set (a backend whose lists may come in another order).
 */
export function nodeFingerprints(s: ClusterSnapshot, containerOrder: 'kept' | 'ignored' = 'kept'): Map<string, string> {
  const out = new Map<string, string>();
  for (const n of s.nodes.values()) {
    const ids = containerOrder === 'ignored' ? [...n.containerIds].sort() : n.containerIds;
    const cs = ids.map((id) => {
      const c = s.containers.get(id)!;
      return [c.id, c.appId, c.state, c.appMaster ?? false, c.startedAtMs, c.resource.memoryMB, c.resource.vcores];
    });
    out.set(n.id, JSON.stringify([n.state, n.rack, n.capacity, n.physicalCapacity, cs]));
  }
  return out;
}

export function appFingerprints(s: ClusterSnapshot): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of s.apps.values()) out.set(a.id, JSON.stringify({ ...a, tags: Object.entries(a.tags).sort() }));
  return out;
}

/** The ids whose fingerprint differs, or that one side lacks. */
export function diff(a: Map<string, string>, b: Map<string, string>): Set<string> {
  const out = new Set<string>();
  for (const [id, f] of b) if (a.get(id) !== f) out.add(id);
  for (const id of a.keys()) if (!b.has(id)) out.add(id);
  return out;
}
