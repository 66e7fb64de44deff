/**
 * Backend conformance: the same checks against any ClusterBackend (the simulator, the YARN
 * backend against a real or mini ResourceManager).
 *
 *   describeBackendConformance('sim', async () => makeSimBackend(), { destructive: true });
 *
 * `makeBackend` is called once per test and must return a backend whose cluster has at least
 * one active application and one container (tests that need something the cluster lacks are
 * skipped with a note, never failed). Tests restore what they change where the contract allows
 * (priorities, node resources, suspended containers); kills run only with `destructive: true`.
 */
import { describe, expect, it } from 'vitest';
import type { Action } from '../../src/core/actions.js';
import type { ApplyOutcome, ClusterBackend } from '../../src/core/backend.js';
import { isActiveApp, leafQueues, walkQueues, type ClusterSnapshot, type ContainerView } from '../../src/core/model.js';
import { isAlreadyTrue } from '../../src/core/reconcile.js';
import { fits, sum } from '../../src/core/resources.js';

export interface ConformanceOptions {
  /** Allow killContainer / killApp tests (they destroy work on the cluster). Default false. */
  readonly destructive?: boolean;
  /** Allow updateQueues tests (adds a queue `root.<prefix>…`). Default true when queueWrites. */
  readonly queueWrites?: boolean;
  /** Let the backend settle between an action and the check (e.g. wait for a heartbeat). */
  readonly settle?: (b: ClusterBackend) => Promise<void>;
  readonly timeoutMs?: number;
}

const UNKNOWN = 'schedbrain-conformance-does-not-exist';

const isOk = (o: ApplyOutcome): boolean => o.status === 'applied' || o.status === 'noop';

function runningContainer(s: ClusterSnapshot): ContainerView | undefined {
  for (const c of s.containers.values()) if (c.state === 'RUNNING') return c;
  return undefined;
}

