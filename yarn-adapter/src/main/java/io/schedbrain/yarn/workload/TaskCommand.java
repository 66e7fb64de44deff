package io.schedbrain.yarn.workload;

import org.apache.hadoop.yarn.api.ApplicationConstants;

/** A task spec {@code sleep:<seconds>} or {@code cpu:<seconds>} and the container command running it. */
final class TaskCommand {
  final String kind;
  final int seconds;

  private TaskCommand(String kind, int seconds) {
    this.kind = kind;
    this.seconds = seconds;
  }

  static TaskCommand parse(String spec) {
    int colon = spec.indexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("command must be sleep:<seconds> or cpu:<seconds>, got " + spec);
    }
    String kind = spec.substring(0, colon);
    if (!kind.equals("sleep") && !kind.equals("cpu")) {
      throw new IllegalArgumentException("unknown command kind " + kind);
    }
    int seconds = Integer.parseInt(spec.substring(colon + 1));
    if (seconds < 0) {
      throw new IllegalArgumentException("seconds must be >= 0");
    }
    return new TaskCommand(kind, seconds);
  }

  /** Runs the localized task.sh; the NM wraps this in its launch script (setsid → own process group). */
  String containerCommand() {
    return "/bin/bash task.sh " + kind + " " + seconds
        + " 1>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stdout"
        + " 2>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/stderr";
  }
}
