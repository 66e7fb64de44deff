/**
 * 100,000 generated requests against every route of the admin API (fast-check), with no token, a
 * wrong one, and each role's: no answer is a 5xx, nothing but the open probes answers without a
 * valid token, no route answers 2xx to a role below its own, and the heap comes back to where it
 * was. The count is SCHEDBRAIN_FUZZ_RUNS (default 100,000). Figures go to docs/reliability.md.
 */
import * as fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiToken, Role } from '../../src/api/auth.js';
import type { ApiRoute } from '../../src/api/openapi.js';
import { API_ROUTES, buildApi, loadRouteModules } from '../../src/api/server.js';
import { Engine } from '../../src/engine/engine.js';
import { InMemoryBackend } from '../../src/engine/fake-backend.js';
import { Store } from '../../src/store/store.js';
import { testAuth } from '../support/api-auth.js';

const RUNS = Number(process.env.SCHEDBRAIN_FUZZ_RUNS ?? 100_000);
const TOKENS: Record<Role, ApiToken> = {
  read: { name: 'fuzz-read', role: 'read', token: 'fuzz-read-token-0123456789abcdef' },
  operate: { name: 'fuzz-operate', role: 'operate', token: 'fuzz-operate-token-0123456789abcd' },
  admin: { name: 'fuzz-admin', role: 'admin', token: 'fuzz-admin-token-0123456789abcdef' },
};
const RANK: Record<Role, number> = { read: 0, operate: 1, admin: 2 };

/** A collectable heap figure: V8's gc exposed for this check only. */
function heapAfterGc(): number | undefined {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  if (typeof gc !== 'function') return undefined;
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('fuzzing the admin API', () => {
  let dir: string;
  let store: Store;
  let engine: Engine;
  let app: FastifyInstance;
  let routes: ApiRoute[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-fuzz-'));
    store = await Store.open(dir);
    engine = new Engine({ backend: new InMemoryBackend(), store, periodMs: 60_000, initial: { policy: 'fifo', params: {}, dryRun: true } });
    await engine.init();
    const modules = await loadRouteModules();
    routes = [...API_ROUTES, ...modules.flatMap((m) => m.apiRoutes ?? [])];
    app = await buildApi({ engine, store, plugins: modules.map((m) => m.default), auth: testAuth(Object.values(TOKENS)) });
  });

  afterAll(async () => {
    await app?.close();
    await engine?.stop();
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`answers ${RUNS.toLocaleString('en-US')} generated requests without a 5xx or an unauthorised success`, async () => {
    const roleOf = (r: ApiRoute): Role => r.role ?? (r.method === 'get' ? 'read' : 'operate');
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('default', 'root.default', 'wf-1', '..', '%00', 'a'.repeat(300), '∞', '1e308'));
    const json = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record(
        { name: fc.constantFrom('fifo', 'kairos', 'darss', 'bopf', 'nosuch'), params: fc.jsonValue({ maxDepth: 2 }), dryRun: fc.boolean() },
        { requiredKeys: [] },
      ),
      fc.record(
        {
          id: text,
          deadlineMs: fc.oneof(fc.integer(), fc.double()),
          jobs: fc.array(fc.record({ name: text, tasks: fc.integer({ min: -5, max: 1e9 }), leaseMs: fc.integer() }), { maxLength: 3 }),
        },
        { requiredKeys: [] },
      ),
    );
    const request = fc.record({
      route: fc.constantFrom(...routes),
      otherMethod: fc.option(fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), { freq: 5 }),
      param: text,
      query: fc.dictionary(fc.constantFrom('limit', 'since', 'group', 'from', 'to', 'order', 'x'), text, { maxKeys: 3 }),
      body: fc.option(
        fc.oneof(
          json.map((v) => ({ type: 'application/json', payload: JSON.stringify(v) })),
          fc.tuple(fc.constantFrom('application/json', 'application/yaml', 'text/plain'), text).map(([type, payload]) => ({ type, payload })),
        ),
        { freq: 3 },
      ),
      who: fc.constantFrom<Role | 'none' | 'wrong'>('none', 'wrong', 'read', 'operate', 'admin'),
    });
    const counts = { total: 0, byStatus: new Map<number, number>() };
    const heapBefore = heapAfterGc();
    await fc.assert(
      fc.asyncProperty(request, async (q) => {
        const method = (q.otherMethod ?? q.route.method.toUpperCase()) as 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
        const path = q.route.path.replace(/\{[^}]+\}/g, encodeURIComponent(q.param));
        const qs = new URLSearchParams(q.query).toString();
        const headers: Record<string, string> = {};
        if (q.who === 'wrong') headers.authorization = 'Bearer not-a-token-of-this-service';
        else if (q.who !== 'none') headers.authorization = `Bearer ${TOKENS[q.who].token}`;
        if (q.body) headers['content-type'] = q.body.type;
        const r = await app.inject({ method, url: qs ? `${path}?${qs}` : path, headers, ...(q.body && method !== 'GET' ? { payload: q.body.payload } : {}) });
        counts.total++;
        counts.byStatus.set(r.statusCode, (counts.byStatus.get(r.statusCode) ?? 0) + 1);
        expect(r.statusCode, `${method} ${path}: ${r.body.slice(0, 300)}`).toBeLessThan(500);
        const sameRoute = method === q.route.method.toUpperCase();
        if (!sameRoute || r.statusCode >= 300) return;
        if (q.route.open) return;
        // A success needs a valid token whose role covers the route's.
        expect(q.who === 'none' || q.who === 'wrong', `${method} ${path} answered ${r.statusCode} without a valid token`).toBe(false);
        expect(RANK[q.who as Role], `${method} ${path} answered ${r.statusCode} to ${q.who}`).toBeGreaterThanOrEqual(RANK[roleOf(q.route)]);
      }),
      { numRuns: RUNS, seed: 20261124, endOnFailure: true },
    );
    const heapAfter = heapAfterGc();
    const statuses = [...counts.byStatus]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ');
    console.log(
      `fuzz: ${counts.total} requests over ${routes.length} routes; statuses ${statuses}; heap ${heapBefore === undefined ? '?' : (heapBefore / 1e6).toFixed(1)} MB → ${heapAfter === undefined ? '?' : (heapAfter / 1e6).toFixed(1)} MB`,
    );
    expect(counts.total).toBe(RUNS);
    if (heapBefore !== undefined && heapAfter !== undefined) expect(heapAfter - heapBefore).toBeLessThan(64e6);
  }, 900_000);
});
