/**
 * 3Sigma's costs (§6.5 and Fig. 12 of the paper):
 * - 3σPredict: one prediction, and one runtime learned, with 100,000 runtimes in its history;
 * - 3σSched: one plan of 200 pending jobs — the MILP built (`cycleProblem`) and solved
 *   (`solvePlan`) with the replay limits (node limit, no time limit), with a time limit, and the
 *   greedy packing it starts from — on one equivalence set (the policy's plan) and on 20;
 * - one policy cycle at the paper's scale: 12,583 nodes, 4,000 jobs an hour at load 0.95.
 * Also the before/after comparison of the solver settings on fifteen plans of 10 to 200 jobs
 * (`--compare`, figures in docs/benchmarks.md).
 *
 *   npx tsx bench/threesigma.ts [--runs 3] [--time-limit-ms 500] [--write] [--compare] [--cycle]
 *   npm run bench -- --threesigma [same options]
 *   --write replaces `## 3Sigma` in docs/benchmarks.md; --cycle measures only the one cycle on
 *   20 sets, with the cycle budget (`solver.cycleBudgetMs`) and without it, and prints one line
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { AppView, ContainerView, NodeView, QueueView } from '../src/core/model.js';
import { runStepsOffThread } from '../src/core/milp.js';
import { buildSnapshot } from '../src/core/snapshot.js';
import { WorkerMilpSolver } from '../src/engine/milp-solver.js';
import { fromHistogram, type RuntimeDistribution } from '../src/policies/threesigma/distribution.js';
import type { JobDescription } from '../src/policies/threesigma/features.js';
import { addSample, emptyHistogram } from '../src/policies/threesigma/histogram.js';
import { solveGreedy, solvePlan, type PlanProblem, type SolverLimits } from '../src/policies/threesigma/milp.js';
import { threeSigmaParamsSchema, SLO_DEADLINE_TAG, type ThreeSigmaParams } from '../src/policies/threesigma/params.js';
import { cycleProblem, planCycle, planCycleSteps, type JobToPlan, type PlanNodes, type RunningJobToPlan } from '../src/policies/threesigma/plan.js';
import { emptyPredictor, learnRuntime, predictRuntime, type PredictorState } from '../src/policies/threesigma/predictor.js';
import { threeSigmaPolicy, type ThreeSigmaState } from '../src/policies/threesigma/policy.js';
import { cpuMs, median, writeBenchSection } from './measure.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const NOW = 10 * HOUR;

/** A deterministic generator (a linear congruential one: the figures are reproducible). */
function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** Twenty runtime classes (2 to 30.5 min), each a histogram of 500 log-spread runtimes. */
function runtimeClasses(rnd: () => number): RuntimeDistribution[] {
  return Array.from({ length: 20 }, (_, c) => {
    const h = emptyHistogram(80);
    const base = (2 + c * 1.5) * MIN;
    for (let i = 0; i < 500; i++) addSample(h, Math.round(base * Math.exp((rnd() - 0.5) * 1.5)));
    return fromHistogram(h);
  });
}

/**
 * A cycle's jobs: `pending` jobs, half SLO (deadlines 5 to 45 min ahead) and half best-effort,
 * each 0.5 to 5.5 % of the cluster per resource; half as many running jobs holding 80 % of it.
 */
export function planInstance(pending: number, seed: number): { pending: JobToPlan[]; running: RunningJobToPlan[] } {
  const rnd = random(seed);
  const classes = runtimeClasses(rnd);
  const jobs: JobToPlan[] = Array.from({ length: pending }, (_, j) => {
    const slo = j % 2 === 0;
    return {
      id: `j${j}`,
      kind: slo ? 'slo' : 'bestEffort',
      submittedAtMs: NOW - Math.floor(rnd() * 10 * MIN),
      ...(slo ? { deadlineMs: NOW + Math.floor((5 + rnd() * 40) * MIN) } : {}),
      demand: [0.005 + rnd() * 0.05, 0.005 + rnd() * 0.05],
      distribution: classes[j % 20],
    };
  });
  const runningCount = Math.round(pending / 2);
  const share = 0.8 / runningCount;
  const running: RunningJobToPlan[] = Array.from({ length: runningCount }, (_, j) => ({
    id: `r${j}`,
    kind: j % 2 ? 'slo' : 'bestEffort',
    submittedAtMs: NOW - 30 * MIN,
    ...(j % 2 ? { deadlineMs: NOW + 10 * MIN } : {}),
    demand: [share, share],
    distribution: classes[j % 20],
    runningSinceMs: NOW - Math.floor(rnd() * 10 * MIN),
  }));
  return { pending: jobs, running };
}

