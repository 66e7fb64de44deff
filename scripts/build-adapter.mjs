#!/usr/bin/env node
// Builds yarn-adapter/ (the Java mini-cluster launcher, workload client and shim) with Maven when
// its jar is missing or older than any source or pom file; otherwise does nothing.
// Usage: node scripts/build-adapter.mjs [--force] [--adapter-dir DIR]
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ args: process.argv.slice(2), options: { force: { type: 'boolean', default: false }, 'adapter-dir': { type: 'string' } } });
const force = args.force;
const adapterDir = resolve(args['adapter-dir'] ?? (process.env.SCHEDBRAIN_ADAPTER_DIR || join(repoRoot, 'yarn-adapter')));
const jar = join(adapterDir, 'target', 'yarn-adapter-0.1.0.jar');
const libDir = join(adapterDir, 'target', 'lib');

/** Newest mtime (ms) of pom.xml and everything under src/. */
function newestInput() {
  let newest = statSync(join(adapterDir, 'pom.xml')).mtimeMs;
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, statSync(p).mtimeMs);
    }
  };
  const src = join(adapterDir, 'src');
  if (existsSync(src)) walk(src);
  return newest;
}

function upToDate() {
  if (!existsSync(jar) || !existsSync(libDir) || readdirSync(libDir).length === 0) return false;
  return statSync(jar).mtimeMs >= newestInput();
}

if (!force && upToDate()) {
  process.exit(0);
}
console.error(`build-adapter: mvn package in ${adapterDir}`);
const mvn = process.platform === 'win32' ? 'mvn.cmd' : 'mvn';
const r = spawnSync(mvn, ['-B', '-q', 'package', '-DskipTests'], { cwd: adapterDir, stdio: 'inherit' });
if (r.error) {
  console.error(`build-adapter: cannot run ${mvn}: ${r.error.message} (install Maven 3.8+ and a JDK 17)`);
  process.exit(1);
}
if (r.status !== 0) {
  console.error(`build-adapter: mvn failed with exit code ${r.status}`);
  process.exit(r.status ?? 1);
}
if (!existsSync(jar)) {
  console.error(`build-adapter: mvn succeeded but ${jar} is missing`);
  process.exit(1);
}
// Maven may leave an unchanged jar untouched; mark it as built from the current sources.
const now = new Date();
utimesSync(jar, now, now);
