/**
 * Helpers shared by the integration files (they all run against one mini YARN, one after another).
 */
import { inject } from 'vitest';

/**
 * Polls `probe` until it yields a value (anything but undefined or false). On timeout the error
 * names what was awaited, the probe's last error, and `diag`'s account of the state.
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 120_000,
  everyMs = 250,
  diag?: () => string | Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== false) return v as T;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}${diag ? `\n${await diag()}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The shim URL the global setup reports; undefined when the cluster runs without the shim. */
export function shimUrl(): string | undefined {
  return inject('shimUrl') || undefined;
}
