import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** CPU time of `fn` in ms (process user + system, not wall: the machine is shared). */
export function cpuMs(fn: () => void): number {
  const t0 = process.cpuUsage();
  fn();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Puts `text` (which starts with its `## heading` line) in docs/benchmarks.md in place of the
 * section under the same heading, up to the next heading or generator marker; appended when absent.
 */
export function writeBenchSection(heading: string, text: string): void {
  const file = new URL('../docs/benchmarks.md', import.meta.url);
  const doc = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const start = doc.indexOf(`${heading}\n`);
  if (start < 0) {
    writeFileSync(file, `${doc.trimEnd()}\n\n${text}`);
    return;
  }
  const ends = ['\n## ', '\n<!-- '].map((m) => doc.indexOf(m, start + 1)).filter((i) => i >= 0);
  const next = ends.length ? Math.min(...ends) : -1;
  writeFileSync(file, doc.slice(0, start) + text + (next >= 0 ? doc.slice(next) : ''));
}
