package io.schedbrain.yarn.shim;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NodeManager-side state of the shim, shared by every {@link SuspendingContainerExecutor} in
 * the JVM (one per NodeManager; a MiniYARNCluster runs several in one JVM): which containers are
 * running on which node, which ones the shim has suspended, and the brain's lease.
 *
 * <p>Invariant: a container stays suspended only while a lease is live. The watchdog resumes
 * every suspended container as soon as the lease lapses or is released, and on JVM shutdown; a
 * container the NodeManager stops tracking while suspended is continued at once. What is suspended
 * is also kept on disk ({@link SuspensionRecord}): a shim killed outright (no shutdown hook runs)
 * continues, when it starts again, every process it had stopped that is still the same process.
 */
public final class ContainerRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(ContainerRegistry.class);

  /** How a container's root pid is found (the executor's pid file); null until it is written. */
  public interface PidSource {
    String pid();
  }

  /**
   * What the RM allocated to a container, as the NodeManager holds it (its resource and container
   * token): the same figures the RM's container reports give, so the brain can take a node's
   * containers from here instead of reading every application's from the RM.
   */
  public static final class Allocation {
    public final long memoryMB;
    public final long vcores;
    /** The container token's creation time: the RM's RMContainer creation time, which its REST API calls startedTime. */
    public final long createdAtMs;
    /** The token's container type says APPLICATION_MASTER. */
    public final boolean appMaster;

    public Allocation(long memoryMB, long vcores, long createdAtMs, boolean appMaster) {
      this.memoryMB = memoryMB;
      this.vcores = vcores;
      this.createdAtMs = createdAtMs;
      this.appMaster = appMaster;
    }
  }

  /** The process operations, replaceable in tests. */
  public interface Signaller {
    void signal(int rootPid, String signal) throws IOException;
  }

  /** A process's start time in clock ticks after boot (/proc/[pid]/stat field 22); -1 when it is gone. */
  public interface StartTimes {
    long of(int pid);
  }

  static final class Entry {
    final String containerId;
    final Supplier<String> nodeId;
    final PidSource pidSource;
    /** Read at each listing (a container's resource can be updated while it runs); null: unknown. */
    final Supplier<Allocation> allocation;
    Integer pid;
    boolean suspended;
    long suspendedAtMs;
    /** The root process's start time when it was suspended (for the on-disk record). */
    long suspendedStartTicks = -1;
    long runningSinceMs;
    long attainedHighWaterMs;

    Entry(String containerId, Supplier<String> nodeId, PidSource pidSource, Supplier<Allocation> allocation, long now) {
      this.containerId = containerId;
      this.nodeId = nodeId;
      this.pidSource = pidSource;
      this.allocation = allocation;
      this.runningSinceMs = now;
    }

    Integer pid() {
      if (pid == null) {
        String p = pidSource.pid();
        if (p != null && !p.trim().isEmpty()) {
          try {
            pid = Integer.valueOf(p.trim());
          } catch (NumberFormatException e) {
            // not a Linux pid (e.g. Windows container id): cannot be suspended
          }
        }
      }
      return pid;
    }
  }

  /** The brain's lease, with the leadership epoch it was taken under (0: none given). */
  public static final class Lease {
    public final String holder;
    public final long ttlMs;
    public final long expiresAtMs;
    public final long epoch;

    Lease(String holder, long ttlMs, long expiresAtMs, long epoch) {
      this.holder = holder;
      this.ttlMs = ttlMs;
      this.expiresAtMs = expiresAtMs;
      this.epoch = epoch;
    }
  }

  /** A container as reported on the wire. */
  public static final class View {
    public final String containerId;
    public final String nodeId;
    public final String state;
    public final long attainedServiceMs;
    public final long runningSinceMs;
    public final Long suspendedAtMs;
    public final int pid;
    public final List<ProcFs.Stat> processes;
    /** Null when the executor could not tell (a container registered without it). */
    public final Allocation allocation;

    View(Entry e, long attained, List<ProcFs.Stat> processes) {
      this.containerId = e.containerId;
      this.nodeId = e.nodeId.get();
      this.state = e.suspended ? "SUSPENDED" : "RUNNING";
      this.attainedServiceMs = attained;
      this.runningSinceMs = e.runningSinceMs;
      this.suspendedAtMs = e.suspended ? e.suspendedAtMs : null;
      this.pid = e.pid;
      this.processes = processes;
      this.allocation = e.allocation == null ? null : e.allocation.get();
    }
  }

  private final Map<String, Entry> containers = new LinkedHashMap<>();
  private final List<Supplier<String>> nodes = new ArrayList<>();
  /** Each node's resources as its NodeManager is configured ({memoryMB, vcores}), when known. */
  private final Map<Supplier<String>, long[]> configured = new LinkedHashMap<>();
  /**
   * Fencing: the highest leadership epoch a brain sent since the last lease lapsed or was
   * released; a change from an older epoch is refused. 0: none seen.
   */
  private long fenceEpoch;
  private long fenceAdmittedAtMs;
  /**
   * A shim that holds no lease (the ResourceManager's, which only takes the ranking) forgets the
   * epoch after this long without a change: by then a stalled leader knows its own lease lapsed.
   */
  static final long FENCE_MEMORY_MS = 3_600_000L;
  private final LongSupplier clock;
  private final Signaller signaller;
  private final StartTimes startTimes;
  private Lease lease;
  private ScheduledExecutorService watchdog;
  /** Where suspensions are kept across a shim's death; null: not kept. */
  private SuspensionRecord record;

  public ContainerRegistry(LongSupplier clock, Signaller signaller) {
    this(clock, signaller, ContainerRegistry::procStartTicks);
  }

  public ContainerRegistry(LongSupplier clock, Signaller signaller, StartTimes startTimes) {
    this.clock = clock;
    this.signaller = signaller;
    this.startTimes = startTimes;
  }

  static long procStartTicks(int pid) {
    ProcFs.Stat s = ProcFs.readStat(pid);
    return s == null ? -1 : s.startTicks;
  }

  /** The real thing: wall clock, kill(1) on the container's process group and tree. */
  public static ContainerRegistry system() {
    return new ContainerRegistry(System::currentTimeMillis, (pid, sig) -> ProcFs.signalTreeAndSettle(pid, sig, 500));
  }

  /** Starts the watchdog (checks the lease every {@code periodMs}) and the shutdown hook. */
  public synchronized void startWatchdog(long periodMs) {
    if (watchdog != null) {
      return;
    }
    watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "schedbrain-shim-watchdog");
      t.setDaemon(true);
      return t;
    });
    watchdog.scheduleWithFixedDelay(() -> {
      try {
        checkLease();
      } catch (Throwable t) {
        LOG.error("shim watchdog check failed", t);
      }
    }, periodMs, periodMs, TimeUnit.MILLISECONDS);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> resumeAll("JVM shutdown"), "schedbrain-shim-resume-all"));
  }

  /**
   * Keeps suspensions in {@code r} from now on. First continues what the record lists from an
   * earlier shim (one that died without resuming): each process still alive with the start time
   * recorded; a pid now naming another process, or none, is left alone. Then the record is
   * rewritten to hold this registry's suspensions only (none, at start). Returns the container
   * ids continued.
   */
  public synchronized List<String> keepSuspensionsIn(SuspensionRecord r) {
    List<String> continued = new ArrayList<>();
    List<SuspensionRecord.Line> left;
    try {
      left = r.read();
    } catch (IOException e) {
      LOG.error("cannot read the shim's suspension record {}: {}", r.file(), e.toString());
      left = Collections.emptyList();
    }
    for (SuspensionRecord.Line l : left) {
      long now = startTimes.of(l.pid);
      if (now < 0 || now != l.startTicks) {
        LOG.info("suspension record: {} (pid {}) on {} is gone (the pid is free or names a later process), nothing to continue",
            l.containerId, l.pid, l.nodeId);
        continue;
      }
      try {
        signaller.signal(l.pid, "CONT");
        continued.add(l.containerId);
      } catch (IOException e) {
        LOG.warn("suspension record: cannot continue {} (pid {}) on {}: {}", l.containerId, l.pid, l.nodeId, e.getMessage());
      }
    }
    if (!continued.isEmpty()) {
      LOG.warn("schedbrain shim continued {}: an earlier shim suspended them and stopped without resuming them ({})",
          continued, r.file());
    }
    record = r;
    persist();
    return continued;
  }

  /** The suspensions as they are now, to disk; null when they could not be written (logged). */
  private IOException persist() {
    if (record == null) {
      return null;
    }
    List<SuspensionRecord.Line> lines = new ArrayList<>();
    for (Entry e : containers.values()) {
      if (e.suspended && e.pid != null) {
        lines.add(new SuspensionRecord.Line(e.pid, e.suspendedStartTicks, e.containerId, String.valueOf(e.nodeId.get())));
      }
    }
    try {
      record.write(lines);
      return null;
    } catch (IOException e) {
      LOG.error("cannot write the shim's suspension record {}: {}", record.file(), e.toString());
      return e;
    }
  }

  // ---- executor callbacks ---------------------------------------------------------------

  public synchronized void registerNode(Supplier<String> nodeId) {
    nodes.add(nodeId);
  }

  /** A node with the resources its NodeManager is configured with (yarn.nodemanager.resource.*). */
  public synchronized void registerNode(Supplier<String> nodeId, long memoryMB, long vcores) {
    nodes.add(nodeId);
    configured.put(nodeId, new long[] {memoryMB, vcores});
  }

  /** Node id → {memoryMB, vcores} configured, for the nodes registered with them. */
  public synchronized Map<String, long[]> configuredResources() {
    Map<String, long[]> out = new java.util.TreeMap<>();
    configured.forEach((id, r) -> {
      String n = id.get();
      if (n != null) {
        out.put(n, r.clone());
      }
    });
    return out;
  }

  /**
   * Admits a change sent under leadership {@code epoch} (null: the brain sent none), or refuses it
   * when a newer leader has written here since: the old one may not have noticed it lost.
   */
  public synchronized void admitEpoch(Long epoch) {
    if (epoch == null) {
      return;
    }
    if (epoch < fenceEpoch) {
      throw new ShimError(409, "stale_epoch", "epoch " + epoch + " is older than " + fenceEpoch
          + ", the newest leader's: this brain no longer leads");
    }
    fenceEpoch = epoch;
    fenceAdmittedAtMs = clock.getAsLong();
  }

  /** The highest epoch admitted since the last lease ended (0: none). */
  public synchronized long fenceEpoch() {
    return fenceEpoch;
  }

  public synchronized void containerStarted(String containerId, Supplier<String> nodeId, PidSource pid) {
    containerStarted(containerId, nodeId, pid, null);
  }

  /** A launched container with what the RM allocated to it ({@code allocation} may be null: unknown). */
  public synchronized void containerStarted(String containerId, Supplier<String> nodeId, PidSource pid, Supplier<Allocation> allocation) {
    containers.put(containerId, new Entry(containerId, nodeId, pid, allocation, clock.getAsLong()));
  }

  /**
   * The NodeManager no longer tracks the container (its launch returned). Normally its processes
   * have exited; if the launch was cut short while the shim held them stopped, they are continued:
   * nothing would ever resume them otherwise.
   */
  public synchronized void containerFinished(String containerId) {
    Entry e = containers.remove(containerId);
    if (e != null && e.suspended) {
      try {
        signaller.signal(e.pid, "CONT");
        LOG.warn("{} (pid {}) ended its launch while suspended: continued", containerId, e.pid);
      } catch (IOException ex) {
        LOG.info("{} (pid {}) ended its launch while suspended: {}", containerId, e.pid, ex.getMessage());
      }
      persist();
    }
  }

  /**
   * Called before the NodeManager signals a container (kill, graceful shutdown, thread dump).
   * A suspended container could not act on a TERM or QUIT; the caller continues it right after
   * delivering the signal, so from here on it counts as running.
   *
   * @return true when the container was suspended by the shim
   */
  public synchronized boolean releaseForSignal(String pid) {
    for (Entry e : containers.values()) {
      if (e.suspended && e.pid != null && e.pid.toString().equals(pid)) {
        e.suspended = false;
        e.runningSinceMs = clock.getAsLong();
        persist();
        return true;
      }
    }
    return false;
  }

  public void continueAfterSignal(String pid) {
    try {
      signaller.signal(Integer.parseInt(pid), "CONT");
    } catch (IOException | NumberFormatException e) {
      LOG.info("continue after signal for pid {}: {}", pid, e.getMessage());
    }
  }

  // ---- wire operations ------------------------------------------------------------------

  public synchronized List<String> nodeIds() {
    TreeSet<String> out = new TreeSet<>();
    for (Supplier<String> n : nodes) {
      String id = n.get();
      if (id != null) {
        out.add(id);
      }
    }
    for (Entry e : containers.values()) {
      String id = e.nodeId.get();
      if (id != null) {
        out.add(id);
      }
    }
    return new ArrayList<>(out);
  }

  public synchronized boolean hasNodes() {
    return !nodes.isEmpty();
  }

  /** Containers whose process is running (or suspended), with their attained CPU service. */
  public synchronized List<View> list() {
    List<View> out = new ArrayList<>();
    ProcFs.Snapshot snap = null;
    for (Entry e : containers.values()) {
      Integer pid = e.pid();
      if (pid == null) {
        continue; // not launched yet
      }
      if (snap == null) {
        snap = ProcFs.snapshot();
      }
      List<ProcFs.Stat> tree = snap.tree(pid);
      if (tree.isEmpty()) {
        continue; // exited, the NodeManager has not noticed yet
      }
      e.attainedHighWaterMs = Math.max(e.attainedHighWaterMs, ProcFs.cpuMs(tree));
      out.add(new View(e, e.attainedHighWaterMs, tree));
    }
    return out;
  }

  public synchronized View suspend(String nodeId, String containerId) {
    Entry e = lookup(nodeId, containerId);
    if (liveLease() == null) {
      throw new ShimError(423, "no_lease",
          "suspend needs a live lease: POST /v1/lease {holder, ttlMs} first (a lapsed lease resumes everything)");
    }
    Integer pid = requirePid(e);
    if (!e.suspended) {
      // Recorded before it is stopped: a shim that dies right after must find it on disk.
      e.suspended = true;
      e.suspendedAtMs = clock.getAsLong();
      e.suspendedStartTicks = startTimes.of(pid);
      IOException unrecorded = persist();
      if (unrecorded != null) {
        e.suspended = false;
        persist();
        throw new ShimError(500, "internal", "cannot record the suspension of " + containerId + " (so it is not suspended): "
            + unrecorded.getMessage());
      }
      try {
        signaller.signal(pid, "STOP");
      } catch (IOException ex) {
        e.suspended = false;
        persist();
        throw new ShimError(409, "not_running", "cannot stop " + containerId + ": " + ex.getMessage());
      }
      LOG.info("suspended {} (pid {}) on {}", containerId, pid, nodeId);
    }
    return viewOf(e);
  }

  public synchronized View resume(String nodeId, String containerId) {
    Entry e = lookup(nodeId, containerId);
    Integer pid = requirePid(e);
    if (e.suspended) {
      try {
        signaller.signal(pid, "CONT");
      } catch (IOException ex) {
        throw new ShimError(409, "not_running", "cannot continue " + containerId + ": " + ex.getMessage());
      }
      e.suspended = false;
      e.runningSinceMs = clock.getAsLong();
      persist();
      LOG.info("resumed {} (pid {}) on {}", containerId, pid, nodeId);
    }
    return viewOf(e);
  }

  public synchronized Lease acquireLease(String holder, long ttlMs) {
    return acquireLease(holder, ttlMs, null);
  }

  /**
   * Takes or renews the lease. Another holder's live lease is taken over only by a newer leader
   * (a higher epoch): its suspensions are kept, for the new leader to adopt or undo.
   */
  public synchronized Lease acquireLease(String holder, long ttlMs, Long epoch) {
    Lease live = liveLease();
    long e = epoch == null ? 0 : epoch;
    if (live != null && !live.holder.equals(holder)) {
      if (e <= live.epoch) {
        throw new ShimError(409, "lease_held", "lease held by '" + live.holder + "' until "
            + live.expiresAtMs + " (epoch ms); it must lapse or be released first");
      }
      LOG.warn("lease of '{}' (epoch {}) taken over by '{}' (epoch {})", live.holder, live.epoch, holder, e);
    }
    lease = new Lease(holder, ttlMs, clock.getAsLong() + ttlMs, Math.max(e, live != null && live.holder.equals(holder) ? live.epoch : 0));
    return lease;
  }

  /** Releases the lease (only its holder may) and resumes everything. Returns the resumed ids. */
  public synchronized List<String> releaseLease(String holder) {
    Lease live = liveLease();
    if (live != null && !live.holder.equals(holder)) {
      throw new ShimError(409, "lease_held", "lease held by '" + live.holder + "', not by '" + holder + "'");
    }
    lease = null;
    fenceEpoch = 0;
    return resumeAll("lease released by " + holder);
  }

  public synchronized Lease liveLease() {
    if (lease != null && clock.getAsLong() >= lease.expiresAtMs) {
      return null;
    }
    return lease;
  }

  /** Watchdog step: when no live lease exists, resume whatever is suspended. */
  public synchronized List<String> checkLease() {
    if (liveLease() != null) {
      return Collections.emptyList();
    }
    if (lease == null && fenceEpoch > 0 && clock.getAsLong() - fenceAdmittedAtMs >= FENCE_MEMORY_MS) {
      fenceEpoch = 0;
    }
    String why = lease == null ? "no lease" : "lease of '" + lease.holder + "' lapsed";
    if (lease != null) {
      // No brain acts here any more: the next leader starts afresh (its lock may be new).
      fenceEpoch = 0;
    }
    lease = null;
    return resumeAll(why);
  }

  synchronized List<String> resumeAll(String why) {
    List<String> resumed = new ArrayList<>();
    for (Entry e : containers.values()) {
      if (!e.suspended) {
        continue;
      }
      try {
        signaller.signal(e.pid, "CONT");
      } catch (IOException ex) {
        LOG.warn("watchdog: continue {} (pid {}): {}", e.containerId, e.pid, ex.getMessage());
      }
      // Whatever kill said (a vanished process cannot stay frozen), the shim no longer holds it.
      e.suspended = false;
      e.runningSinceMs = clock.getAsLong();
      resumed.add(e.containerId);
    }
    if (!resumed.isEmpty()) {
      persist();
      LOG.warn("shim watchdog resumed {} ({})", resumed, why);
    }
    return resumed;
  }

  // ---- helpers ----------------------------------------------------------------------------

  private Entry lookup(String nodeId, String containerId) {
    Entry e = containers.get(containerId);
    if (e == null) {
      throw new ShimError(404, "unknown_container", "no running container " + containerId + " on this shim");
    }
    String actual = e.nodeId.get();
    if (actual == null || !actual.equals(nodeId)) {
      throw new ShimError(409, "wrong_node", "container " + containerId + " runs on " + actual + ", not on " + nodeId);
    }
    return e;
  }

  private Integer requirePid(Entry e) {
    Integer pid = e.pid();
    if (pid == null) {
      throw new ShimError(409, "not_running", "container " + e.containerId + " has no process yet (still launching)");
    }
    return pid;
  }

  private View viewOf(Entry e) {
    List<ProcFs.Stat> tree = ProcFs.snapshot().tree(e.pid);
    e.attainedHighWaterMs = Math.max(e.attainedHighWaterMs, ProcFs.cpuMs(tree));
    return new View(e, e.attainedHighWaterMs, tree);
  }
}
