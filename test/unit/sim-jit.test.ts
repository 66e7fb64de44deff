/**
 * Replays run without V8's on-stack replacement (src/sim/jit.ts), set by the command that replays,
 * not by making a simulator: in a child process, a long loop in a function called once is compiled
 * on the spot under V8's default (`--trace-opt` prints such a compile with "OSR").
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const simulateModule = fileURLToPath(new URL('../../src/sim/simulate.ts', import.meta.url));
const commandModule = fileURLToPath(new URL('../../src/sim/cli.ts', import.meta.url));
const longLoop = `
function longLoop(n) { let x = 0; for (let i = 0; i < n; i++) x = (x + i * 7) % 1000003; return x; }
console.log('result', longLoop(3e7));
`;
/** Makes a simulator and replays, as a library caller does. */
const library = `
const { simulate } = await import(${JSON.stringify(simulateModule)});
simulate({ workload: 'kairos-uniform', policy: 'fifo', jobs: 2, nodes: 2 });
${longLoop}`;
/** Runs `schedbrain simulate`. */
const command = `
const { runSimulateCommand } = await import(${JSON.stringify(commandModule)});
await runSimulateCommand(['--workload', 'kairos-uniform', '--policy', 'fifo', '--jobs', '2', '--nodes', '2', '--json']);
${longLoop}`;

function compiledOnTheSpot(script: string, env: Record<string, string>): { ran: boolean; osr: boolean } {
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
  it('making a simulator leaves the process as it was: the loop is compiled on the spot', () => {
    expect(compiledOnTheSpot(library, { SCHEDBRAIN_SIM_OSR: '' })).toEqual({ ran: true, osr: true });
  });

  it('the simulate command turns on-stack replacement off for its process', () => {
    expect(compiledOnTheSpot(command, { SCHEDBRAIN_SIM_OSR: '' })).toEqual({ ran: true, osr: false });
  });

  it('SCHEDBRAIN_SIM_OSR=1 keeps V8 default under the command', () => {
    expect(compiledOnTheSpot(command, { SCHEDBRAIN_SIM_OSR: '1' })).toEqual({ ran: true, osr: true });
  });
});
