/** Kairos on live YARN: ApplicationMaster containers are not tasks and are never suspended. */
import { describe, expect, it } from 'vitest';
import type { ContainerView } from '../../src/core/model.js';
import { buildSnapshot, defaultQueueTree } from '../../src/core/snapshot.js';
import { res } from '../../src/core/resources.js';
import type { Decision } from '../../src/core/actions.js';
import { kairosParamsSchema, kairosPolicy, stateNodes } from '../../src/policies/kairos/index.js';
import { ChangeTracker } from '../../src/engine/change-tracking.js';

const S = 1000;
const container = (c: { id: string; app?: string; attained: number; startedAt?: number }): ContainerView => ({
  id: c.id,
  appId: c.app ?? 'app1',
  nodeId: 'n1',
  resource: res(256, 1),
  state: 'RUNNING',
  startedAtMs: c.startedAt ?? 0,
  attainedServiceMs: c.attained,
});
const app = (id: string) => ({
  id,
  name: id,
  user: 'u',
  queue: 'root.default',
  state: 'RUNNING' as const,
  priority: 0,
  submittedAtMs: 0,
  pendingContainers: 0,
  runningContainers: 0,
  allocated: res(0, 0),
  tags: {},
});
const suspended = (ds: Decision[]) => ds.flatMap((d) => (d.action.kind === 'suspendContainer' ? [d.action.containerId] : [])).sort();

const params = kairosParamsSchema.parse({ quantumMs: 4 * S, queueSlots: 4 });

/** One 4-core node: an AM with the most CPU of all, three running tasks, and a newcomer task. */
function snapshotWithAm(am: Partial<ContainerView>) {
  const cs: ContainerView[] = [
    { ...container({ id: 'am', attained: 9 * S }), ...am },
    container({ id: 't1', attained: 5 * S }),
    container({ id: 't2', attained: 4 * S }),
    container({ id: 't3', attained: 3 * S }),
    container({ id: 'new', app: 'app2', attained: 0, startedAt: 10 * S }),
  ];
  const n = {
    id: 'n1',
    state: 'RUNNING' as const,
    rack: '/r',
    capacity: res(8192, 8),
    physicalCapacity: res(4096, 4),
    used: res(0, 0),
    containerIds: cs.map((c) => c.id),
  };
  return buildSnapshot({ nowMs: 10 * S, nodes: [n], apps: [app('app1'), app('app2')], containers: cs, rootQueue: defaultQueueTree() });
}

describe('kairos: ApplicationMaster containers', () => {
  it('an AM neither counts against the N cores nor is ever the victim, however much CPU it used', () => {
    const out = kairosPolicy.decide({
      snapshot: snapshotWithAm({ appMaster: true }),
      params,
      state: kairosPolicy.initialState(params),
      tracking: new ChangeTracker(),
    });
    // Four tasks on four cores: nobody is suspended.
    expect(suspended(out.decisions)).toEqual([]);
    expect(Object.keys(stateNodes(out.state).n1!.tasks).sort()).toEqual(['new', 't1', 't2', 't3']);
  });

  it('without the flag the same container is a task: five on four cores, the most attained yields', () => {
    const out = kairosPolicy.decide({ snapshot: snapshotWithAm({}), params, state: kairosPolicy.initialState(params), tracking: new ChangeTracker() });
    expect(suspended(out.decisions)).toEqual(['am']);
  });
});
