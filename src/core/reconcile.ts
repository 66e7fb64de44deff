/**
 * Reconciliation: is an action already true of the cluster? The engine does not re-send those,
 * so a policy can state its desired end state every cycle without causing writes.
 */
import type { Action } from './actions.js';
import { findById, findQueue, type ClusterSnapshot, type ContainerId, type ContainerView, type NodeId } from './model.js';
import { equals } from './resources.js';

/** Tolerance when comparing capacities the RM reports as floats. */
const PCT_EPSILON = 0.01;

/**
 * The container with this id, looked for first among the containers of the node the action names,
 * when the snapshot holds them at hand (the simulator's does): the policy has just read them,
 * while the lookup by id reads memory the cycle has not touched (a replay reconciles millions).
 */
function namedContainer(s: ClusterSnapshot, containerId: ContainerId, nodeId: NodeId): ContainerView | undefined {
  const onNode = s.nodes.get(nodeId)?.containers;
  return (onNode !== undefined ? findById(onNode, containerId) : undefined) ?? s.containers.get(containerId);
}

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
      return namedContainer(s, action.containerId, action.nodeId)?.state === 'SUSPENDED';
    case 'resumeContainer':
      return namedContainer(s, action.containerId, action.nodeId)?.state === 'RUNNING';
    case 'killContainer':
      return namedContainer(s, action.containerId, action.nodeId) === undefined;
    case 'rankNodes':
      // The snapshot does not carry the published ranking; the engine compares against the
      // last ranking it published instead.
      return false;
  }
}
