/**
 * openapi/openapi.json as a client author would check it: valid for a maintained validator, clean
 * for a maintained linter's recommended rules, and true to the running service (examples the
 * routes accept, the roles they enforce, the errors they answer).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiAuth, ROLES, type ApiToken, type Role } from '../../src/api/auth.js';
import type { ApiRoute } from '../../src/api/openapi.js';
import { errorBody } from '../../src/api/schemas.js';
import { API_ROUTES, BODY_LIMIT_BYTES, buildApi, loadRouteModules, roleOfRoute } from '../../src/api/server.js';
import { FakeClock } from '../../src/engine/clock.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';
import { OPENAPI_PATH } from '../../scripts/gen-openapi.js';

const text = readFileSync(OPENAPI_PATH, 'utf8');
type Operation = {
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, unknown>;
};
const operations = (doc: { paths: Record<string, Record<string, Operation>> }) =>
  Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));

describe('openapi/openapi.json is a valid OpenAPI 3.1 document', () => {
  it('passes @apidevtools/swagger-parser validation', async () => {
    const api = (await SwaggerParser.validate(JSON.parse(text))) as { openapi?: string };
    expect(api.openapi).toBe('3.1.0');
  });

  it('has no problem under Redocly recommended rules (errors or warnings)', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: text, absoluteRef: OPENAPI_PATH, config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`)).toEqual([]);
  });

  it('declares servers, the bearer scheme, a role on every operation, an example on every body, and 401/403 wherever a token is needed', () => {
    const doc = JSON.parse(text);
    expect(doc.servers.length).toBeGreaterThan(0);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const { path, method, op } of operations(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      const roles = op.security!.flatMap((s) => s.bearerAuth ?? []);
      expect(roles.length, where).toBe(1);
      const open = op.security!.some((s) => Object.keys(s).length === 0);
      expect(open, where).toBe(['/livez', '/healthz', '/metrics'].includes(path));
      if (!open) expect(Object.keys(op.responses), where).toEqual(expect.arrayContaining(['401', '403']));
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) expect(media.example, `${where} ${type}`).toBeDefined();
    }
  });
});

describe('the document agrees with the service', () => {
  let routes: ApiRoute[];
  let dir: string;
  let store: Store;
  let engine: Engine;
  let app: FastifyInstance;
  const tokens: Record<Role, ApiToken> = {
    read: { name: 'reader', role: 'read', token: 'read-token-0123456789abcdef' },
    operate: { name: 'operator', role: 'operate', token: 'operate-token-0123456789abcdef' },
    admin: { name: 'admin', role: 'admin', token: 'admin-token-0123456789abcdef' },
  };

  beforeAll(async () => {
    const modules = await loadRouteModules();
    routes = [...API_ROUTES, ...modules.flatMap((m) => m.apiRoutes ?? [])];
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-openapi-'));
    store = await Store.open(dir);
    const clock = new FakeClock();
    engine = new Engine({
      backend: new InMemoryBackend({ now: () => clock.now() }),
      store,
      clock,
      periodMs: 10_000,
      initial: { policy: 'capacity-targets', params: { targets: {} } },
    });
    await engine.init();
    app = await buildApi({ engine, store, plugins: modules.map((m) => m.default), auth: new ApiAuth({ tokens: Object.values(tokens) }) });
  });

  afterAll(async () => {
    await app?.close();
    await engine?.stop();
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("every request body example is accepted by the route's schema", () => {
    for (const r of routes.filter((x) => x.body)) {
      expect(r.bodyExample, `${r.method} ${r.path}`).toBeDefined();
      const parsed = r.body!.safeParse(r.bodyExample);
      expect(parsed.success ? '' : parsed.error.message, `${r.method} ${r.path}`).toBe('');
    }
  });

  it('every error answer is the shared Error schema or a named one (a client can tell them apart)', () => {
    for (const r of routes) {
      for (const [status, schema] of Object.entries(r.responses)) {
        if (Number(status) < 400 || typeof schema === 'string' || schema === errorBody) continue;
        expect(
          schema.description,
          `${r.method.toUpperCase()} ${r.path} answers ${status} with an unnamed schema: use errorBody from src/api/schemas.ts, or .describe('Name') it`,
        ).toMatch(/^[A-Z][A-Za-z0-9]*$/);
      }
    }
  });

  it('every route enforces the role the document gives it, and no more', async () => {
    for (const r of routes) {
      const url = r.path.replace(/\{[^}]+\}/g, 'x1');
      const call = (t?: ApiToken) => app.inject({ method: r.method.toUpperCase() as 'GET', url, headers: t ? { authorization: `Bearer ${t.token}` } : {} });
      const need = roleOfRoute(r);
      const where = `${r.method.toUpperCase()} ${r.path} (${need})`;
      const answered = await call(tokens[need]);
      expect([401, 403], `${where}: ${answered.body}`).not.toContain(answered.statusCode);
      const below = ROLES[ROLES.indexOf(need) - 1];
      if (below) expect((await call(tokens[below])).statusCode, where).toBe(403);
      expect((await call()).statusCode, where).toBe(r.open ? answered.statusCode : 401);
    }
  });

  it('a body over the limit is a 413 in the error format', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/dry-run',
      headers: { authorization: `Bearer ${tokens.read.token}`, 'content-type': 'application/json' },
      payload: `{"name":"${'x'.repeat(BODY_LIMIT_BYTES)}"}`,
    });
    expect(r.statusCode).toBe(413);
    expect(r.json()).toMatchObject({ error: 'payload_too_large', reason: expect.any(String) });
  });

  it('a body in another media type is a 415 in the error format', async () => {
    const r = await app.inject({
      method: 'PUT',
      url: '/v1/policy',
      headers: { authorization: `Bearer ${tokens.admin.token}`, 'content-type': 'text/plain' },
      payload: 'capacity-targets',
    });
    expect(r.statusCode).toBe(415);
    expect(r.json()).toMatchObject({ error: 'unsupported_media_type' });
  });
});
