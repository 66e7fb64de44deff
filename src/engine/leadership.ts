/**
 * One active brain: a brain writes only while it holds the leadership lease. `LeaderElection` is
 * what the engine needs of an election; `FileLeaderElection` is the single-host default (a lock
 * file), `ZooKeeperLeaderElection` (./leadership-zk.ts) the one for a cluster.
 *
 * The epoch numbers leaderships: it only grows from one leader to the next, every write the brain
 * sends carries it, and the NodeManager shims refuse writes from an older epoch (fencing).
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';

export type LeadershipRole = 'leader' | 'standby';

/** Who leads, as this brain knows it. `holder` is the leader's name (this brain's when it leads). */
export interface Leadership {
  readonly role: LeadershipRole;
  /** The leader's epoch; 0 while no leader is known. */
  readonly epoch: number;
  readonly holder: string | undefined;
}

export interface LeaderElection {
  /** This brain's name among the contenders (unique per process: `leaseHolderFor`). */
  readonly holder: string;
  /** A leader that stops renewing for this long loses the leadership to a contender. */
  readonly leaseMs: number;
  /** Becomes leader if no one else is (or the leader's lease lapsed); true when this brain leads. */
  acquire(): Promise<boolean>;
  /** Keeps the leadership alive; false when it was lost (then `acquire` again). */
  renew(): Promise<boolean>;
  /** Gives the leadership up at once (clean shutdown), so a standby need not wait for the lease. */
  release(): Promise<void>;
  /** True while this brain leads and its lease cannot have lapsed yet. */
  isLeader(): boolean;
  /**
   * Epoch of this brain's current or last leadership (0: it never led); what its writes carry.
   * The leader it knows of, and that one's epoch, are in `status()`.
   */
  readonly epoch: number;
  /** Role, epoch and leader as this brain knows them. */
  status(): Leadership;
}

/** What the lock file holds. */
interface LockRecord {
  holder: string;
  epoch: number;
  /** Last renewal, epoch ms; 0 after a release (lapsed at once). */
  heartbeatAtMs: number;
}

export interface FileLeaderElectionOptions {
  /** The lock file; every contender must name the same one (same host or a shared, POSIX-locking directory). */
  readonly path: string;
  readonly holder: string;
  readonly leaseMs: number;
  /** Epoch ms; the engine's clock in tests. */
  readonly now?: () => number;
}

/**
 * A leader a contender must not yet overrule stops writing this much before its lease lapses, so
 * a renewal that lands late never overlaps a takeover.
 */
export function leaderGuardMs(leaseMs: number): number {
  return Math.floor(leaseMs / 5);
}

function parseRecord(text: string): LockRecord | undefined {
  try {
    const r = JSON.parse(text) as Partial<LockRecord>;
    if (typeof r.holder !== 'string' || !Number.isSafeInteger(r.epoch) || (r.epoch as number) < 0 || typeof r.heartbeatAtMs !== 'number') return undefined;
    return { holder: r.holder, epoch: r.epoch as number, heartbeatAtMs: r.heartbeatAtMs };
  } catch {
    return undefined;
  }
}

