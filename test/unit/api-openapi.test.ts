import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_TYPES_PATH, OPENAPI_PATH, renderClientTypes, renderOpenApi } from '../../scripts/gen-openapi.js';

describe('openapi/openapi.json', () => {
  it('matches what the zod schemas generate (run `npm run openapi` when this fails)', async () => {
    const generated = await renderOpenApi();
    const committed = readFileSync(OPENAPI_PATH, 'utf8');
    expect(committed).toBe(generated);
  });

  it('src/client/schema.ts matches what openapi-typescript generates from it (run `npm run openapi` when this fails)', async () => {
    const generated = await renderClientTypes(readFileSync(OPENAPI_PATH, 'utf8'));
    expect(readFileSync(CLIENT_TYPES_PATH, 'utf8')).toBe(generated);
  });

  it('documents every built-in route and the error format', async () => {
    const doc = JSON.parse(await renderOpenApi());
    expect(doc.openapi).toBe('3.1.0');
    for (const p of ['/livez', '/healthz', '/metrics', '/v1/snapshot', '/v1/decisions', '/v1/policy', '/v1/dry-run']) expect(doc.paths[p], p).toBeDefined();
    expect(doc.paths['/v1/policy'].put.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PutPolicyRequest' });
    expect(doc.components.schemas.Error.properties.field).toEqual({ type: 'string' });
    expect(doc.components.schemas.Queue.properties.children.items).toEqual({ $ref: '#/components/schemas/Queue' });
    expect(doc.components.schemas.PutPolicyRequest.required).toEqual(['name']);
  });
});
