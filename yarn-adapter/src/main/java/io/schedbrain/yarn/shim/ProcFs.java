package io.schedbrain.yarn.shim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Linux /proc reading and process-group signalling for the NodeManager side of the shim.
 *
 * <p>A container launched by {@code DefaultContainerExecutor} runs under
 * {@code exec setsid /bin/bash launch_container.sh}; the pid in the container's pid file is the
 * process that called setsid, hence the leader of its own session and process group. Everything
 * the container forks stays in that group unless it calls setsid/setpgid itself, so the tree is
 * taken as the union of the leader's descendants (by ppid) and the members of its session.
 */
public final class ProcFs {
  private ProcFs() {}

  /** Clock ticks per second used by the utime/stime fields of /proc/[pid]/stat. */
  public static final long CLK_TCK = clockTicks();

  /** One line of /proc/[pid]/stat, the fields the shim needs. */
  public static final class Stat {
    public final int pid;
    public final char state;
    public final int ppid;
    public final int pgrp;
    public final int session;
    /** utime + stime of the process itself, in clock ticks. */
    public final long ownTicks;
    /** cutime + cstime: children that exited and were waited for, in clock ticks. */
    public final long reapedChildTicks;
    /**
     * When the process started, in clock ticks after boot (field 22); -1 when the line has no
     * such field. With the pid it names one process for good: a reused pid starts later.
     */
    public final long startTicks;

    Stat(int pid, char state, int ppid, int pgrp, int session, long ownTicks, long reapedChildTicks, long startTicks) {
      this.pid = pid;
      this.state = state;
      this.ppid = ppid;
      this.pgrp = pgrp;
      this.session = session;
      this.ownTicks = ownTicks;
      this.reapedChildTicks = reapedChildTicks;
      this.startTicks = startTicks;
    }

    /** Stopped by a signal (T) or by a tracer (t). */
    public boolean stopped() {
      return state == 'T' || state == 't';
    }
  }

  /** Parses the content of /proc/[pid]/stat; null when it does not look like one. */
  public static Stat parseStat(String line) {
    // The command name (field 2) is in parentheses and may itself contain spaces and ')'.
    int open = line.indexOf('(');
    int close = line.lastIndexOf(')');
    if (open < 0 || close < open || close + 2 > line.length()) {
      return null;
    }
    try {
      int pid = Integer.parseInt(line.substring(0, open).trim());
      String[] f = line.substring(close + 2).trim().split("\\s+");
      // f[0] is field 3 (state); field n is f[n - 3].
      if (f.length < 15) {
        return null;
      }
      char state = f[0].charAt(0);
      int ppid = Integer.parseInt(f[1]);
      int pgrp = Integer.parseInt(f[2]);
      int session = Integer.parseInt(f[3]);
      long utime = Long.parseLong(f[11]);
      long stime = Long.parseLong(f[12]);
      long cutime = Long.parseLong(f[13]);
      long cstime = Long.parseLong(f[14]);
      long startTicks = f.length > 19 ? Long.parseLong(f[19]) : -1;
      return new Stat(pid, state, ppid, pgrp, session, utime + stime, cutime + cstime, startTicks);
    } catch (RuntimeException e) {
      return null;
    }
  }

  public static Stat readStat(int pid) {
    try {
      return parseStat(new String(Files.readAllBytes(Paths.get("/proc", Integer.toString(pid), "stat")),
          StandardCharsets.US_ASCII));
    } catch (IOException e) {
      return null; // gone
    }
  }

  /** A snapshot of every process on the host. */
  public static final class Snapshot {
    private final Map<Integer, Stat> byPid;
    private final Map<Integer, List<Integer>> children = new HashMap<>();

    Snapshot(Map<Integer, Stat> byPid) {
      this.byPid = byPid;
      for (Stat s : byPid.values()) {
        children.computeIfAbsent(s.ppid, k -> new ArrayList<>()).add(s.pid);
      }
    }

    public Stat get(int pid) {
      return byPid.get(pid);
    }