/**
 * A cycle on `sets` equivalence sets of equal size (each one node of the plan, 1/sets of the
 * cluster), planned by the policy's own `cycleProblem`: running jobs hold 80 % of every set at
 * first (four per set, 20 % of it each); half the pending jobs are SLO jobs that prefer 75 % of the
 * sets and run 1.5× longer elsewhere, their preferred sets drawn from `distinctPreferred` choices
 * (jobs of the same kind share them, so shared sets get capacity rows); demands are 5 to 50 % of one set.
 */
export function equivalenceSetInstance(
  pendingCount: number,
  sets: number,
  seed: number,
  distinctPreferred = 10,
): { pending: JobToPlan[]; running: RunningJobToPlan[]; nodes: PlanNodes } {
  const rnd = random(seed);
  const classes = runtimeClasses(rnd);
  const share = 1 / sets;
  const nodes: PlanNodes = { capacity: Array.from({ length: sets }, () => [share, share]) };
  const running: RunningJobToPlan[] = [];
  for (let e = 0; e < sets; e++)
    for (let k = 0; k < 4; k++)
      running.push({
        id: `r${e}-${k}`,
        kind: 'bestEffort',
        submittedAtMs: NOW - 5 * MIN,
        demand: [0.2 * share, 0.2 * share],
        distribution: classes[(e * 4 + k) % 20],
        runningSinceMs: NOW,
        holdings: [{ node: e, share: [0.2 * share, 0.2 * share] }],
      });
  const choices = Array.from({ length: distinctPreferred }, (_, c) => {
    const preferred = new Set<number>();
    while (preferred.size < Math.round(sets * 0.75)) preferred.add(Math.floor(rnd() * sets));
    const list = [...preferred].sort((x, y) => x - y);
    return { nodes: list, key: `choice-${c}`, slowdown: 1.5 };
  });
  const pending: JobToPlan[] = [];
  for (let j = 0; j < pendingCount; j++) {
    const slo = j % 2 === 0;
    pending.push({
      id: `j${j}`,
      kind: slo ? 'slo' : 'bestEffort',
      submittedAtMs: NOW - Math.floor(rnd() * 10 * MIN),
      ...(slo ? { deadlineMs: NOW + Math.floor((5 + rnd() * 40) * MIN) } : {}),
      demand: [(0.05 + rnd() * 0.45) * share, (0.05 + rnd() * 0.45) * share],
      distribution: classes[j % 20],
      ...(slo ? { preferred: choices[Math.floor(rnd() * distinctPreferred)] } : {}),
    });
  }
  return { pending, running, nodes };
}

interface SolveFigures {
  chosen: number[];
  preempted: boolean[];
  solveMs: number;
  cpuMs: number;
  objective: number;
  status: string;
  gap?: number;
}

function timedSolve(problem: PlanProblem, limits: SolverLimits): SolveFigures {
  let out: SolveFigures = { chosen: [], preempted: [], solveMs: 0, cpuMs: 0, objective: 0, status: '' };
  const cpu = cpuMs(() => {
    const s = solvePlan(problem, limits);
    out = {
      chosen: s.chosen,
      preempted: s.preempted,
      solveMs: s.solveMs,
      cpuMs: 0,
      objective: s.objective,
      status: s.status,
      ...(s.mipGap !== undefined ? { gap: s.mipGap } : {}),
    };
  });
  return { ...out, cpuMs: cpu };
}

/** 100,000 runtimes of 2,000 kinds of job (20 users, 100 names, 4 queues), learned in order. */
export function bigHistory(p: ThreeSigmaParams): { predictor: PredictorState; jobs: JobDescription[] } {
  const rnd = random(11);
  const predictor = emptyPredictor();
  const jobs: JobDescription[] = [];
  for (let i = 0; i < 2000; i++)
    jobs.push({
      user: `u${i % 20}`,
      queue: `root.q${i % 4}`,
      name: `job-${i % 100}-daily`,
      tags: {},
      containers: 1 + (i % 64),
      containerMemoryMB: 1024 * (1 + (i % 4)),
      containerVcores: 1 + (i % 2),
      submittedAtMs: NOW + (i % 24) * HOUR,
      priority: i % 3,
    });
  for (let k = 0; k < 100_000; k++) {
    const job = jobs[k % jobs.length];
    learnRuntime(predictor, job, Math.round((1 + (k % 7)) * MIN * Math.exp(rnd() - 0.5)), p.predictor);
  }
  return { predictor, jobs };
}

