/**
 * Leadership through ZooKeeper, the coordination service a Hadoop cluster already runs (the RM's
 * own HA elects through it). The recipe is ZooKeeper's own: every contender creates an ephemeral
 * sequential znode under `path`; the lowest one leads. A leader's znode goes with its session, so
 * a brain that dies or stalls longer than the session timeout (the lease) hands over on its own.
 * Each new leader takes its epoch from a persistent counter znode (`<path>/epoch`), incremented
 * with a versioned write, so epochs only grow, whoever leads.
 */
import zookeeper, { type Client, type Stat, type ZkException } from 'node-zookeeper-client';
import type { Logger } from 'pino';
import { leaderGuardMs, type LeaderElection, type Leadership } from './leadership.js';

export interface ZooKeeperLeaderElectionOptions {
  /** The ensemble: `host:port[,host:port...]` (optionally with a chroot `/path` at the end). */
  readonly connect: string;
  /** Parent znode of the candidates and the epoch counter, e.g. `/schedbrain/leader`. */
  readonly path: string;
  readonly holder: string;
  /** The session timeout asked for (ZooKeeper clamps it to 2..20 ticks of its tickTime). */
  readonly leaseMs: number;
  readonly now?: () => number;
  readonly logger?: Logger;
}

const CANDIDATE = 'candidate-';
const EPOCH_NODE = 'epoch';

function zkCode(e: unknown): number | undefined {
  return typeof (e as ZkException | undefined)?.getCode === 'function' ? (e as ZkException).getCode() : undefined;
}

/** A candidate znode's sequence number (ZooKeeper appends ten digits). */
function sequenceOf(name: string): number {
  return Number(name.slice(CANDIDATE.length));
}

export class ZooKeeperLeaderElection implements LeaderElection {
  readonly holder: string;
  readonly leaseMs: number;
  private readonly opts: ZooKeeperLeaderElectionOptions;
  private readonly now: () => number;
  private client: Client | undefined;
  private connected = false;
  private expired = false;
  /** Full path of this brain's candidate znode, while its session lives. */
  private candidate: string | undefined;
  private leading = false;
  private lastOkAtMs = 0;
  private known: { holder: string | undefined; epoch: number } = { holder: undefined, epoch: 0 };
  /** Epoch of this brain's current or last leadership (0: never led). */
  private ownEpoch = 0;

  constructor(opts: ZooKeeperLeaderElectionOptions) {
    if (!opts.path.startsWith('/') || opts.path.endsWith('/')) throw new RangeError(`the election path must be an absolute znode path, got "${opts.path}"`);
    if (!(opts.leaseMs > 0)) throw new RangeError(`leaseMs must be > 0, got ${opts.leaseMs}`);
    this.opts = opts;
    this.holder = opts.holder;
    this.leaseMs = opts.leaseMs;
    this.now = opts.now ?? Date.now;
  }

  get epoch(): number {
    return this.ownEpoch;
  }

  isLeader(): boolean {
    return this.leading && this.connected && !this.expired && this.now() - this.lastOkAtMs < this.leaseMs - leaderGuardMs(this.leaseMs);
  }

  status(): Leadership {
    return { role: this.isLeader() ? 'leader' : 'standby', epoch: this.known.epoch, holder: this.known.holder };
  }

  async acquire(): Promise<boolean> {
    const client = await this.session();
    if (this.candidate === undefined || !(await this.call<Stat | null>((cb) => client.exists(this.candidate!, cb)))) {
      this.leading = false;
      await this.call<string>((cb) => client.mkdirp(this.opts.path, cb));
      this.candidate = await this.call<string>((cb) =>
        client.create(`${this.opts.path}/${CANDIDATE}`, Buffer.from(this.holder), zookeeper.CreateMode.EPHEMERAL_SEQUENTIAL, cb),
      );
    }
    const candidates = (await this.call<string[]>((cb) => client.getChildren(this.opts.path, cb)))
      .filter((c) => c.startsWith(CANDIDATE))
      .sort((a, b) => sequenceOf(a) - sequenceOf(b));
    const first = candidates[0];
    if (first !== undefined && `${this.opts.path}/${first}` === this.candidate) {
      if (!this.leading) {
        const epoch = await this.nextEpoch(client);
        this.known = { holder: this.holder, epoch };
        this.ownEpoch = epoch;
        this.leading = true;
        this.opts.logger?.info({ epoch, candidate: this.candidate }, 'leadership taken (ZooKeeper)');
      }
      this.lastOkAtMs = this.now();
      return true;
    }
    this.leading = false;
    const leader = first === undefined ? undefined : await this.getData(client, `${this.opts.path}/${first}`).catch(() => undefined);
    const epoch = await this.getData(client, `${this.opts.path}/${EPOCH_NODE}`).then(
      (b) => Number(b?.toString() ?? '0') || 0,
      () => this.known.epoch,
    );
    this.known = { holder: leader?.toString(), epoch };
    return false;
  }

