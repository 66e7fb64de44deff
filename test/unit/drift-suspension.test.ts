/**
 * A container the brain suspended and the cluster shows running again (the shims' lease watchdog
 * resumed it when the brain's lease lapsed, or an operator did) is reported as drift once, and
 * holds nothing back: the next plan decides afresh whether to suspend it again.
 */
import { describe, expect, it } from 'vitest';
import type { ContainerState, ContainerView } from '../../src/core/model.js';
import { res } from '../../src/core/resources.js';
import { buildSnapshot, defaultQueueTree } from '../../src/core/snapshot.js';
import { DriftTracker, heldBy } from '../../src/engine/drift.js';

const container = (state: ContainerState): ContainerView => ({
  id: 'container_1_0001_01_000002',
  appId: 'application_1_0001',
  nodeId: 'node1:8041',
  resource: res(1024, 1),
  state,
  startedAtMs: 0,
});
const snapshot = (containers: ContainerView[]) => buildSnapshot({ nowMs: 10_000, nodes: [], apps: [], containers, rootQueue: defaultQueueTree() });
const suspend = { kind: 'suspendContainer', containerId: 'container_1_0001_01_000002', nodeId: 'node1:8041' } as const;

describe('drift: a suspension undone outside the brain', () => {
  it('is reported once, with what the brain wrote and what the cluster says, and holds nothing', () => {
    const t = new DriftTracker({ policy: 'respect', holdOffMs: 60_000 });
    t.recordApplied(suspend, 1_000);
    expect(t.detect(snapshot([container('SUSPENDED')]), 5_000)).toEqual([]);
    const [d, ...more] = t.detect(snapshot([container('RUNNING')]), 10_000);
    expect(more).toEqual([]);
    expect(d).toMatchObject({ kind: 'suspension', target: 'container:container_1_0001_01_000002', written: 'SUSPENDED', now: 'RUNNING', writtenAtMs: 1_000 });
    expect(d.describe).toMatch(/resumed outside the brain.*lease watchdog/);
    expect(heldBy(suspend, t.holds(10_000))).toBeUndefined();
    expect(t.detect(snapshot([container('RUNNING')]), 11_000)).toEqual([]);
  });

  it("is not reported after the brain's own resume or kill, nor for a container that finished", () => {
    const t = new DriftTracker();
    t.recordApplied(suspend, 1_000);
    t.recordApplied({ ...suspend, kind: 'resumeContainer' }, 2_000);
    expect(t.detect(snapshot([container('RUNNING')]), 3_000)).toEqual([]);
    t.recordApplied(suspend, 4_000);
    t.recordApplied({ ...suspend, kind: 'killContainer' }, 5_000);
    expect(t.detect(snapshot([container('RUNNING')]), 6_000)).toEqual([]);
    t.recordApplied(suspend, 7_000);
    expect(t.detect(snapshot([]), 8_000)).toEqual([]);
    expect(t.detect(snapshot([container('RUNNING')]), 9_000)).toEqual([]);
  });
});
