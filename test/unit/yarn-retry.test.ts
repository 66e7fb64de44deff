import { describe, expect, it } from 'vitest';
import { backoffDelayMs, mapWithConcurrency, withRetry } from '../../src/yarn/retry.js';

const policy = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1_000 };

describe('backoffDelayMs', () => {
  it('doubles the ceiling per attempt, capped, with full jitter', () => {
    const top = () => 0.999999;
    expect(backoffDelayMs(policy, 1, top)).toBe(99);
    expect(backoffDelayMs(policy, 2, top)).toBe(199);
    expect(backoffDelayMs(policy, 3, top)).toBe(399);
    expect(backoffDelayMs(policy, 10, top)).toBe(999);
    expect(backoffDelayMs(policy, 3, () => 0)).toBe(0);
  });
});

describe('withRetry', () => {
  const noSleep = { sleep: async () => {}, random: () => 0.5 };

  it('retries retryable failures until success', async () => {
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        if (calls < 3) throw new Error('transient');
        return 'ok';
      },
      policy,
      { isRetryable: () => true, ...noSleep },
    );
    expect(result).toBe('ok');
    expect(calls).toBe(3);
  });

  it('gives up after maxAttempts and rethrows the last error', async () => {
    let calls = 0;
    const delays: number[] = [];
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new Error(`fail ${calls}`);
        },
        policy,
        { isRetryable: () => true, onRetry: (_e, _a, d) => delays.push(d), ...noSleep },
      ),
    ).rejects.toThrow('fail 4');
    expect(calls).toBe(4);
    expect(delays).toEqual([50, 100, 200]);
  });

  it('does not retry a non-retryable error', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new Error('fatal');
        },
        policy,
        { isRetryable: () => false, ...noSleep },
      ),
    ).rejects.toThrow('fatal');
    expect(calls).toBe(1);
  });
});

describe('mapWithConcurrency', () => {
  it('keeps order and never exceeds the limit', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapWithConcurrency([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 5 * (8 - n)));
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([10, 20, 30, 40, 50, 60, 70]);
    expect(peak).toBe(3);
  });

  it('handles an empty list', async () => {
    expect(await mapWithConcurrency([], 4, async (n: number) => n)).toEqual([]);
  });
});
