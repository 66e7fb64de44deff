/**
 * Writes openapi/openapi.json from the API's zod schemas, and the typed client's types
 * (src/client/schema.ts) from that document with openapi-typescript (`npm run openapi`).
 * Both are written as Prettier formats them, so formatting the tree leaves them as generated.
 * `--check` exits 1 when a committed file differs from what the code generates.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import * as prettier from 'prettier';
import { loadRouteModules, openApiDocument } from '../src/api/server.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const OPENAPI_PATH = resolve(root, 'openapi', 'openapi.json');
export const CLIENT_TYPES_PATH = resolve(root, 'src', 'client', 'schema.ts');

/** `text` as Prettier writes `path`, with the project's Prettier configuration. */
async function formatted(text: string, path: string): Promise<string> {
  return prettier.format(text, { ...((await prettier.resolveConfig(path)) ?? {}), filepath: path });
}

/** The document as the code defines it now, serialised exactly as committed. */
export async function renderOpenApi(): Promise<string> {
  const extra = (await loadRouteModules()).flatMap((m) => m.apiRoutes ?? []);
  return formatted(JSON.stringify(openApiDocument(extra), null, 2), OPENAPI_PATH);
}

/** The client's types for a document, as committed. */
export async function renderClientTypes(openApiText: string): Promise<string> {
  // A default makes a field optional to send; the document's `required` lists say what an answer always has.
  const ast = await openapiTS(JSON.parse(openApiText) as OpenAPI3, { alphabetize: false, exportType: false, defaultNonNullable: false });
  const header =
    '/**\n * Types of the admin API, generated from openapi/openapi.json by openapi-typescript: do not edit.\n * Regenerate with `npm run openapi`.\n */\n\n';
  return formatted(`${header}${astToString(ast)}`, CLIENT_TYPES_PATH);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { check: { type: 'boolean', default: false } } });
  const doc = await renderOpenApi();
  const outputs: [string, string][] = [
    [OPENAPI_PATH, doc],
    [CLIENT_TYPES_PATH, await renderClientTypes(doc)],
  ];
  if (values.check) {
    let stale = false;
    for (const [path, text] of outputs) {
      let current = '';
      try {
        current = readFileSync(path, 'utf8');
      } catch {
        // missing: stale
      }
      if (current !== text) {
        console.error(`${path} is out of date: run npm run openapi`);
        stale = true;
      } else console.log(`${path} is up to date`);
    }
    if (stale) process.exit(1);
    return;
  }
  for (const [path, text] of outputs) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
