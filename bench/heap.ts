/**
 * The simulator's event queue against heap-js (docs/benchmarks.md, "One priority queue").
 *
 * Records every push, pop and removal the simulator's event queue makes in a replay (Kairos on
 * the Yahoo excerpt by default, where most completions are superseded and taken out), then
 * replays that sequence on each candidate and reports the best of N:
 *
 * - `EventQueue` (src/core/heap.ts): slots known to their events, removal in O(log n);
 * - heap-js `Heap` with its own `remove` (a linear search for the event);
 * - heap-js `Heap` with removal by marking: a removed event stays until it reaches the top.
 *
 *   npx tsx bench/heap.ts [--runs 5] [--policy kairos] [--max-jobs N] [--trace PATH] [--nodes 4000]
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Heap } from 'heap-js';
import { getPolicy } from '../src/policies/index.js';
import { EventQueue, type SimEvent } from '../src/core/heap.js';
import { settleJitForReplays } from '../src/sim/jit.js';
import { simulate } from '../src/sim/simulate.js';
import { loadEagleTrace } from '../src/sim/workloads/eagle.js';

settleJitForReplays();
const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    policy: { type: 'string', default: 'kairos' },
    'max-jobs': { type: 'string' },
    trace: { type: 'string' },
    nodes: { type: 'string', default: '4000' },
    'budget-s': { type: 'string', default: '60' },
  },
});
const runs = Number(args.runs);
const budgetMs = Number(args['budget-s']) * 1000;

// ---- record: op codes 0 push, 1 pop, 2 remove; events numbered in order of first push
const PUSH = 0;
const POP = 1;
const REMOVE = 2;
const ops: number[] = [];
const opEvent: number[] = [];
const evT: number[] = [];
const evSeq: number[] = [];
const ids = new WeakMap<object, number>();
type Queue = { push(e: SimEvent): void; pop(): SimEvent | undefined; remove(e: SimEvent): boolean };
const proto = EventQueue.prototype as unknown as Queue;
const original = { push: proto.push, pop: proto.pop, remove: proto.remove };
proto.push = function (this: Queue, e: SimEvent): void {
  // An event object is pushed again after it left the queue (the simulator reuses them): a new number.
  const id = evT.length;
  ids.set(e, id);
  evT.push(e.t);
  evSeq.push(e.seq);
  ops.push(PUSH);
  opEvent.push(id);
  original.push.call(this, e);
};
proto.pop = function (this: Queue): SimEvent | undefined {
  const e = original.pop.call(this);
  if (e !== undefined) {
    ops.push(POP);
    opEvent.push(ids.get(e) as number);
  }
  return e;
};
proto.remove = function (this: Queue, e: SimEvent): boolean {
  const done = original.remove.call(this, e);
  if (done) {
    ops.push(REMOVE);
    opEvent.push(ids.get(e) as number);
  }
  return done;
};

const trace = args.trace ?? fileURLToPath(new URL('../../shared/traces/yahoo-sub-3363.tr', import.meta.url));
const workload = loadEagleTrace(trace, { maxJobs: args['max-jobs'] === undefined ? undefined : Number(args['max-jobs']) });
const policy = getPolicy(args.policy);
if (!policy) throw new Error(`unknown policy ${args.policy}`);
const r = simulate({ workload, policy, nodes: Number(args.nodes), cores: 1 });
Object.assign(proto, original);
const counts = [0, 0, 0];
for (const op of ops) counts[op]++;
console.log(
  `${args.policy} on ${workload.name}, ${r.nodes} nodes: ${r.events.toLocaleString('en')} events; queue operations: ${counts[PUSH].toLocaleString('en')} push, ${counts[POP].toLocaleString('en')} pop, ${counts[REMOVE].toLocaleString('en')} remove`,
);

// ---- replay
interface Ev {
  t: number;
  seq: number;
  heapIndex: number;
  removed: boolean;
}
const events: Ev[] = evT.map((t, i) => ({ t, seq: evSeq[i], heapIndex: -1, removed: false }));
const fresh = (): void => {
  for (const e of events) {
    e.heapIndex = -1;
    e.removed = false;
  }
};
const before = (a: Ev, b: Ev): number => a.t - b.t || a.seq - b.seq;

type Candidate = { name: string; run: (deadline: number) => number | undefined };
const candidates: Candidate[] = [
  {
    name: 'EventQueue (src/core/heap.ts)',
    run: () => {
      const q = new EventQueue<Ev>();
      let check = 0;
      for (let i = 0; i < ops.length; i++) {
        const e = events[opEvent[i]];
        if (ops[i] === PUSH) q.push(e);
        else if (ops[i] === POP) check = (check * 31 + (q.pop() as Ev).seq) | 0;
        else q.remove(e);
      }
      return check;
    },
  },
  {
    name: 'heap-js, remove() (linear search)',
    run: (deadline) => {
      const q = new Heap<Ev>(before);
      let check = 0;
      for (let i = 0; i < ops.length; i++) {
        const e = events[opEvent[i]];
        if (ops[i] === PUSH) q.push(e);
        else if (ops[i] === POP) check = (check * 31 + (q.pop() as Ev).seq) | 0;
        else q.remove(e);
        if ((i & 0xffff) === 0 && performance.now() > deadline) return undefined;
      }
      return check;
    },
  },
  {
    name: 'heap-js, removal by marking',
    run: () => {
      const q = new Heap<Ev>(before);
      let check = 0;
      for (let i = 0; i < ops.length; i++) {
        const e = events[opEvent[i]];
        if (ops[i] === PUSH) q.push(e);
        else if (ops[i] === POP) {
          let top = q.pop() as Ev;
          while (top.removed) top = q.pop() as Ev;
          check = (check * 31 + top.seq) | 0;
        } else e.removed = true;
      }
      return check;
    },
  },
];

const expected = (() => {
  fresh();
  return candidates[0].run(Infinity);
})();
for (const c of candidates) {
  const times: number[] = [];
  let outcome = '';
  for (let k = 0; k < runs + 1; k++) {
    fresh();
    const t0 = performance.now();
    const check = c.run(t0 + budgetMs);
    const ms = performance.now() - t0;
    if (check === undefined) {
      outcome = `over ${budgetMs / 1000} s, abandoned`;
      break;
    }
    if (check !== expected) throw new Error(`${c.name} popped the events in another order`);
    if (k > 0) times.push(ms); // the first run warms up
  }
  const best = times.length ? Math.min(...times) : NaN;
  console.log(`${c.name}: ${outcome || `best ${best.toFixed(1)} ms, median ${times.sort((a, b) => a - b)[times.length >> 1].toFixed(1)} ms of ${runs}`}`);
}
