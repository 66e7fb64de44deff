/**
 * The admission control keeps its admitted queues' numbers in columns (one slot per queue) and
 * makes their objects and reasons when read. It must decide exactly what the object-based control
 * decided (bopf-admission-reference.ts): same class, reason and checks for every decision, the
 * same queues with the same reasons, the same book, on random sequences of admissions (with and
 * without arrival phases, alpha-strategy demands), removals, re-admissions and books read back.
 */
import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdmissionControl, type AdmissionDecision } from '../../src/policies/bopf/admission.js';
import type { QueueSpec } from '../../src/policies/bopf/spec.js';
import { AdmissionControl as ReferenceAdmissionControl } from './bopf-admission-reference.js';

const S = 1000;

const arbSpec = (name: string): fc.Arbitrary<QueueSpec> =>
  fc.oneof(
    fc.constant<QueueSpec>({ name, kind: 'TQ' }),
    fc
      .record({
        period: fc.constantFrom(20, 30, 40, 60, 90),
        len: fc.integer({ min: 1, max: 20 }),
        vcores: fc.integer({ min: 0, max: 60 }),
        memory: fc.integer({ min: 0, max: 60 }),
        first: fc.option(fc.integer({ min: 0, max: 90 }), { nil: undefined }),
        alpha: fc.option(fc.constantFrom(0.5, 0.9, 0.99), { nil: undefined }),
      })
      .map(({ period, len, vcores, memory, first, alpha }): QueueSpec => ({
        name,
        kind: 'LQ',
        periodMs: period * S,
        burstDeadlineMs: len * S,
        ...(alpha === undefined
          ? { demand: { vcoreSeconds: vcores * len, memoryMBSeconds: memory * len * 512 } }
          : {
              alpha,
              distribution: {
                vcoreSeconds: { kind: 'normal', mean: vcores * len, std: len },
                memoryMBSeconds: { kind: 'uniform', min: 0, max: memory * len * 512 },
                correlation: 'independent',
              },
            }),
        ...(first === undefined ? {} : { firstArrivalMs: first * S }),
      })),
  );

/** An operation on both controls: admit (names drawn from a few, so re-admissions happen), evaluate, remove, or read back the book. */
const arbOp = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 11 }).chain((k) => arbSpec(`q${k}`).map((spec) => ({ op: 'admit' as const, spec }))) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 11 }).chain((k) => arbSpec(`q${k}`).map((spec) => ({ op: 'evaluate' as const, spec }))) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 11 }).map((k) => ({ op: 'remove' as const, name: `q${k}` })) },
  { weight: 1, arbitrary: fc.constant({ op: 'book' as const }) },
);

const decisionJson = (d: AdmissionDecision) => ({
  name: d.name,
  kind: d.kind,
  cls: d.cls,
  n: d.queuesIfAdmitted,
  checks: d.checks.map((c) => ({ ...c })),
  demand: d.demand,
  demandHow: d.demandHow,
  reason: d.reason,
});

const listed = (c: { queues(): readonly { spec: QueueSpec; cls: string; demand: unknown; reason: string }[] }) =>
  c.queues().map((q) => ({ spec: q.spec, cls: q.cls, demand: q.demand, reason: q.reason }));

describe('admission on columns', () => {
  it('decides, lists and writes its book exactly as the object-based control', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('bopf' as const, 'nbopf' as const),
        fc.record({ vcores: fc.integer({ min: 1, max: 200 }), memoryMB: fc.integer({ min: 1, max: 200 }).map((x) => x * 1024) }),
        fc.array(arbOp, { maxLength: 40 }),
        (variant, capacity, ops) => {
          let got = new AdmissionControl(capacity, { variant, maxHorizonMs: 600 * S });
          let want = new ReferenceAdmissionControl(capacity, { variant, maxHorizonMs: 600 * S });
          for (const o of ops) {
            if (o.op === 'admit' || o.op === 'evaluate') {
              // Some decisions are read at once, some only after later admissions changed the control.
              expect(decisionJson(got[o.op](o.spec))).toEqual(decisionJson(want[o.op](o.spec)));
            } else if (o.op === 'remove') {
              expect(got.remove(o.name)).toBe(want.remove(o.name));
            } else {
              const book = got.toBook();
              expect(JSON.parse(JSON.stringify(book))).toEqual(JSON.parse(JSON.stringify(want.toBook())));
              got = AdmissionControl.fromBook(book, { maxHorizonMs: 600 * S });
              want = ReferenceAdmissionControl.fromBook(want.toBook(), { maxHorizonMs: 600 * S });
            }
            expect(got.size).toBe(want.size);
          }
          expect(listed(got)).toEqual(listed(want));
          for (const q of want.queues()) expect(got.get(q.spec.name)!.reason).toBe(q.reason);
          expect(JSON.parse(JSON.stringify(got.toBook()))).toEqual(JSON.parse(JSON.stringify(want.toBook())));
        },
      ),
      { numRuns: 400, seed: 24 },
    );
  });

  it('hands out one object per admitted queue, the same on every read', () => {
    const c = new AdmissionControl({ vcores: 10, memoryMB: 10_240 });
    c.admit({ name: 'a', kind: 'LQ', periodMs: 100_000, burstDeadlineMs: 10_000, demand: { vcoreSeconds: 80, memoryMBSeconds: 0 } });
    c.admit({ name: 't', kind: 'TQ' });
    expect(c.get('a')).toBe(c.queues()[0]);
    expect(c.queues()).toBe(c.queues());
    expect(c.get('a')!.reason).toMatch(/^hard: safety holds/);
  });
});