/** A temporary file's name beside `path`, unique to this process and call. */
const tempBeside = (path: string): string => `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;

/** Creates `path` exclusively (EEXIST when it exists) and writes `text` to it. */
async function writeNewFile(path: string, text: string): Promise<void> {
  const fh = await open(path, 'wx', 0o644);
  try {
    await fh.writeFile(text);
  } finally {
    await fh.close();
  }
}

/**
 * Creates `path` holding `text`, failing with EEXIST when it exists: a temporary file beside it,
 * hard-linked into place, so the file is never seen without its text. Where hard links are not
 * supported, created exclusively and then written.
 */
async function createWhole(path: string, text: string): Promise<void> {
  const tmp = tempBeside(path);
  await writeNewFile(tmp, text);
  try {
    await link(tmp, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw e;
    await writeNewFile(path, text);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** Writes `text` to `path` atomically: a temporary file beside it, fsynced, renamed over it, the directory fsynced. */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const tmp = tempBeside(path);
  const fh = await open(tmp, 'w', 0o644);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw e;
  }
  const dir = await open(dirname(path), constants.O_RDONLY).catch(() => undefined);
  if (dir) {
    await dir.sync().catch(() => undefined);
    await dir.close();
  }
}

/**
 * Leadership through a lock file holding `{holder, epoch, heartbeatAtMs}`. The leader rewrites it
 * (atomically) at every renewal; a contender takes it over only once the heartbeat is older than
 * the lease, with the epoch one higher. A takeover is serialised by a claim file created
 * exclusively beside the lock (`<path>.claim`), so two contenders never both win a lapsed lock.
 */
export class FileLeaderElection implements LeaderElection {
  readonly holder: string;
  readonly leaseMs: number;
  private readonly path: string;
  private readonly claimPath: string;
  private readonly now: () => number;
  private leading = false;
  private heartbeatAtMs = 0;
  private known: { holder: string | undefined; epoch: number } = { holder: undefined, epoch: 0 };
  /** Epoch of this brain's current or last leadership (0: never led). */
  private ownEpoch = 0;

  constructor(opts: FileLeaderElectionOptions) {
    if (!(opts.leaseMs > 0)) throw new RangeError(`leaseMs must be > 0, got ${opts.leaseMs}`);
    this.path = opts.path;
    this.claimPath = `${opts.path}.claim`;
    this.holder = opts.holder;
    this.leaseMs = opts.leaseMs;
    this.now = opts.now ?? Date.now;
  }

  get epoch(): number {
    return this.ownEpoch;
  }

  isLeader(): boolean {
    return this.leading && this.now() - this.heartbeatAtMs < this.leaseMs - leaderGuardMs(this.leaseMs);
  }

  status(): Leadership {
    return { role: this.isLeader() ? 'leader' : 'standby', epoch: this.known.epoch, holder: this.known.holder };
  }

  private async read(): Promise<LockRecord | undefined> {
    try {
      return parseRecord(await readFile(this.path, 'utf8'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  private lapsed(r: LockRecord): boolean {
    return this.now() - r.heartbeatAtMs >= this.leaseMs;
  }

  async renew(): Promise<boolean> {
    if (!this.isLeader()) {
      this.leading = false;
      return false;
    }
    const r = await this.read();
    if (!r || r.holder !== this.holder || r.epoch !== this.ownEpoch) {
      this.leading = false;
      if (r) this.known = { holder: r.holder, epoch: r.epoch };
      return false;
    }
    // Given up meanwhile (release): a late heartbeat would hold the lock for another lease.
    if (!this.leading) return false;
    const at = this.now();
    await writeFileAtomic(this.path, JSON.stringify({ holder: this.holder, epoch: r.epoch, heartbeatAtMs: at }));
    this.heartbeatAtMs = at;
    return true;
  }

  async acquire(): Promise<boolean> {
    if (this.leading && (await this.renew())) return true;
    await mkdir(dirname(this.path), { recursive: true });
    const seen = await this.read();
    if (seen && !this.lapsed(seen) && seen.holder !== this.holder) {
      this.known = { holder: seen.holder, epoch: seen.epoch };
      return false;
    }
    if (!(await this.claim())) {
      // A contender is taking over: learn who, when it already wrote the lock.
      const r = (await this.read()) ?? seen;
      if (r) this.known = { holder: r.holder, epoch: r.epoch };
      return false;
    }
    try {
      // Under the claim: read again, a contender may have taken over since.
      const r = await this.read();
      if (r && !this.lapsed(r) && r.holder !== this.holder) {
        this.known = { holder: r.holder, epoch: r.epoch };
        return false;
      }
      const epoch = (r?.epoch ?? 0) + 1;
      const at = this.now();
      await writeFileAtomic(this.path, JSON.stringify({ holder: this.holder, epoch, heartbeatAtMs: at }));
      this.known = { holder: this.holder, epoch };
      this.ownEpoch = epoch;
      this.heartbeatAtMs = at;
      this.leading = true;
      return true;
    } finally {
      await unlink(this.claimPath).catch(() => undefined);
    }
  }

  /**
   * Creates the claim file exclusively, whole: written beside it first and hard-linked into
   * place, so another contender never reads a claim half written (it took an empty one for a dead
   * contender's and broke it: both then led). A claim left by a contender that died is broken
   * after a lease; one that cannot be read (left by a crash mid-write where links are not
   * supported), once its file is older than a lease.
   */
  private async claim(): Promise<boolean> {
    const body = JSON.stringify({ holder: this.holder, atMs: this.now() });
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await createWhole(this.claimPath, body);
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        const text = await readFile(this.claimPath, 'utf8').catch(() => undefined);
        if (text === undefined) continue; // gone meanwhile: try again
        let atMs: number | undefined;
        try {
          atMs = (JSON.parse(text) as { atMs?: number }).atMs;
        } catch {
          atMs = undefined;
        }
        if (typeof atMs === 'number') {
          if (this.now() - atMs < this.leaseMs) return false;
        } else {
          const file = await stat(this.claimPath).catch(() => undefined);
          if (file && Date.now() - file.mtimeMs < this.leaseMs) return false;
        }
        await unlink(this.claimPath).catch(() => undefined);
      }
    }
    return false;
  }

  async release(): Promise<void> {
    const wasLeading = this.leading;
    this.leading = false;
    if (!wasLeading) return;
    const r = await this.read();
    if (r && r.holder === this.holder && r.epoch === this.ownEpoch) {
      // The epoch stays, so the next leader's is higher; a heartbeat of 0 has lapsed already.
      await writeFileAtomic(this.path, JSON.stringify({ holder: this.holder, epoch: r.epoch, heartbeatAtMs: 0 }));
    }
  }
}
