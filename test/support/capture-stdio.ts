/** Captures what a command writes to stdout and stderr (until `vi.restoreAllMocks()`). */
import { vi } from 'vitest';

export function captureStdio(): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  return { out: () => out, err: () => err };
}
