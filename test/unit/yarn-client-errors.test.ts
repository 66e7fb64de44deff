/**
 * Error mapping and retries of RmClient against a local fake RM: what a caller sees for each
 * kind of failure, and how many requests reached the RM.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReadOnlySchedulerConfError, RmProtocolError, RmRejectedError, RmUnavailableError } from '../../src/core/errors.js';
import { RmClient, rmMessage, schedConfUpdateBody } from '../../src/yarn/client.js';
import { FakeRm, fixture, fixtureText } from './yarn-fake-rm.js';

const fastRetry = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 };

/** Recorded error bodies (RM 3.4.1); statuses from test/fixtures/rm/manifest.json and README. */
const appNotFound = fixtureText('error-404-app-not-found.json');
const capacitySum = fixtureText('error-400-put-scheduler-conf-bad.json');
const readOnlyGet = fixtureText('error-400-scheduler-conf-get-file-store.txt');
const readOnlyPut = fixtureText('error-400-put-scheduler-conf-file-store.txt');
const noUser = fixtureText('error-401-no-user.json');
const moveMissingQueue = fixtureText('error-503-put-app-queue-missing-queue.json');
const signalAbsent = fixtureText('error-500-signal-absent-container.txt');
const JSON_TYPE = 'application/json;charset=utf-8';

const remoteException = (exception: string, message: string) => ({ RemoteException: { exception, message, javaClassName: `x.${exception}` } });

