/**
 * Writes openapi/openapi.json from the API's zod schemas (`npm run openapi`).
 * `--check` exits 1 when the committed file differs from what the code generates.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadRouteModules, openApiDocument } from '../src/api/server.js';

export const OPENAPI_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'openapi', 'openapi.json');

/** The document as the code defines it now, serialised exactly as committed. */
export async function renderOpenApi(): Promise<string> {
  const extra = (await loadRouteModules()).flatMap((m) => m.apiRoutes ?? []);
  return `${JSON.stringify(openApiDocument(extra), null, 2)}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { check: { type: 'boolean', default: false } } });
  const text = await renderOpenApi();
  if (values.check) {
    const current = readFileSync(OPENAPI_PATH, 'utf8');
    if (current !== text) {
      console.error(`${OPENAPI_PATH} is out of date: run npm run openapi`);
      process.exit(1);
    }
    console.log(`${OPENAPI_PATH} is up to date`);
    return;
  }
  mkdirSync(dirname(OPENAPI_PATH), { recursive: true });
  writeFileSync(OPENAPI_PATH, text);
  console.log(`wrote ${OPENAPI_PATH}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
