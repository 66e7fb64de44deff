/**
 * Tests that exercise the admin API's routes (not its authentication) call it as an admin: every
 * `inject` carries the admin token unless the request sets its own Authorization header.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { ApiAuth, type ApiToken } from '../../src/api/auth.js';

export const TEST_ADMIN: ApiToken = { name: 'test-admin', role: 'admin', token: 'test-admin-token-0123456789abcdef' };

export function testAuth(extra: ApiToken[] = []): ApiAuth {
  return new ApiAuth({ tokens: [TEST_ADMIN, ...extra] });
}

export function asAdmin(app: FastifyInstance, token: string = TEST_ADMIN.token): FastifyInstance {
  const inject = app.inject.bind(app) as (o: InjectOptions | string) => ReturnType<FastifyInstance['inject']>;
  const authorization = `Bearer ${token}`;
  (app as { inject: unknown }).inject = (o: InjectOptions | string) =>
    inject(typeof o === 'string' ? { url: o, headers: { authorization } } : { ...o, headers: { authorization, ...(o.headers ?? {}) } });
  return app;
}