export function describeBackendConformance(name: string, makeBackend: () => Promise<ClusterBackend> | ClusterBackend, opts: ConformanceOptions = {}): void {
  const settle = async (b: ClusterBackend): Promise<void> => {
    if (opts.settle) await opts.settle(b);
  };
  const t = opts.timeoutMs ?? 30_000;

  /** Applies, checks the outcome, the reconciliation verdict, and idempotence. */
  const applyAndCheck = async (b: ClusterBackend, a: Action): Promise<void> => {
    const out = await b.apply(a);
    expect(isOk(out), JSON.stringify(out)).toBe(true);
    await settle(b);
    expect(isAlreadyTrue(a, await b.snapshot()), `isAlreadyTrue after ${a.kind}`).toBe(true);
    const again = await b.apply(a);
    expect(again.status, `repeating ${a.kind}`).toBe('noop');
  };

  describe(`backend conformance: ${name}`, () => {
    it(
      'snapshot invariants',
      async () => {
        const b = await makeBackend();
        const s = await b.snapshot();
        expect(Number.isFinite(s.nowMs)).toBe(true);
        expect(s.nodes.size).toBeGreaterThan(0);
        // Total capacity = Σ RUNNING nodes' advertised capacity.
        const running = [...s.nodes.values()].filter((n) => n.state === 'RUNNING');
        expect(s.totalCapacity).toEqual(sum(running.map((n) => n.capacity)));
        for (const n of s.nodes.values()) {
          expect(n.id).toBeTruthy();
          expect(n.used.memoryMB).toBeGreaterThanOrEqual(0);
          expect(n.used.vcores).toBeGreaterThanOrEqual(0);
          // RUNNING containers' allocation fits in the advertised capacity.
          const runningAlloc = sum(
            n.containerIds
              .map((id) => s.containers.get(id))
              .filter((c): c is ContainerView => c?.state === 'RUNNING')
              .map((c) => c.resource),
          );
          expect(fits(runningAlloc, n.capacity), `${n.id}: running ${JSON.stringify(runningAlloc)} within ${JSON.stringify(n.capacity)}`).toBe(true);
          for (const id of n.containerIds) if (s.containers.has(id)) expect(s.containers.get(id)!.nodeId).toBe(n.id);
        }
        for (const c of s.containers.values()) {
          expect(s.nodes.has(c.nodeId), `container ${c.id} on unknown node ${c.nodeId}`).toBe(true);
          expect(s.nodes.get(c.nodeId)!.containerIds).toContain(c.id);
          expect(['RUNNING', 'SUSPENDED']).toContain(c.state);
          if (c.attainedServiceMs !== undefined) expect(c.attainedServiceMs).toBeGreaterThanOrEqual(0);
          const app = s.apps.get(c.appId);
          if (app) expect(isActiveApp(app) || app.state === 'FINISHED' || app.state === 'KILLED' || app.state === 'FAILED').toBe(true);
        }
        // Apps: container counts and allocation agree with the containers the snapshot lists.
        for (const a of s.apps.values()) {
          const mine = [...s.containers.values()].filter((c) => c.appId === a.id);
          if (isActiveApp(a)) {
            expect(a.runningContainers).toBe(mine.length);
            expect(a.allocated).toEqual(sum(mine.map((c) => c.resource)));
          }
          expect(a.pendingContainers).toBeGreaterThanOrEqual(0);
          if (a.pendingContainers > 0) expect(a.pendingContainerResource).toBeDefined();
        }
        // Queues: siblings sum to 100 %, leaves exist, root is `root`.
        expect(s.rootQueue.path).toBe('root');
        for (const q of walkQueues(s.rootQueue)) {
          if (q.children.length) expect(Math.abs(q.children.reduce((x, c) => x + c.capacityPct, 0) - 100)).toBeLessThan(0.1);
          expect(q.maxCapacityPct + 0.01).toBeGreaterThanOrEqual(q.capacityPct);
        }
        expect(leafQueues(s.rootQueue).length).toBeGreaterThan(0);
      },
      t,
    );

    it(
      'capabilities are reported',
      async () => {
        const c = await (await makeBackend()).capabilities();
        expect(typeof c.queueWrites).toBe('boolean');
        expect(typeof c.containerSuspend).toBe('boolean');
        expect(typeof c.nodeRanking).toBe('boolean');
        expect(Array.isArray(c.notes)).toBe(true);
      },
      t,
    );

    it(
      'setAppPriority: applied, then already true, then noop; restored',
      async (ctx) => {
        const b = await makeBackend();
        const app = [...(await b.snapshot()).apps.values()].find(isActiveApp);
        if (!app) return ctx.skip(`${name}: no active app, setAppPriority skipped`);
        await applyAndCheck(b, { kind: 'setAppPriority', appId: app.id, priority: app.priority + 1 });
        await b.apply({ kind: 'setAppPriority', appId: app.id, priority: app.priority });
      },
      t,
    );

    it(
      'setNodeResource: over-commit applied, already true, noop; restored',
      async () => {
        const b = await makeBackend();
        const n = [...(await b.snapshot()).nodes.values()].find((x) => x.state === 'RUNNING')!;
        const up = { memoryMB: n.capacity.memoryMB * 2, vcores: n.capacity.vcores + 2 };
        await applyAndCheck(b, { kind: 'setNodeResource', nodeId: n.id, resource: up });
        const after = (await b.snapshot()).nodes.get(n.id)!;
        expect(after.physicalCapacity).toEqual(n.physicalCapacity);
        await applyAndCheck(b, { kind: 'setNodeResource', nodeId: n.id, resource: n.capacity });
      },
      t,
    );

    it(
      'suspendContainer / resumeContainer round trip',
      async (ctx) => {
        const b = await makeBackend();
        if (!(await b.capabilities()).containerSuspend) return ctx.skip(`${name}: no container suspend, skipped`);
        const c = runningContainer(await b.snapshot());
        if (!c) return ctx.skip(`${name}: no running container, suspend skipped`);
        await applyAndCheck(b, { kind: 'suspendContainer', containerId: c.id, nodeId: c.nodeId });
        const s = await b.snapshot();
        const sc = s.containers.get(c.id)!;
        expect(sc.state).toBe('SUSPENDED');
        // A suspended container stays allocated on its node.
        expect(s.nodes.get(c.nodeId)!.containerIds).toContain(c.id);
        await applyAndCheck(b, { kind: 'resumeContainer', containerId: c.id, nodeId: c.nodeId });
        expect((await b.snapshot()).containers.get(c.id)!.state).toBe('RUNNING');
      },
      t,
    );

    it(
      'updateQueues: add a queue and move an app into it',
      async (ctx) => {
        const b = await makeBackend();
        const caps = await b.capabilities();
        if (!caps.queueWrites || opts.queueWrites === false) return ctx.skip(`${name}: no queue writes, skipped`);
        const s = await b.snapshot();
        const leaf = leafQueues(s.rootQueue)[0];
        const parent = leaf.path.slice(0, leaf.path.lastIndexOf('.'));
        const path = `${parent}.conformance${Math.floor(s.nowMs) % 100000}`;
        const action: Action = {
          kind: 'updateQueues',
          add: [{ path, capacityPct: 10, maxCapacityPct: 100 }],
          update: [{ path: leaf.path, capacityPct: leaf.capacityPct - 10 }],
        };
        const out = await b.apply(action);
        expect(out.status, JSON.stringify(out)).toBe('applied');
        await settle(b);
        expect(isAlreadyTrue(action, await b.snapshot())).toBe(true);
        // Repeating it changes nothing.
        expect((await b.apply(action)).status).toBe('noop');
        // Adding an existing queue with other settings is refused, and leaves the tree unchanged.
        const dup = await b.apply({ kind: 'updateQueues', add: [{ path, capacityPct: 20, maxCapacityPct: 100 }], update: [] });
        expect(dup.status).toBe('failed');
        // Siblings not summing to 100 % are refused.
        const bad = await b.apply({ kind: 'updateQueues', add: [], update: [{ path, capacityPct: 50 }] });
        expect(bad.status).toBe('failed');
        expect(isAlreadyTrue(action, await b.snapshot())).toBe(true);
        const app = [...(await b.snapshot()).apps.values()].find(isActiveApp);
        if (app) await applyAndCheck(b, { kind: 'moveApp', appId: app.id, queue: path });
      },
      t,
    );

    it(
      'rankNodes is accepted',
      async (ctx) => {
        const b = await makeBackend();
        if (!(await b.capabilities()).nodeRanking) return ctx.skip(`${name}: no node ranking, skipped`);
        const ids = [...(await b.snapshot()).nodes.keys()];
        const scores = Object.fromEntries(ids.map((id, i) => [id, ids.length - i]));
        const out = await b.apply({ kind: 'rankNodes', scores, leastLoadedFirst: true, partial: false });
        expect(out.status).toBe('applied');
      },
      t,
    );

    it.runIf(opts.destructive === true)(
      'killContainer and killApp: applied, already true, noop',
      async () => {
        const b = await makeBackend();
        const s = await b.snapshot();
        const c = [...s.containers.values()][0];
        if (c) {
          const a: Action = { kind: 'killContainer', containerId: c.id, nodeId: c.nodeId };
          const out = await b.apply(a);
          expect(out.status).toBe('applied');
          await settle(b);
          expect(isAlreadyTrue(a, await b.snapshot())).toBe(true);
          // Killing it again: it is gone, so the backend reports failure or noop, never throws.
          expect(['noop', 'failed']).toContain((await b.apply(a)).status);
        }
        const app = [...(await b.snapshot()).apps.values()].find(isActiveApp);
        if (app) await applyAndCheck(b, { kind: 'killApp', appId: app.id });
      },
      t,
    );

    it(
      'unknown ids give a failed outcome, not an exception',
      async () => {
        const b = await makeBackend();
        const s = await b.snapshot();
        const node = [...s.nodes.keys()][0];
        const actions: Action[] = [
          { kind: 'setAppPriority', appId: UNKNOWN, priority: 1 },
          { kind: 'moveApp', appId: UNKNOWN, queue: leafQueues(s.rootQueue)[0].path },
          { kind: 'killApp', appId: UNKNOWN },
          { kind: 'setNodeResource', nodeId: UNKNOWN, resource: { memoryMB: 1024, vcores: 1 } },
          { kind: 'suspendContainer', containerId: UNKNOWN, nodeId: node },
          { kind: 'resumeContainer', containerId: UNKNOWN, nodeId: node },
          { kind: 'killContainer', containerId: UNKNOWN, nodeId: node },
          { kind: 'updateQueues', add: [], update: [{ path: `root.${UNKNOWN}`, capacityPct: 5 }] },
        ];
        const app = [...s.apps.values()].find(isActiveApp);
        if (app) actions.push({ kind: 'moveApp', appId: app.id, queue: `root.${UNKNOWN}` });
        for (const a of actions) {
          const out = await b.apply(a);
          expect(out.status, `${a.kind} on an unknown id`).toBe('failed');
          if (out.status === 'failed') expect(out.error.length).toBeGreaterThan(0);
        }
      },
      t,
    );
  });
}