  async renew(): Promise<boolean> {
    if (!this.leading || !this.client || this.expired || this.candidate === undefined) {
      this.leading = false;
      return false;
    }
    const client = this.client;
    const stat = await this.call<Stat | null>((cb) => client.exists(this.candidate!, cb));
    if (!stat) {
      this.leading = false;
      this.candidate = undefined;
      return false;
    }
    this.lastOkAtMs = this.now();
    return this.isLeader();
  }

  async release(): Promise<void> {
    const client = this.client;
    const candidate = this.candidate;
    this.leading = false;
    this.candidate = undefined;
    this.client = undefined;
    this.connected = false;
    if (!client) return;
    if (candidate !== undefined && !this.expired) await this.call<void>((cb) => client.remove(candidate, -1, (e) => cb(e, undefined))).catch(() => undefined);
    client.close();
  }

  /** The epoch counter plus one, written with the version read: two new leaders never share one. */
  private async nextEpoch(client: Client): Promise<number> {
    const path = `${this.opts.path}/${EPOCH_NODE}`;
    for (;;) {
      let data: Buffer | undefined;
      let stat: Stat;
      try {
        ({ data, stat } = await new Promise<{ data: Buffer | undefined; stat: Stat }>((resolve, reject) =>
          this.withDeadline(reject, (done) => client.getData(path, (e, d, s) => (done() ? undefined : e ? reject(e) : resolve({ data: d, stat: s })))),
        ));
      } catch (e) {
        if (zkCode(e) !== zookeeper.Exception.NO_NODE) throw e;
        await this.call<string>((cb) => client.create(path, Buffer.from('0'), zookeeper.CreateMode.PERSISTENT, cb)).catch((err: unknown) => {
          if (zkCode(err) !== zookeeper.Exception.NODE_EXISTS) throw err;
        });
        continue;
      }
      const next = (Number(data?.toString() ?? '0') || 0) + 1;
      try {
        await this.call<Stat>((cb) => client.setData(path, Buffer.from(String(next)), stat.version, cb));
        return next;
      } catch (e) {
        if (zkCode(e) !== zookeeper.Exception.BAD_VERSION) throw e;
      }
    }
  }

  private getData(client: Client, path: string): Promise<Buffer | undefined> {
    return new Promise((resolve, reject) =>
      this.withDeadline(reject, (done) => client.getData(path, (e, d) => (done() ? undefined : e ? reject(e) : resolve(d)))),
    );
  }

  /** A connected client, a new session when there is none or the last one expired. */
  private async session(): Promise<Client> {
    if (this.client && !this.expired) {
      if (this.connected) return this.client;
    } else {
      if (this.client) this.client.close();
      this.connected = false;
      this.expired = false;
      this.candidate = undefined;
      this.leading = false;
      const client = zookeeper.createClient(this.opts.connect, { sessionTimeout: this.leaseMs, spinDelay: 200, retries: 1 });
      client.on('state', (s) => {
        if (client !== this.client) return;
        this.connected = s === zookeeper.State.SYNC_CONNECTED;
        if (s === zookeeper.State.EXPIRED) {
          this.expired = true;
          this.leading = false;
          this.opts.logger?.warn('ZooKeeper session expired: leadership lost');
        }
      });
      this.client = client;
      client.connect();
    }
    const client = this.client;
    await new Promise<void>((resolve, reject) => {
      if (this.connected) return resolve();
      const timer = setTimeout(
        () => {
          client.removeListener('state', onState);
          reject(new Error(`ZooKeeper ${this.opts.connect} not connected within ${Math.round(this.leaseMs / 2)} ms`));
        },
        Math.round(this.leaseMs / 2),
      );
      const onState = (s: zookeeper.State) => {
        if (s !== zookeeper.State.SYNC_CONNECTED) return;
        clearTimeout(timer);
        client.removeListener('state', onState);
        resolve();
      };
      client.on('state', onState);
    });
    return client;
  }

  /** One ZooKeeper call, failed when it has not answered within half a lease. */
  private call<T>(start: (cb: (e: ZkException | Error | null, v: T) => void) => void): Promise<T> {
    return new Promise<T>((resolve, reject) => this.withDeadline(reject, (done) => start((e, v) => (done() ? undefined : e ? reject(e) : resolve(v)))));
  }

  private withDeadline(reject: (e: Error) => void, run: (done: () => boolean) => void): void {
    let finished = false;
    const timer = setTimeout(
      () => {
        if (finished) return;
        finished = true;
        reject(new Error(`ZooKeeper ${this.opts.connect} did not answer within ${Math.round(this.leaseMs / 2)} ms`));
      },
      Math.round(this.leaseMs / 2),
    );
    run(() => {
      if (finished) return true;
      finished = true;
      clearTimeout(timer);
      return false;
    });
  }
}
