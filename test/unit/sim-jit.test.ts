/**
 * Replays turn off V8's on-stack replacement for their process (src/sim/jit.ts): a child process
 * makes a simulator, then runs a long loop in a function called once, which V8 would otherwise
 * compile on the spot (`--trace-opt` prints such a compile with "OSR").
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const simulateModule = fileURLToPath(new URL('../../src/sim/simulate.ts', import.meta.url));
const script = `
const { simulate } = await import(${JSON.stringify(simulateModule)});
simulate({ workload: 'kairos-uniform', policy: 'fifo', jobs: 2, nodes: 2 });
function longLoop(n) { let x = 0; for (let i = 0; i < n; i++) x = (x + i * 7) % 1000003; return x; }
console.log('result', longLoop(3e7));
`;

function compiledOnTheSpot(env: Record<string, string>): { ran: boolean; osr: boolean } {
  const dir = mkdtempSync(join(tmpdir(), 'schedbrain-jit-'));
  const file = join(dir, 'child.mjs');
  writeFileSync(file, script);
  let out: string;
  try {
    out = execFileSync(process.execPath, ['--import', 'tsx', '--trace-opt', file], { env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 64 << 20 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { ran: out.includes('result '), osr: out.split('\n').some((l) => l.includes('OSR') && l.includes('JSFunction longLoop')) };
}

describe('simulator: V8 settings for replays', () => {
  it('a process that made a simulator compiles no loop on the spot', () => {
    expect(compiledOnTheSpot({ SCHEDBRAIN_SIM_OSR: '' })).toEqual({ ran: true, osr: false });
  });

  it('SCHEDBRAIN_SIM_OSR=1 keeps V8 default, where the same loop is compiled on the spot', () => {
    expect(compiledOnTheSpot({ SCHEDBRAIN_SIM_OSR: '1' })).toEqual({ ran: true, osr: true });
  });
});
