/**
 * An HTTPS ResourceManager: the brain reads a whole snapshot through TLS with the RM's CA, refuses
 * an RM whose certificate it cannot check, and sends a delegation token on every request. The RM
 * here is the synthetic one (recorded RM answers) behind a TLS front; the certificate is made with
 * openssl for the test (skipped, visibly, where openssl is missing).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SyntheticRm } from '../../bench/synthetic-rm.js';
import { RmUnavailableError } from '../../src/core/errors.js';
import { YarnBackend } from '../../src/yarn/backend.js';
import { RmClient } from '../../src/yarn/client.js';
import { haveOpenssl, selfSignedCert } from '../support/tls.js';

describe('an HTTPS ResourceManager', () => {
  let dir: string;
  let rm: SyntheticRm | undefined;
  let front: Server | undefined;
  let url = '';
  const tokens: (string | undefined)[] = [];
  const ok = haveOpenssl();

  beforeAll(async () => {
    if (!ok) return;
    dir = mkdtempSync(join(tmpdir(), 'schedbrain-https-'));
    selfSignedCert(dir);
    rm = await new SyntheticRm({ nodes: 5, apps: 4, containers: 12, finishedApps: 1 }).start();
    const target = new URL(rm.url);
    front = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }, (req, res) => {
      tokens.push(req.headers['x-hadoop-delegation-token'] as string | undefined);
      const out = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers);
          up.pipe(res);
        },
      );
      req.pipe(out);
    });
    await new Promise<void>((r) => front!.listen(0, '127.0.0.1', () => r()));
    url = `https://127.0.0.1:${(front.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    if (front) await new Promise((r) => front!.close(r));
    await rm?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is read through TLS with its CA, with the delegation token on every request', async (ctx) => {
    if (!ok) return ctx.skip();
    const backend = new YarnBackend({ rmUrl: url, tls: { caFile: join(dir, 'cert.pem') }, delegationToken: 'dt-123' });
    const s = await backend.snapshot();
    expect(s.nodes.size).toBe(5);
    expect(s.apps.size).toBeGreaterThanOrEqual(4);
    expect(tokens.length).toBeGreaterThan(0);
    expect(new Set(tokens)).toEqual(new Set(['dt-123']));
  });

  it('is refused when its certificate cannot be checked', async (ctx) => {
    if (!ok) return ctx.skip();
    const client = new RmClient({ rmUrl: url, retry: { maxAttempts: 1 } });
    await expect(client.clusterInfo()).rejects.toBeInstanceOf(RmUnavailableError);
  });
});
