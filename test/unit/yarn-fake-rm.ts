/**
 * A tiny stand-in ResourceManager for unit tests: serves recorded RM answers (test/fixtures/rm)
 * or scripted failures from a local HTTP server on an ephemeral port, and records every request.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/rm/', import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(FIXTURE_DIR + name, 'utf8');
}

export function fixture<T = any>(name: string): T {
  return JSON.parse(fixtureText(name)) as T;
}

export interface FakeReply {
  status?: number;
  /** Object → JSON; string → sent verbatim. */
  body?: unknown;
  contentType?: string;
  /** Hold the answer this long (for timeout tests). */
  delayMs?: number;
  /** Drop the connection without answering. */
  destroy?: boolean;
  headers?: Record<string, string>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
}

export type Handler = (req: RecordedRequest, callIndex: number) => FakeReply;

export class FakeRm {
  readonly requests: RecordedRequest[] = [];
  private readonly routes = new Map<string, Handler>();
  private readonly calls = new Map<string, number>();
  private server?: http.Server;
  url = '';

  /** `key` is `METHOD /path` relative to `/ws/v1/cluster`, e.g. `GET /nodes`. */
  on(key: string, handler: Handler | FakeReply): this {
    this.routes.set(key, typeof handler === 'function' ? handler : () => handler);
    return this;
  }

  callsTo(key: string): number {
    return this.calls.get(key) ?? 0;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const path = url.pathname.replace(/^\/ws\/v1\/cluster/, '');
        const recorded: RecordedRequest = { method: req.method ?? 'GET', path, query: url.searchParams, body: Buffer.concat(chunks).toString('utf8') };
        this.requests.push(recorded);
        const key = `${recorded.method} ${decodeURIComponent(path)}`;
        const n = this.calls.get(key) ?? 0;
        this.calls.set(key, n + 1);
        const handler = this.routes.get(key);
        const reply: FakeReply = handler
          ? handler(recorded, n)
          : { status: 404, body: { RemoteException: { exception: 'NotFoundException', message: `no route ${key}` } } };
        const send = (): void => {
          if (reply.destroy) {
            req.socket.destroy();
            return;
          }
          const body = reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
          res.writeHead(reply.status ?? 200, {
            'Content-Type': reply.contentType ?? (typeof reply.body === 'string' ? 'text/plain' : 'application/json'),
            ...reply.headers,
          });
          res.end(body);
        };
        if (reply.delayMs) setTimeout(send, reply.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}
