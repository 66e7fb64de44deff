package io.schedbrain.yarn.shim;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The shim's durable list of the containers it holds stopped, so that a shim that dies with them
 * (a NodeManager killed with {@code kill -9}: its containers run on, stopped) lets them go when it
 * starts again. One line per suspended container: {@code pid startTicks containerId nodeId}; the
 * start time (field 22 of /proc/[pid]/stat) tells the same process from a later one given the pid.
 * Rewritten whole (write to a temporary file, then an atomic rename) at every change; removed when
 * nothing is suspended.
 */
public final class SuspensionRecord {
  /** Name of the file in the shim's state directory ({@link ShimConfig#STATE_DIR}). */
  public static final String FILE_NAME = "schedbrain-suspended-containers";

  /** One suspended container. */
  public static final class Line {
    public final int pid;
    public final long startTicks;
    public final String containerId;
    public final String nodeId;

    public Line(int pid, long startTicks, String containerId, String nodeId) {
      this.pid = pid;
      this.startTicks = startTicks;
      this.containerId = containerId;
      this.nodeId = nodeId;
    }
  }

  private final Path file;

  public SuspensionRecord(Path file) {
    this.file = file;
  }

  public Path file() {
    return file;
  }

  /** The lines on disk; unreadable lines are skipped (a half-written file cannot exist: see {@link #write}). */
  public List<Line> read() throws IOException {
    List<Line> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    for (String raw : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      String[] f = raw.trim().split(" ");
      if (f.length != 4) {
        continue;
      }
      try {
        out.add(new Line(Integer.parseInt(f[0]), Long.parseLong(f[1]), f[2], f[3]));
      } catch (NumberFormatException e) {
        // not one of ours
      }
    }
    return out;
  }

  /** Replaces the record with {@code lines}; with none, removes the file. */
  public void write(Collection<Line> lines) throws IOException {
    if (lines.isEmpty()) {
      Files.deleteIfExists(file);
      return;
    }
    StringBuilder b = new StringBuilder();
    for (Line l : lines) {
      b.append(l.pid).append(' ').append(l.startTicks).append(' ').append(l.containerId).append(' ').append(l.nodeId).append('\n');
    }
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, b.toString().getBytes(StandardCharsets.UTF_8));
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
