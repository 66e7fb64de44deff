/**
 * The admin API's typed client: openapi-fetch over the types generated from openapi/openapi.json
 * (./schema.ts), so a call that does not match the document does not compile. Every request
 * carries the bearer token; `ok` turns an answer other than 2xx into an `ApiError`.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export type Schemas = components['schemas'];
export type AdminClient = Client<paths>;

export interface AdminClientOptions {
  /** The service's address, e.g. http://127.0.0.1:7878. */
  readonly baseUrl: string;
  /** Bearer token (see the operator guide for roles). */
  readonly token?: string;
  /** Gives up on a request after this long (default 30 s). */
  readonly timeoutMs?: number;
  readonly fetch?: (input: Request) => Promise<Response>;
}

export function createAdminClient(o: AdminClientOptions): AdminClient {
  const client = createClient<paths>({ baseUrl: o.baseUrl.replace(/\/+$/, ''), ...(o.fetch ? { fetch: o.fetch } : {}) });
  const timeoutMs = o.timeoutMs ?? 30_000;
  client.use({
    onRequest({ request }) {
      if (o.token) request.headers.set('Authorization', `Bearer ${o.token}`);
      return new Request(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeoutMs)]) });
    },
  });
  return client;
}

/** An answer other than 2xx: its status and body (the error format `{ error, field?, reason }` when it has one). */
export class ApiError extends Error {
  readonly code: string | undefined;
  readonly field: string | undefined;
  readonly reason: string;

  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const b = (typeof body === 'object' && body !== null ? body : {}) as { error?: unknown; field?: unknown; reason?: unknown };
    const reason = typeof b.reason === 'string' ? b.reason : typeof body === 'string' && body ? body : `HTTP ${status}`;
    const field = typeof b.field === 'string' ? b.field : undefined;
    super(field ? `${field}: ${reason}` : reason);
    this.name = 'ApiError';
    this.code = typeof b.error === 'string' ? b.error : undefined;
    this.field = field;
    this.reason = reason;
  }
}

type Answer = { data?: unknown; error?: unknown; response: Response };
type DataOf<R> = R extends { data: infer D; error?: never } ? D : never;

/** The body of a 2xx answer (undefined for 204), or throws an ApiError with what the service said. */
export async function ok<R extends Answer>(call: Promise<R>): Promise<DataOf<R>> {
  const r = await call;
  if (!r.response.ok) throw new ApiError(r.response.status, r.error);
  return r.data as DataOf<R>;
}
