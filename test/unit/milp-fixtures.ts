/** Programmes and plans the solver tests share. */
import type { MilpModel } from '../../src/core/milp.js';
import { fromWeighted } from '../../src/policies/threesigma/distribution.js';
import type { JobToPlan, RunningJobToPlan } from '../../src/policies/threesigma/plan.js';

const MIN = 60_000;

/**
 * A multidimensional knapsack (n items, m capacity rows) from a fixed linear congruential
 * sequence. At 100 items in 10 rows HiGHS does not close its gap within seconds.
 */
export function knapsack(n: number, m: number, seed: number): MilpModel {
  let x = seed;
  const rnd = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const w = Array.from({ length: m }, () => Array.from({ length: n }, () => 1 + Math.floor(rnd() * 100)));
  const starts = [0];
  const indices: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      indices.push(i);
      values.push(w[i][j]);
    }
    starts.push(indices.length);
  }
  return {
    sense: 'maximize',
    numCols: n,
    numRows: m,
    colCost: Array.from({ length: n }, (_, j) => w.reduce((s, r) => s + r[j], 0) / m + Math.floor(rnd() * 50)),
    colLower: new Array<number>(n).fill(0),
    colUpper: new Array<number>(n).fill(1),
    rowLower: new Array<number>(m).fill(-Infinity),
    rowUpper: w.map((r) => r.reduce((a, b) => a + b, 0) / 2),
    matrix: { starts, indices, values },
    integer: true,
  };
}

/** Sixteen jobs on a cluster a quarter taken: more options than fit, so the solver has work to do. */
export const sixteenPending: JobToPlan[] = Array.from({ length: 16 }, (_, j) => ({
  id: `j${j}`,
  kind: j % 2 === 0 ? 'slo' : 'bestEffort',
  submittedAtMs: 0,
  ...(j % 2 === 0 ? { deadlineMs: (8 + (j % 7) * 3) * MIN } : {}),
  demand: [0.04 + (j % 5) * 0.01, 0.03 + (j % 3) * 0.02],
  distribution: fromWeighted([(2 + (j % 4)) * MIN, (5 + (j % 6)) * MIN, (9 + (j % 3)) * MIN], [1 + (j % 2), 2, 1]),
}));

/** Ten best-effort jobs running beside `sixteenPending`, a quarter of the cluster in all. */
export const tenRunning: RunningJobToPlan[] = Array.from({ length: 10 }, (_, j) => ({
  id: `r${j}`,
  kind: 'bestEffort',
  submittedAtMs: 0,
  demand: [0.025, 0.025],
  distribution: fromWeighted([4 * MIN, 12 * MIN], [1, 1]),
  runningSinceMs: 0,
}));
