#!/usr/bin/env node
// The project's test command: typecheck, lint, build the YARN adapter (Maven) if needed, run every
// vitest project (unit, conformance, integration against a real mini YARN), and close with one
// plain "N passed, N failed" line that any CI log reader understands.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const extra = process.argv.slice(2);

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  return r.status ?? 1;
}

for (const [cmd, args] of [
  ['npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']],
  ['npx', ['eslint', '.']],
  ['npx', ['prettier', '--check', '.']],
  ['node', ['scripts/build-adapter.mjs']],
]) {
  const code = run(cmd, args);
  if (code !== 0) {
    console.log(`${[cmd, ...args].join(' ')} failed with exit code ${code}`);
    console.log('0 passed, 1 failed');
    process.exit(code);
  }
}

const reportDir = join(root, '.schedbrain');
mkdirSync(reportDir, { recursive: true });
const report = join(reportDir, 'vitest-report.json');
const code = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extra]);

if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A file whose beforeAll/afterAll failed (e.g. it left the shared cluster changed) may have no
  // failed test of its own: it counts as one failure, so the closing line never reads green.
  const failedFiles = (r.testResults ?? []).filter((f) => f.status === 'failed' && !(f.assertionResults ?? []).some((a) => a.status === 'failed'));
  for (const f of failedFiles) console.log(`failed outside its tests: ${f.name}: ${String(f.message ?? '').split('\n')[0]}`);
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests + failedFiles.length} failed, ${skipped} skipped`);
  if (r.numTotalTests === 0) {
    console.log('no test ran');
    process.exit(1);
  }
} else {
  console.log('0 passed, 1 failed');
}
process.exit(code);
