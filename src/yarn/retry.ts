/**
 * Bounded retry with exponential backoff and full jitter, for calls to the ResourceManager.
 * Jitter matters because several brains (or one brain's parallel reads) hitting a restarting RM
 * at the same instants would otherwise retry in lock-step.
 */

export interface RetryPolicy {
  /** Total attempts including the first one (>= 1). */
  readonly maxAttempts: number;
  /** Backoff ceiling before jitter for the first retry; doubles each retry. */
  readonly baseDelayMs: number;
  /** Upper bound of any single backoff. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 200, maxDelayMs: 3_000 };

export interface RetryHooks {
  /** Whether this error is worth another attempt. */
  readonly isRetryable: (err: unknown) => boolean;
  /** Called before sleeping, for logging. */
  readonly onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  /** Injectable for tests: returns a number in [0, 1). */
  readonly random?: () => number;
  /** Injectable for tests. */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Full-jitter backoff (AWS architecture blog): uniform in [0, min(max, base * 2^(attempt-1))]. */
export function backoffDelayMs(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `fn` until it succeeds, fails with a non-retryable error, or `maxAttempts` is reached;
 * the last error is rethrown as is (callers map it to a typed error).
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, policy: RetryPolicy, hooks: RetryHooks): Promise<T> {
  const attempts = Math.max(1, Math.floor(policy.maxAttempts));
  const sleep = hooks.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= attempts || !hooks.isRetryable(err)) throw err;
      const delayMs = backoffDelayMs(policy, attempt, hooks.random);
      hooks.onRetry?.(err, attempt, delayMs);
      await sleep(delayMs);
    }
  }
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapWithConcurrency<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker);
  await Promise.all(workers);
  return results;
}
