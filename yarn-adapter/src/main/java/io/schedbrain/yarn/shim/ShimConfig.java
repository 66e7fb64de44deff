package io.schedbrain.yarn.shim;

import org.apache.hadoop.conf.Configuration;

/**
 * The yarn-site / capacity-scheduler keys that load the schedbrain shim (NodeManager container
 * executor with suspend/resume, ResourceManager node-ordering plugin). The embedded mini cluster
 * calls {@link #apply}; operators set the same keys by hand (docs/operator-guide.md).
 */
public final class ShimConfig {
  private ShimConfig() {}

  /** Adds the shim's keys to {@code conf}. */
  public static void apply(Configuration conf) {
    // Filled in by the shim (issue 4); the launcher already calls it.
  }
}