    /**
     * The container's processes: the root, its descendants, and every process of the root's
     * session (when the root leads one). Ordered root first, then breadth first.
     */
    public List<Stat> tree(int root) {
      Stat r = byPid.get(root);
      if (r == null) {
        return Collections.emptyList();
      }
      Deque<Integer> todo = new ArrayDeque<>();
      todo.add(root);
      if (r.session == root) {
        for (Stat s : byPid.values()) {
          if (s.session == root && s.pid != root) {
            todo.add(s.pid);
          }
        }
      }
      Set<Integer> seen = new LinkedHashSet<>();
      while (!todo.isEmpty()) {
        int p = todo.poll();
        if (seen.add(p)) {
          todo.addAll(children.getOrDefault(p, Collections.emptyList()));
        }
      }
      List<Stat> out = new ArrayList<>(seen.size());
      for (int p : seen) {
        out.add(byPid.get(p));
      }
      return out;
    }
  }

  public static Snapshot snapshot() {
    Map<Integer, Stat> all = new HashMap<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(Paths.get("/proc"))) {
      for (Path p : ds) {
        String name = p.getFileName().toString();
        if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
          continue;
        }
        int pid;
        try {
          pid = Integer.parseInt(name);
        } catch (NumberFormatException e) {
          continue;
        }
        Stat s = readStat(pid);
        if (s != null) {
          all.put(pid, s);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc: " + e.getMessage(), e);
    }
    return new Snapshot(all);
  }

  /**
   * CPU time (user + system) of a process tree in ms: each live process's own time plus the
   * time of its exited-and-reaped children (cutime/cstime already include their reaped
   * descendants). Children reaped by someone outside the tree (e.g. re-parented to init) are lost,
   * so callers keep a high-water mark.
   */
  public static long cpuMs(List<Stat> tree) {
    long ticks = 0;
    for (Stat s : tree) {
      ticks += s.ownTicks + s.reapedChildTicks;
    }
    return ticks * 1000L / CLK_TCK;
  }

  /**
   * Sends {@code signal} (STOP, CONT, TERM, KILL, ...) to the container rooted at {@code root}:
   * to its process group when the root leads one (the DefaultContainerExecutor case), and to
   * every tree member outside that group individually. Returns the pids signalled.
   */
  public static List<Integer> signalTree(int root, String signal) throws IOException {
    Snapshot snap = snapshot();
    Stat r = snap.get(root);
    if (r == null) {
      throw new IOException("process " + root + " is gone");
    }
    List<Stat> tree = snap.tree(root);
    List<String> targets = new ArrayList<>();
    boolean groupLeader = r.pgrp == root;
    if (groupLeader) {
      targets.add("-" + root);
    }
    List<Integer> pids = new ArrayList<>();
    for (Stat s : tree) {
      pids.add(s.pid);
      if (!groupLeader || s.pgrp != root) {
        targets.add(Integer.toString(s.pid));
      }
    }
    kill(signal, targets);
    return pids;
  }

  /**
   * Signals the tree like {@link #signalTree} and, for STOP and CONT, waits (at most
   * {@code settleMs}) until every process of the tree shows the matching state, so a caller that
   * reports states right after sees the settled ones. Signal delivery itself is asynchronous.
   */
  public static void signalTreeAndSettle(int root, String signal, long settleMs) throws IOException {
    signalTree(root, signal);
    boolean stop = "STOP".equals(signal);
    if (!stop && !"CONT".equals(signal)) {
      return;
    }
    long deadline = System.nanoTime() + settleMs * 1_000_000L;
    while (System.nanoTime() < deadline) {
      boolean settled = true;
      for (Stat s : snapshot().tree(root)) {
        if (s.stopped() != stop && s.state != 'Z') {
          settled = false;
          break;
        }
      }
      if (settled) {
        return;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** {@code kill -SIG -- targets...}; tolerates targets that exited meanwhile. */
  static void kill(String signal, List<String> targets) throws IOException {
    if (targets.isEmpty()) {
      return;
    }
    List<String> cmd = new ArrayList<>();
    cmd.add("kill");
    cmd.add("-s");
    cmd.add(signal);
    cmd.add("--");
    cmd.addAll(targets);
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    Process p = pb.start();
    String out;
    try {
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException("kill -s " + signal + " timed out");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while signalling", e);
    }
    if (p.exitValue() != 0 && !out.contains("No such process")) {
      throw new IOException("kill -s " + signal + " -- " + String.join(" ", targets) + " failed: " + out);
    }
  }

  private static long clockTicks() {
    try {
      Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
      p.waitFor(5, TimeUnit.SECONDS);
      long v = Long.parseLong(out);
      return v > 0 ? v : 100;
    } catch (Exception e) {
      return 100;
    }
  }
}