describe('RmClient error mapping', () => {
  let rm: FakeRm;
  let client: RmClient;

  beforeEach(async () => {
    rm = await new FakeRm().start();
    client = new RmClient({ rmUrl: rm.url, user: 'brain', requestTimeoutMs: 300, retry: fastRetry });
  });
  afterEach(async () => {
    await rm.stop();
  });

  it('4xx: RmRejectedError with the status and the RemoteException message, not retried', async () => {
    rm.on('GET /apps/application_1_0001', { status: 404, body: appNotFound, contentType: JSON_TYPE });
    const err = await client.app('application_1_0001').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmRejectedError);
    expect((err as RmRejectedError).status).toBe(404);
    expect((err as RmRejectedError).message).toBe(`NotFoundException: ${JSON.parse(appNotFound).RemoteException.message}`);
    expect((err as RmRejectedError).body).toBe(appNotFound);
    expect((err as RmRejectedError).retryable).toBe(false);
    expect(rm.callsTo('GET /apps/application_1_0001')).toBe(1);
  });

  it('4xx with a plain-text body (scheduler-conf style): the text is the message', async () => {
    rm.on('PUT /scheduler-conf', { status: 400, body: capacitySum, contentType: JSON_TYPE });
    const err = await client.updateSchedulerConf({ updateQueues: [{ queue: 'root.a', params: { capacity: '60' } }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmRejectedError);
    expect((err as RmRejectedError).message).toBe(capacitySum.trim());
    expect((err as RmRejectedError).message).toMatch(/Illegal capacity sum/);
    expect((err as RmRejectedError).status).toBe(400);
  });

  it('5xx: retried up to the bound, then RmUnavailableError', async () => {
    rm.on('GET /nodes', { status: 500, body: remoteException('WebApplicationException', 'boom') });
    const err = await client.nodes().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmUnavailableError);
    expect((err as RmUnavailableError).retryable).toBe(true);
    expect((err as Error).message).toContain('500');
    expect((err as Error).message).toContain('gave up after 3 attempts');
    expect(rm.callsTo('GET /nodes')).toBe(3);
  });

  it('a transient 503 followed by success is invisible to the caller', async () => {
    rm.on('GET /nodes', (_req, n) => (n < 2 ? { status: 503, body: 'standby' } : { status: 200, body: { nodes: null } }));
    expect(await client.nodes()).toEqual([]);
    expect(rm.callsTo('GET /nodes')).toBe(3);
  });

  it('timeouts are retried, then RmUnavailableError', async () => {
    rm.on('GET /metrics', { delayMs: 2_000, body: {} });
    const err = await client.metrics().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmUnavailableError);
    expect((err as Error).message).toContain('timed out after 300 ms');
    expect(rm.callsTo('GET /metrics')).toBe(3);
  });

  it('reset connections are retried, then RmUnavailableError', async () => {
    rm.on('GET /nodes', { destroy: true });
    const err = await client.nodes().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmUnavailableError);
    expect(rm.callsTo('GET /nodes')).toBe(3);
  });

  it('connection refused → RmUnavailableError', async () => {
    const server = http.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const closed = new RmClient({ rmUrl: `http://127.0.0.1:${port}`, requestTimeoutMs: 300, retry: fastRetry });
    const err = await closed.clusterInfo().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmUnavailableError);
    expect((err as Error).message).toContain('ECONNREFUSED');
  });

  it('an ambiguous failure of a non-idempotent scheduler-conf write is not repeated', async () => {
    rm.on('PUT /scheduler-conf', { status: 500, body: 'internal error' });
    const err = await client.updateSchedulerConf({ addQueues: [{ queue: 'root.b', params: { capacity: '0' } }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmUnavailableError);
    expect(rm.callsTo('PUT /scheduler-conf')).toBe(1);
  });

  it('a 503 on a scheduler-conf write is retried (the RM did not act)', async () => {
    rm.on('PUT /scheduler-conf', (_r, n) =>
      n === 0 ? { status: 503, body: 'not active' } : { status: 200, body: 'Configuration change successfully applied.' },
    );
    await expect(client.updateSchedulerConf({ updateQueues: [{ queue: 'root.default', params: { capacity: '100' } }] })).resolves.toContain(
      'successfully applied',
    );
    expect(rm.callsTo('PUT /scheduler-conf')).toBe(2);
  });

  it('zod failure → RmProtocolError naming the field', async () => {
    // A recorded answer with one field broken the way a future RM might change it.
    const nodes = fixture('nodes.json');
    nodes.nodes.node[1].usedMemoryMB = 'lots';
    rm.on('GET /nodes', { body: nodes });
    const err = await client.nodes().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmProtocolError);
    expect((err as Error).message).toContain('nodes.node.1.usedMemoryMB');
    expect(rm.callsTo('GET /nodes')).toBe(1);
  });

  it('a non-JSON 200 body → RmProtocolError', async () => {
    rm.on('GET /info', { body: '<html>proxy login</html>', contentType: 'text/html' });
    await expect(client.clusterInfo()).rejects.toBeInstanceOf(RmProtocolError);
  });

  it('read-only store: GET scheduler-conf refused with the MutableConfScheduler message', async () => {
    rm.on('GET /scheduler-conf', { status: 400, body: readOnlyGet, contentType: JSON_TYPE });
    await expect(client.schedulerConf()).rejects.toBeInstanceOf(ReadOnlySchedulerConfError);
  });

  it('read-only store: PUT scheduler-conf refused with the MutableConfScheduler message', async () => {
    rm.on('PUT /scheduler-conf', { status: 400, body: readOnlyPut, contentType: JSON_TYPE });
    const err = await client.updateSchedulerConf({ updateQueues: [{ queue: 'root.default', params: { capacity: '100' } }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReadOnlySchedulerConfError);
    expect((err as Error).message).toContain(readOnlyPut.trim());
  });

  it('a 401 on scheduler-conf (no principal) is a rejection, not a read-only store', async () => {
    rm.on('GET /scheduler-conf', { status: 401, body: noUser, contentType: JSON_TYPE });
    const err = await client.schedulerConf().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmRejectedError);
    expect(err).not.toBeInstanceOf(ReadOnlySchedulerConfError);
    expect((err as RmRejectedError).status).toBe(401);
  });

  it('a 503 UndeclaredThrowableException (refused move) is a rejection and is not retried', async () => {
    rm.on('PUT /apps/application_1_0003/queue', { status: 503, body: moveMissingQueue, contentType: JSON_TYPE });
    const err = await client.moveApp('application_1_0003', 'root.nosuchqueue').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmRejectedError);
    expect((err as RmRejectedError).status).toBe(503);
    expect((err as Error).message).toMatch(/UndeclaredThrowableException/);
    expect(rm.callsTo('PUT /apps/application_1_0003/queue')).toBe(1);
  });

  it('a 500 "Trying to signal an absent container" is a rejection and is not retried', async () => {
    rm.on('POST /containers/container_1_0003_01_000999/signal/FORCEFUL_SHUTDOWN', { status: 500, body: signalAbsent, contentType: JSON_TYPE });
    const err = await client.signalContainer('container_1_0003_01_000999', 'FORCEFUL_SHUTDOWN').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmRejectedError);
    expect((err as Error).message).toBe(signalAbsent.trim());
    expect(rm.callsTo('POST /containers/container_1_0003_01_000999/signal/FORCEFUL_SHUTDOWN')).toBe(1);
  });

  it('an RM without the scheduler-conf endpoint counts as read-only', async () => {
    rm.on('GET /scheduler-conf', { status: 404, body: remoteException('NotFoundException', 'not found') });
    await expect(client.schedulerConf()).rejects.toBeInstanceOf(ReadOnlySchedulerConfError);
  });

  it("follows a standby RM's 307 to the active RM, keeping method, body and user.name", async () => {
    const active = await new FakeRm().start();
    try {
      active.on('PUT /apps/application_1_0002/priority', { body: fixtureText('put-app-priority.json') });
      rm.on('PUT /apps/application_1_0002/priority', (req) => ({
        status: 307,
        body: 'This is standby RM.',
        headers: { Location: `${active.url}/ws/v1/cluster/apps/application_1_0002/priority?${req.query.toString()}` },
      }));
      expect(await client.setAppPriority('application_1_0002', 5)).toBe(5);
      expect(active.requests[0]!.method).toBe('PUT');
      expect(JSON.parse(active.requests[0]!.body)).toEqual({ priority: 5 });
      expect(active.requests[0]!.query.get('user.name')).toBe('brain');
    } finally {
      await active.stop();
    }
  });

  it('writes carry user.name; reads do not', async () => {
    rm.on('PUT /apps/application_1_0002/priority', { body: { priority: 5 } });
    rm.on('GET /nodes', { body: { nodes: null } });
    expect(await client.setAppPriority('application_1_0002', 5)).toBe(5);
    await client.nodes();
    const write = rm.requests.find((r) => r.method === 'PUT')!;
    expect(write.query.get('user.name')).toBe('brain');
    expect(JSON.parse(write.body)).toEqual({ priority: 5 });
    expect(rm.requests.find((r) => r.method === 'GET')!.query.has('user.name')).toBe(false);
  });
});

describe('rmMessage', () => {
  it('extracts RemoteException, keeps plain text, strips HTML', () => {
    expect(rmMessage(JSON.stringify(remoteException('BadRequestException', 'bad')))).toBe('BadRequestException: bad');
    expect(rmMessage('  plain reason \n')).toBe('plain reason');
    expect(rmMessage('<html><body><h2>HTTP ERROR 500</h2></body></html>')).toBe('HTTP ERROR 500');
    expect(rmMessage('')).toBe('');
  });
});

describe('schedConfUpdateBody', () => {
  it('encodes adds and updates in one body with key/value entries', () => {
    expect(
      schedConfUpdateBody({
        addQueues: [{ queue: 'root.b', params: { capacity: '40', 'maximum-capacity': '100' } }],
        updateQueues: [{ queue: 'root.default', params: { capacity: '60' } }],
      }),
    ).toEqual({
      'add-queue': [
        {
          'queue-name': 'root.b',
          params: {
            entry: [
              { key: 'capacity', value: '40' },
              { key: 'maximum-capacity', value: '100' },
            ],
          },
        },
      ],
      'update-queue': [{ 'queue-name': 'root.default', params: { entry: [{ key: 'capacity', value: '60' }] } }],
    });
  });
});