/** A snapshot at the paper's scale: 12,583 one-slot nodes, 4,000 jobs an hour at load 0.95. */
export function paperScaleSnapshot(pendingJobs: number): { snapshot: ReturnType<typeof buildSnapshot>; running: number; containers: number } {
  const NODES = 12_583;
  // Little's law: 4,000 jobs/h × 10 min mean = 667 jobs running; at load 0.95, 18 tasks each.
  const RUNNING = 667;
  const TASKS = Math.floor((NODES * 0.95) / RUNNING);
  const r = { vcores: 1, memoryMB: 4096 };
  const nodes: NodeView[] = Array.from({ length: NODES }, (_, i) => ({
    id: `n${i}`,
    state: 'RUNNING' as const,
    rack: `/r${i % 64}`,
    capacity: r,
    physicalCapacity: r,
    used: { memoryMB: 0, vcores: 0 },
    containerIds: [],
  }));
  const apps: AppView[] = [];
  const containers: ContainerView[] = [];
  const rnd = random(5);
  let node = 0;
  for (let a = 0; a < RUNNING + pendingJobs; a++) {
    const running = a < RUNNING;
    const slo = a % 2 === 0;
    const id = `application_1_${a}`;
    apps.push({
      id,
      name: `job-${a % 100}-daily`,
      user: `u${a % 20}`,
      queue: `root.q${a % 4}`,
      state: 'RUNNING',
      priority: 1,
      submittedAtMs: NOW - Math.floor(rnd() * 30 * MIN),
      startedAtMs: NOW - 30 * MIN,
      pendingContainers: running ? 0 : TASKS,
      pendingContainerResource: { vcores: 1, memoryMB: 4096 },
      runningContainers: running ? TASKS : 0,
      allocated: running ? { vcores: TASKS, memoryMB: TASKS * 4096 } : { vcores: 0, memoryMB: 0 },
      tags: slo ? { [SLO_DEADLINE_TAG]: String(NOW + Math.floor((5 + rnd() * 40) * MIN)) } : {},
    });
    if (running)
      for (let t = 0; t < TASKS; t++)
        containers.push({
          id: `container_1_${a}_${t}`,
          appId: id,
          nodeId: `n${node++ % NODES}`,
          resource: { vcores: 1, memoryMB: 4096 },
          state: 'RUNNING',
          startedAtMs: NOW - Math.floor(rnd() * 10 * MIN),
        });
  }
  const rootQueue: QueueView = {
    path: 'root',
    name: 'root',
    state: 'RUNNING',
    capacityPct: 100,
    maxCapacityPct: 100,
    absoluteCapacityPct: 100,
    absoluteMaxCapacityPct: 100,
    usedCapacityPct: 0,
    used: { memoryMB: 0, vcores: 0 },
    numApplications: 0,
    children: [],
  };
  return { snapshot: buildSnapshot({ nowMs: NOW, nodes, apps, containers, rootQueue }), running: RUNNING, containers: containers.length };
}

/**
 * The target: one cycle on 20 equivalence sets (200 pending jobs) in wall time, `planCycle` with
 * the policy's defaults — the cycle budget counted from its call — and, alternating with it, the
 * same without a budget (the fixed `solver.timeLimitMs` alone, as before budgets).
 */
