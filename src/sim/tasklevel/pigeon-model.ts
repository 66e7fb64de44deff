/**
 * Pigeon's analytic model (§3, Eq. 1–6): one class of jobs, Poisson arrivals at rate λ, F ≤ N_g
 * tasks per job with exponential durations of mean T_e, each master an M/M/N_w queue fed at
 * λ_t = λ·F/N_g; and Sparrow's job-zero-queueing probability with 2F probes (Eq. 4).
 */

export interface GroupModel {
  /** Workers per group, N_w. */
  readonly groupSize: number;
  /** Worker utilisation ρ = λ_t·T_e / N_w, in (0, 1). */
  readonly load: number;
  /** Mean task duration T_e (any unit; waits come out in the same unit). */
  readonly meanTask: number;
}

/** Eq. 1: probability that a task finds an idle worker in its group (1 − Erlang C). */
export function taskZeroQueueing({ groupSize: n, load: rho }: GroupModel): number {
  if (!(rho > 0 && rho < 1)) throw new RangeError(`load must be in (0, 1), got ${rho}`);
  // (N!/(Nρ)^N)·Σ_{k<N} (Nρ)^k/k! summed as Σ_{k<N} Π_{j=k+1..N} j/(Nρ), from k = N−1 down, so no
  // factorial or power overflows.
  const a = n * rho;
  let term = 1;
  let sum = 0;
  for (let k = n - 1; k >= 0; k--) {
    term *= (k + 1) / a;
    sum += term;
  }
  return 1 - 1 / (1 + (1 - rho) * sum);
}

/** Eq. 2: mean queueing time of a task at its master. */
export function taskMeanQueueing(m: GroupModel): number {
  const arrivalRate = (m.load * m.groupSize) / m.meanTask;
  return (1 - taskZeroQueueing(m)) / (m.groupSize / m.meanTask - arrivalRate);
}

/** Eq. 3: a job of F equal tasks sees no queueing when none of its tasks does. */
export function jobZeroQueueingEqualTasks(m: GroupModel, fanout: number): number {
  return taskZeroQueueing(m) ** fanout;
}

/** Eq. 6: with exponential task durations, the longest task starts at once and outlasts the second longest by more than the mean wait. */
export function jobZeroQueueing(m: GroupModel): number {
  return taskZeroQueueing(m) * Math.exp(-taskMeanQueueing(m) / m.meanTask);
}

/** Eq. 4: Sparrow, 2F probes on workers busy with probability ρ: at least F of them idle. */
export function sparrowJobZeroQueueing(load: number, fanout: number): number {
  const n = 2 * fanout;
  let p = 0;
  let binom = 1; // C(2F, i), updated as i grows
  for (let i = 0; i <= n; i++) {
    if (i > 0) binom = (binom * (n - i + 1)) / i;
    if (i >= fanout) p += binom * (1 - load) ** i * load ** (n - i);
  }
  return p;
}
