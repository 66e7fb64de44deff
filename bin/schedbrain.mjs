#!/usr/bin/env node
// schedbrain command-line entry point. Runs the TypeScript sources through tsx's ESM loader
// (resolved from this package, so it works on a fresh clone after `npm install`), or the
// compiled dist/ when the sources or tsx are absent (SCHEDBRAIN_USE_DIST=1 forces dist/).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'cli', 'main.ts');
const dist = join(root, 'dist', 'src', 'cli', 'main.js');

async function load() {
  if (process.env.SCHEDBRAIN_USE_DIST !== '1' && existsSync(src)) {
    try {
      const { register } = await import('tsx/esm/api');
      register();
      return await import(pathToFileURL(src).href);
    } catch (e) {
      if (!existsSync(dist)) throw e;
    }
  }
  if (existsSync(dist)) return import(pathToFileURL(dist).href);
  throw new Error(`schedbrain: neither ${src} (with tsx) nor ${dist} (npm run build) is available`);
}

try {
  const { main } = await load();
  process.exitCode = await main(process.argv.slice(2));
} catch (e) {
  process.stderr.write(`schedbrain: ${e?.stack ?? e}\n`);
  process.exitCode = 1;
}