async function oneCycleText(runs: number, defaults: ThreeSigmaParams, load: () => string): Promise<string> {
  const sets = equivalenceSetInstance(200, 20, 7919);
  const noBudget = threeSigmaParamsSchema.parse({ ...defaults, solver: { ...defaults.solver, cycleBudgetMs: null } });
  const budgeted: { ms: number; status: string }[] = [];
  const fixed: number[] = [];
  const worker: { ms: number; status: string }[] = [];
  const loads: string[] = [];
  // The engine's way: the same steps, the solve in a worker that is stopped when the budget ends.
  const solver = new WorkerMilpSolver();
  await solver.warm();
  planCycle(NOW, sets.pending, sets.running, noBudget, { startMs: {} }, sets.nodes); // warm-up: the WebAssembly compiles its hot paths
  await runStepsOffThread(planCycleSteps(NOW, sets.pending, sets.running, defaults, { startMs: {} }, sets.nodes), solver);
  for (let r = 0; r < runs; r++) {
    loads.push(load());
    let t0 = performance.now();
    const plan = planCycle(NOW, sets.pending, sets.running, defaults, { startMs: {} }, sets.nodes);
    budgeted.push({ ms: performance.now() - t0, status: plan.solution.status });
    t0 = performance.now();
    planCycle(NOW, sets.pending, sets.running, noBudget, { startMs: {} }, sets.nodes);
    fixed.push(performance.now() - t0);
    t0 = performance.now();
    const off = await runStepsOffThread(planCycleSteps(NOW, sets.pending, sets.running, defaults, { startMs: {} }, sets.nodes), solver);
    worker.push({ ms: performance.now() - t0, status: off.solution.status });
  }
  await solver.close();
  const spent = budgeted.filter((b) => b.status.startsWith('cycle budget spent')).length;
  const ms = budgeted.map((b) => b.ms);
  const wms = worker.map((b) => b.ms);
  const stopped = worker.filter((b) => b.status.startsWith('cycle budget spent')).length;
  return (
    `**One cycle on 20 equivalence sets, 200 pending jobs** (the first 20-set row’s jobs; \`planCycle\`: MILP built and solved), wall time, ${runs} runs at load ${loads.join(', ')}: ` +
    `with the cycle budget (\`solver.cycleBudgetMs: ${defaults.solver.cycleBudgetMs}\`, time limit at most ${defaults.solver.timeLimitMs} ms) median ${f0(median(ms))} ms, max ${f0(Math.max(...ms))} ms ` +
    `(${ms.map(f0).join(', ')}; ${spent} of ${runs} kept the warm start, the budget spent before the solve); ` +
    `without it (\`cycleBudgetMs: null\`, the fixed ${defaults.solver.timeLimitMs} ms limit) median ${f0(median(fixed))} ms, max ${f0(Math.max(...fixed))} ms (${fixed.map(f0).join(', ')}); ` +
    `as the engine runs it (the budget, the solve in a worker that the cycle goes on without once the budget ends, turns of the event loop) median ${f0(median(wms))} ms, max ${f0(Math.max(...wms))} ms (${wms.map(f0).join(', ')}; ${stopped} of ${runs} ended on the warm start).`
  );
}

