/**
 * A fault-injecting HTTP proxy between the brain and the RM (or a shim): it forwards every
 * request until told to fail them in one of the ways a real RM fails.
 *
 * - `refuse`: the port stops listening (connection refused), and listens again when cleared;
 * - `5xx`: 500 with the RM's error shape;
 * - `slow`: the answer comes after `slowMs`;
 * - `hang-mid-body`: headers and half the body, then nothing until cleared (then the socket drops);
 * - `truncated`: half the body, then a clean end (malformed JSON).
 *
 * Apart from the fault, `holdWritesAfter = n` forwards the first n writes (any method but GET and
 * HEAD) and holds every later one: never forwarded, never answered (a brain stopped mid-plan).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type Fault = 'none' | 'refuse' | '5xx' | 'slow' | 'hang-mid-body' | 'truncated';

export interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly atMs: number;
  readonly fault: Fault;
}

export interface SeenWrite {
  readonly method: string;
  readonly url: string;
  readonly body: string;
  readonly atMs: number;
}

export class FaultProxy {
  readonly seen: SeenRequest[] = [];
  /** Writes sent on to the target, in order. */
  readonly forwardedWrites: SeenWrite[] = [];
  /** Writes held by `holdWritesAfter`: the target never saw them. */
  readonly heldWrites: SeenWrite[] = [];
  holdWritesAfter: number | undefined;
  slowMs = 30_000;
  private current: Fault = 'none';
  private server: Server | undefined;
  private port = 0;
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new Set<ServerResponse>();

  constructor(private readonly target: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get fault(): Fault {
    return this.current;
  }

  async start(): Promise<this> {
    await this.listen();
    return this;
  }

  /** Changes the fault; clearing one ends what it held (hung answers drop, the port listens again). */
  async setFault(f: Fault): Promise<void> {
    const was = this.current;
    this.current = f;
    if (f === 'refuse' && was !== 'refuse') await this.close();
    if (f !== 'refuse' && was === 'refuse') await this.listen();
    if (f !== 'hang-mid-body') {
      for (const r of this.hanging) r.destroy();
      this.hanging.clear();
    }
  }

  async stop(): Promise<void> {
    for (const r of this.hanging) r.destroy();
    await this.close();
  }

  private listen(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  private close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return Promise.resolve();
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const fault = this.current;
    this.seen.push({ method: req.method ?? 'GET', url: req.url ?? '', atMs: Date.now(), fault });
    const body = await readAll(req);
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      const write = { method, url: req.url ?? '', body: body.toString('utf8'), atMs: Date.now() };
      if (this.holdWritesAfter !== undefined && this.forwardedWrites.length >= this.holdWritesAfter) {
        this.heldWrites.push(write);
        this.hanging.add(res);
        return;
      }
      this.forwardedWrites.push(write);
    }
    if (fault === '5xx') {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          RemoteException: { exception: 'WebApplicationException', message: 'injected fault', javaClassName: 'javax.ws.rs.WebApplicationException' },
        }),
      );
      return;
    }
    if (fault === 'slow') await new Promise((r) => setTimeout(r, this.slowMs));
    let upstream: { status: number; headers: Record<string, string>; body: Buffer };
    try {
      upstream = await forward(this.target, req, body);
    } catch {
      res.writeHead(502).end();
      return;
    }
    if (fault === 'hang-mid-body' || fault === 'truncated') {
      const half = upstream.body.subarray(0, Math.floor(upstream.body.length / 2));
      res.writeHead(upstream.status, { 'content-type': upstream.headers['content-type'] ?? 'application/json' });
      res.write(half);
      if (fault === 'truncated') res.end();
      else this.hanging.add(res);
      return;
    }
    res.writeHead(upstream.status, upstream.headers);
    res.end(upstream.body);
  }
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function forward(target: string, req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const u = new URL(req.url ?? '/', target);
  return new Promise((resolve, reject) => {
    const headers = { ...req.headers, host: u.host };
    const out = httpRequest(u, { method: req.method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string' && k !== 'transfer-encoding' && k !== 'connection') h[k] = v;
        resolve({ status: res.statusCode ?? 502, headers: h, body: Buffer.concat(parts) });
      });
      res.on('error', reject);
    });
    out.on('error', reject);
    out.end(body);
  });
}
