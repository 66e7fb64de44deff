package io.schedbrain.yarn.shim;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * The yarn-site / capacity-scheduler keys that load the schedbrain shim (NodeManager container
 * executor with suspend/resume, ResourceManager node-ordering plugin). The embedded mini cluster
 * calls {@link #apply}; operators set the same keys by hand (docs/operator-guide.md).
 */
public final class ShimConfig {
  private ShimConfig() {}

  // ---- Hadoop keys the shim sets --------------------------------------------------------------
  public static final String CONTAINER_EXECUTOR = "yarn.nodemanager.container-executor.class";
  public static final String MULTI_NODE_ENABLED = "yarn.scheduler.capacity.multi-node-placement-enabled";
  public static final String SORTING_POLICY_NAMES = "yarn.scheduler.capacity.multi-node-sorting.policy.names";
  public static final String SORTING_POLICY = "yarn.scheduler.capacity.multi-node-sorting.policy";
  /** Name of the multi-node sorting policy the shim registers. */
  public static final String POLICY_NAME = "schedbrain";
  public static final String POLICY_CLASS_KEY = SORTING_POLICY + "." + POLICY_NAME + ".class";
  public static final String POLICY_INTERVAL_KEY = SORTING_POLICY + "." + POLICY_NAME + ".sorting-interval.ms";

  // ---- the shim's own keys (yarn-site.xml) ----------------------------------------------------
  /** NodeManager-side shim port; 0 = ephemeral. Also read as a JVM system property (wins). */
  public static final String PORT = "schedbrain.shim.port";
  public static final int DEFAULT_NM_PORT = 18042;
  /** ResourceManager-side shim port (the RM plugin reads yarn-site.xml from the RM classpath). */
  public static final String RM_PORT = "schedbrain.shim.rm.port";
  public static final int DEFAULT_RM_PORT = 18088;
  public static final String BIND_ADDRESS = "schedbrain.shim.bind-address";
  public static final String DEFAULT_BIND_ADDRESS = "0.0.0.0";
  /** Optional file the shim writes its URL to once bound. */
  public static final String URL_FILE = "schedbrain.shim.url-file";
  public static final String WATCHDOG_INTERVAL_MS = "schedbrain.shim.watchdog-interval-ms";
  public static final long DEFAULT_WATCHDOG_INTERVAL_MS = 100;
  /** System property the running shim publishes its URL in (same JVM). */
  public static final String URL_PROPERTY = "schedbrain.shim.url";

  private static volatile Configuration embedded;

  /** Adds the shim's keys to {@code conf} (the embedded mini cluster: loopback, ephemeral port). */
  public static void apply(Configuration conf) {
    conf.set(CONTAINER_EXECUTOR, SuspendingContainerExecutor.class.getName());
    conf.setBoolean(MULTI_NODE_ENABLED, true);
    conf.set(SORTING_POLICY_NAMES, POLICY_NAME);
    conf.set(SORTING_POLICY, POLICY_NAME);
    conf.set(POLICY_CLASS_KEY, BrainRankedNodeLookupPolicy.class.getName());
    // The plugin orders nodes at lookup time when a ranking is fresh; the interval only refreshes
    // the node set and the stock fallback order.
    conf.setLong(POLICY_INTERVAL_KEY, 200);
    conf.setInt(PORT, 0);
    conf.setInt(RM_PORT, 0);
    conf.set(BIND_ADDRESS, "127.0.0.1");
    // The RM plugin is created without a Configuration: in this JVM it reads these settings.
    Configuration shimOnly = new Configuration(false);
    for (String k : new String[] {PORT, RM_PORT, BIND_ADDRESS, URL_FILE, WATCHDOG_INTERVAL_MS}) {
      String v = conf.get(k);
      if (v != null) {
        shimOnly.set(k, v);
      }
    }
    embedded = shimOnly;
  }

  /**
   * Settings for the RM-side plugin, which gets no Configuration: what {@link #apply} saw in this
   * JVM, else yarn-site.xml from the ResourceManager's classpath.
   */
  static Configuration resourceManagerSideConf() {
    Configuration e = embedded;
    return e != null ? e : new YarnConfiguration();
  }
}
