/**
 * Reconciliation: is an action already true of the cluster? The engine does not re-send those,
 * so a policy can state its desired end state every cycle without causing writes.
 */
import type { Action } from './actions.js';
import { findQueue, type ClusterSnapshot } from './model.js';
import { equals } from './resources.js';

/** Tolerance when comparing capacities the RM reports as floats. */
const PCT_EPSILON = 0.01;

export function isAlreadyTrue(action: Action, s: ClusterSnapshot): boolean {
  switch (action.kind) {
    case 'updateQueues': {
      if (action.add.some((q) => !findQueue(s.rootQueue, q.path))) return false;
      for (const u of [...action.add, ...action.update]) {
        const q = findQueue(s.rootQueue, u.path);
        if (!q) return false;
        if (u.capacityPct !== undefined && Math.abs(q.capacityPct - u.capacityPct) > PCT_EPSILON) return false;
        if (u.maxCapacityPct !== undefined && Math.abs(q.maxCapacityPct - u.maxCapacityPct) > PCT_EPSILON) return false;
        // A mode switch at an unchanged share is still a change (percentage ↔ absolute resources).
        const wantResource = 'capacityResource' in u ? u.capacityResource : undefined;
        if (wantResource ? !(q.capacityResource && equals(q.capacityResource, wantResource)) : u.capacityPct !== undefined && q.capacityResource !== undefined)
          return false;
      }
      return true;
    }
    case 'setAppPriority':
      return s.apps.get(action.appId)?.priority === action.priority;
    case 'moveApp': {
      const app = s.apps.get(action.appId);
      if (!app) return false;
      return app.queue === action.queue || app.queue === action.queue.split('.').pop();
    }
    case 'killApp': {
      const st = s.apps.get(action.appId)?.state;
      return st === 'KILLED' || st === 'FINISHED' || st === 'FAILED';
    }
    case 'setNodeResource': {
      const n = s.nodes.get(action.nodeId);
      return n !== undefined && equals(n.capacity, action.resource);
    }
    case 'suspendContainer':
      return s.containers.get(action.containerId)?.state === 'SUSPENDED';
    case 'resumeContainer':
      return s.containers.get(action.containerId)?.state === 'RUNNING';
    case 'killContainer':
      return !s.containers.has(action.containerId);
    case 'rankNodes':
      // The snapshot does not carry the published ranking; the engine compares against the
      // last ranking it published instead.
      return false;
  }
}