/** Where a long run is, on stderr (the figures go to stdout). */
const progress = (what: string): void => void process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${what}\n`);

const f0 = (x: number): string => x.toFixed(0);
const f3 = (x: number): string => x.toFixed(3);
const gapText = (g: number | undefined): string => (g === undefined ? '—' : `${(g * 100).toFixed(2)} %`);

export async function runThreeSigmaBench(argv: string[]): Promise<void> {
  const { values: args } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string' },
      write: { type: 'boolean', default: false },
      'time-limit-ms': { type: 'string' },
      compare: { type: 'boolean', default: false },
      cycle: { type: 'boolean', default: false },
    },
  });
  const runs = Number(args.runs || 3) || 3;
  const defaults = threeSigmaParamsSchema.parse({});
  const timeLimitMs = Number(args['time-limit-ms'] || defaults.solver.timeLimitMs) || 500;
  // Replay limits: the node limit only (what simulated runs use).
  const p = threeSigmaParamsSchema.parse({ solver: { timeLimitMs: null } });
  const replayLimits: SolverLimits = { maxNodes: p.solver.maxNodes, relativeGap: p.solver.relativeGap };
  const liveLimits: SolverLimits = { ...replayLimits, timeLimitMs };
  const load = (): string => os.loadavg()[0].toFixed(1);

  if (args.compare) {
    // The fifteen plans behind the solver settings' comparison (docs/benchmarks.md).
    for (const n of [10, 30, 60, 100, 200])
      for (const s of [1, 2, 3]) {
        const inst = planInstance(n, s * 7919);
        const cp = cycleProblem(NOW, inst.pending, inst.running, p);
        const x = timedSolve(cp.problem, replayLimits);
        console.log(`${n} jobs, seed ${s}: objective ${x.objective.toFixed(5)} (${x.status}), ${f0(x.cpuMs)} ms CPU, load ${load()}`);
      }
    return;
  }

  if (args.cycle) {
    console.log(await oneCycleText(runs, defaults, load));
    return;
  }

  progress('3σPredict: learning 100,000 runtimes');
  // --- 3σPredict --------------------------------------------------------------------------------
  const { predictor, jobs } = bigHistory(p);
  const predictUs: number[] = [];
  for (let r = 0; r <= runs; r++) {
    const ms = cpuMs(() => {
      for (const job of jobs) predictRuntime(predictor, job, p.predictor);
    });
    if (r > 0) predictUs.push((ms * 1000) / jobs.length);
  }
  const learnUs: number[] = [];
  for (let r = 0; r <= runs; r++) {
    const copy: PredictorState = structuredClone(predictor);
    const ms = cpuMs(() => {
      for (let i = 0; i < 2000; i++) learnRuntime(copy, jobs[i], 5 * MIN + i, p.predictor);
    });
    if (r > 0) learnUs.push((ms * 1000) / 2000);
  }

  progress('3σSched: 200 jobs, one set');
  // --- 3σSched, one set --------------------------------------------------------------------------
  type Row = { what: string; columns: number; rows: number; buildMs: number; greedy: number; replay: SolveFigures; live: SolveFigures; lastPlan: SolveFigures };
  const rows: Row[] = [];
  {
    const inst = planInstance(200, 7919);
    const buildMs: number[] = [];
    let cp = cycleProblem(NOW, inst.pending, inst.running, p);
    for (let r = 0; r <= runs; r++) {
      const ms = cpuMs(() => {
        cp = cycleProblem(NOW, inst.pending, inst.running, p);
      });
      if (r > 0) buildMs.push(ms);
    }
    timedSolve(cp.problem, replayLimits); // warm-up: the WebAssembly compiles its hot paths
    const replay = timedSolve(cp.problem, replayLimits);
    const live = timedSolve(cp.problem, liveLimits);
    // The next cycle at the same time, as the policy sees it once the replay's plan is applied:
    // the jobs it preempts wait again, and the solve starts from its planned starts (§4.3.6).
    const preemptedIds = new Set(cp.preemptable.filter((_, k) => replay.preempted[k]).map((i) => inst.running[i].id));
    const seedStartMs: Record<string, number> = {};
    inst.pending.forEach((job, j) => {
      const o = replay.chosen[j];
      if (o >= 0) seedStartMs[job.id] = NOW + cp.optionStart[o] * p.sliceMs;
    });
    const waitingAgain: JobToPlan[] = inst.running.filter((r) => preemptedIds.has(r.id)).map(({ runningSinceMs: _since, ...job }) => job);
    const next = cycleProblem(
      NOW,
      [...inst.pending, ...waitingAgain],
      inst.running.filter((r) => !preemptedIds.has(r.id)),
      p,
      { startMs: seedStartMs },
    );
    const lastPlan = timedSolve(next.problem, liveLimits);
    const size = solveGreedy(cp.problem, 'size');
    rows.push({
      what: '200 pending jobs, 100 running, 1 equivalence set (the policy’s plan)',
      columns: size.columns,
      rows: size.rows,
      buildMs: median(buildMs),
      greedy: size.objective,
      replay,
      live,
      lastPlan,
    });
  }
  progress('3σSched: 200 jobs, 20 sets');
  // --- 3σSched, 20 sets --------------------------------------------------------------------------
  const setsRow = (what: string, make: () => PlanProblem): Row => {
    let problem = make();
    const buildMs = cpuMs(() => {
      problem = make();
    });
    const replay = timedSolve(problem, replayLimits);
    const live = timedSolve(problem, liveLimits);
    // No preemption here: the replay's plan is the next cycle's start as it stands.
    const lastPlan = timedSolve({ ...problem, seed: replay.chosen }, liveLimits);
    const size = solveGreedy(problem, 'size');
    return { what, columns: size.columns, rows: size.rows, buildMs, greedy: size.objective, replay, live, lastPlan };
  };
  const sets = equivalenceSetInstance(200, 20, 7919);
  const setsProblem = (q: ThreeSigmaParams) => (): PlanProblem => cycleProblem(NOW, sets.pending, sets.running, q, { startMs: {} }, sets.nodes).problem;
  rows.push(
    setsRow(
      '200 pending jobs, 80 running, 20 equivalence sets (SLO jobs prefer 15 of them, 10 distinct choices, 1.5× slower elsewhere): preferred set and anywhere per start, starts every slice to 4 then every second',
      setsProblem(p),
    ),
  );
  progress('3σSched: 200 jobs, 20 sets, every start');
  rows.push(setsRow('the same with a start at every slice (`fineStartSlices: 8`)', setsProblem(threeSigmaParamsSchema.parse({ ...p, fineStartSlices: 8 }))));
  progress('one cycle on 20 sets, with and without the cycle budget');
  const oneCycle = await oneCycleText(runs, defaults, load);

  progress('one cycle at the paper’s scale');
  // --- one policy cycle at the paper's scale -----------------------------------------------------
  const scale = paperScaleSnapshot(300);
  const cycle = (params: ThreeSigmaParams): { cpu: number; note: string } => {
    const state: ThreeSigmaState = { ...threeSigmaPolicy.initialState(params), predictor: structuredClone(predictor) };
    let note = '';
    const cpu = cpuMs(() => {
      note = threeSigmaPolicy.decide({ snapshot: scale.snapshot, params, state }).notes?.at(-1) ?? '';
    });
    return { cpu, note };
  };
  const liveParams = threeSigmaParamsSchema.parse({ solver: { timeLimitMs } });
  cycle(p);
  const paperReplay: number[] = [];
  const paperLive: number[] = [];
  let paperNote = '';
  for (let r = 0; r < runs; r++) {
    const a = cycle(p);
    paperReplay.push(a.cpu);
    paperNote = a.note;
    paperLive.push(cycle(liveParams).cpu);
  }

  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    '## 3Sigma',
    '',
    `Command: \`npm run bench -- --threesigma --runs ${runs}\` (\`bench/threesigma.ts\`) on ${cpu} (${os.cpus().length} cores shared with other work), Node ${process.version}, load average ${load()} at the end of the run. ` +
      'CPU time is process user+system; the solve’s wall time is HiGHS’s own run. Jobs are synthetic and deterministic (the file says how they are drawn).',
    '',
    '**3σPredict** (target: ≤ 1 ms per job with 100,000 history samples): a history of 100,000 runtimes of 2,000 kinds of job ' +
      `(${predictor.size.toLocaleString('en-US')} feature values); CPU per job, median of ${runs} passes over the 2,000 kinds.`,
    '',
    '| what | ours | paper |',
    '|---|---:|---:|',
    `| one prediction (expert chosen by NMAE, its histogram as the distribution) | ${(median(predictUs) / 1000).toFixed(3)} ms | ≤ 14 ms (§6.5, I/O included) |`,
    `| one runtime learned | ${(median(learnUs) / 1000).toFixed(3)} ms | — |`,
    '',
    `**3σSched, one plan** (target: ≤ 1 s with 200 pending jobs and 20 equivalence sets, solver included). "Replay": the policy’s defaults (node limit ${p.solver.maxNodes}, gap ${p.solver.relativeGap * 100} %, no time limit); ` +
      `"time limit": \`solver.timeLimitMs: ${timeLimitMs}\`; "next cycle": the cycle after the replay’s plan is applied (the jobs it preempts wait again; no time passed), its solve started from that plan, under the time limit. ` +
      'Objective: expected utility planned (the greedy packing it starts from beside it).',
    '',
    '| plan | columns × rows | build (CPU) | replay: solve wall / CPU, objective, gap | time limit: solve wall / CPU, objective | next cycle: solve wall, objective | greedy packing |',
    '|---|---:|---:|---|---|---|---:|',
    ...rows.map(
      (x) =>
        `| ${x.what} | ${x.columns.toLocaleString('en-US')} × ${x.rows} | ${f0(x.buildMs)} ms | ${f0(x.replay.solveMs)} / ${f0(x.replay.cpuMs)} ms, ${f3(x.replay.objective)}, ${gapText(x.replay.gap)} (${x.replay.status}) | ` +
        `${f0(x.live.solveMs)} / ${f0(x.live.cpuMs)} ms, ${f3(x.live.objective)} (${x.live.status}) | ${f0(x.lastPlan.solveMs)} ms, ${f3(x.lastPlan.objective)} (${x.lastPlan.status}) | ${f3(x.greedy)} |`,
    ),
    '',
    oneCycle,
    '',
    `**One policy cycle at the paper’s scale** (§6.5: 12,583 nodes, 4,000 jobs/h; Fig. 12(a) reports the cycle, options to solver): ${scale.running} jobs running (${scale.containers.toLocaleString('en-US')} containers), ` +
      `300 pending of which ${p.maxPlannedJobs} are planned, the predictor above. CPU of \`decide\`, median of ${runs}: ` +
      `${f0(median(paperReplay))} ms with the replay limits, ${f0(median(paperLive))} ms with \`solver.timeLimitMs: ${timeLimitMs}\`. Its note: “${paperNote}”.`,
    '',
  ];
  const text = lines.join('\n');
  console.log(text);
  if (args.write) writeBenchSection('## 3Sigma', text);
}

if (import.meta.url === `file://${process.argv[1]}`) await runThreeSigmaBench(process.argv.slice(2));
