/**
 * Error mapping and retries of RmClient against a local fake RM: what a caller sees for each
 * kind of failure, and how many requests reached the RM.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReadOnlySchedulerConfError, RmProtocolError, RmRejectedError, RmUnavailableError } from '../../src/core/errors.js';
import { RmClient, rmMessage, schedConfUpdateBody } from '../../src/yarn/client.js';
import { FakeRm } from './yarn-fake-rm.js';

const fastRetry = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 };

const readOnlyMessage = 'Configuration change only supported by MutableConfScheduler.';

/** The JSON shape Jersey gives a WebApplicationException in Hadoop's GenericExceptionHandler. */
const remoteException = (exception: string, message: string, javaClassName = `org.apache.hadoop.yarn.webapp.${exception}`) => ({
  RemoteException: { exception, message, javaClassName },
});

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
    rm.on('GET /apps/application_1_0001', { status: 404, body: remoteException('NotFoundException', 'app with id: application_1_0001 not found') });
    const err = await client.app('application_1_0001').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmRejectedError);
    expect((err as RmRejectedError).status).toBe(404);
    expect((err as RmRejectedError).message).toContain('app with id: application_1_0001 not found');
    expect((err as RmRejectedError).retryable).toBe(false);
    expect(rm.callsTo('GET /apps/application_1_0001')).toBe(1);
  });

  it('4xx with a plain-text body (scheduler-conf style): the text is the message', async () => {
    rm.on('PUT /scheduler-conf', { status: 400, body: 'Illegal capacity of 0.6 for children of queue root' });
    const err = await client.updateSchedulerConf({ updateQueues: [{ queue: 'root.a', params: { capacity: '60' } }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmRejectedError);
    expect((err as RmRejectedError).message).toBe('Illegal capacity of 0.6 for children of queue root');
    expect((err as RmRejectedError).status).toBe(400);
  });

  it('5xx: retried up to the bound, then RmUnavailableError', async () => {
    rm.on('GET /nodes', { status: 500, body: remoteException('WebApplicationException', 'boom') });
    const err = await client.nodes().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmUnavailableError);
    expect((err as RmUnavailableError).retryable).toBe(true);
    expect((err as Error).message).toContain('500');
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
    rm.on('PUT /scheduler-conf', (_r, n) => (n === 0 ? { status: 503, body: 'not active' } : { status: 200, body: 'Configuration change successfully applied.' }));
    await expect(client.updateSchedulerConf({ updateQueues: [{ queue: 'root.default', params: { capacity: '100' } }] })).resolves.toContain('successfully applied');
    expect(rm.callsTo('PUT /scheduler-conf')).toBe(2);
  });

  it('zod failure → RmProtocolError naming the field', async () => {
    rm.on('GET /nodes', { body: { nodes: { node: [{ id: 'h:1', rack: '/r', state: 'RUNNING', nodeHostName: 'h', numContainers: 0, usedMemoryMB: 'lots', availMemoryMB: 1, usedVirtualCores: 0, availableVirtualCores: 1 }] } } });
    const err = await client.nodes().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RmProtocolError);
    expect((err as Error).message).toContain('nodes.node.0.usedMemoryMB');
    expect(rm.callsTo('GET /nodes')).toBe(1);
  });

  it('a non-JSON 200 body → RmProtocolError', async () => {
    rm.on('GET /info', { body: '<html>proxy login</html>', contentType: 'text/html' });
    await expect(client.clusterInfo()).rejects.toBeInstanceOf(RmProtocolError);
  });

  it('read-only store: GET scheduler-conf refused with the MutableConfScheduler message', async () => {
    rm.on('GET /scheduler-conf', { status: 400, body: readOnlyMessage });
    await expect(client.schedulerConf()).rejects.toBeInstanceOf(ReadOnlySchedulerConfError);
  });

  it('read-only store: PUT scheduler-conf refused with the MutableConfScheduler message', async () => {
    rm.on('PUT /scheduler-conf', { status: 400, body: readOnlyMessage });
    const err = await client.updateSchedulerConf({ updateQueues: [{ queue: 'root.default', params: { capacity: '100' } }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReadOnlySchedulerConfError);
    expect((err as Error).message).toContain('MutableConfScheduler');
  });

  it('an RM without the scheduler-conf endpoint counts as read-only', async () => {
    rm.on('GET /scheduler-conf', { status: 404, body: remoteException('NotFoundException', 'not found') });
    await expect(client.schedulerConf()).rejects.toBeInstanceOf(ReadOnlySchedulerConfError);
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
      'add-queue': [{ 'queue-name': 'root.b', params: { entry: [{ key: 'capacity', value: '40' }, { key: 'maximum-capacity', value: '100' }] } }],
      'update-queue': [{ 'queue-name': 'root.default', params: { entry: [{ key: 'capacity', value: '60' }] } }],
    });
  });
});
