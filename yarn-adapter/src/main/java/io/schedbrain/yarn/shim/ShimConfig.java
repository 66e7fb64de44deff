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
  /**
   * Name of the second policy: the same order without the nodes the ranking reserves
   * ({@link GeneralNodesLookupPolicy}); a queue opts in with
   * {@code yarn.scheduler.capacity.<queue-path>.multi-node-sorting.policy=schedbrain-general}.
   */
  public static final String GENERAL_POLICY_NAME = "schedbrain-general";
  public static final String GENERAL_POLICY_CLASS_KEY = SORTING_POLICY + "." + GENERAL_POLICY_NAME + ".class";
  public static final String GENERAL_POLICY_INTERVAL_KEY = SORTING_POLICY + "." + GENERAL_POLICY_NAME + ".sorting-interval.ms";

  // ---- the shim's own keys (yarn-site.xml) ----------------------------------------------------
  /** NodeManager-side shim port; 0 = ephemeral. Also read as a JVM system property (wins). */
  public static final String PORT = "schedbrain.shim.port";
  public static final int DEFAULT_NM_PORT = 18042;
  /** ResourceManager-side shim port (the RM plugin reads yarn-site.xml from the RM classpath). */
  public static final String RM_PORT = "schedbrain.shim.rm.port";
  public static final int DEFAULT_RM_PORT = 18088;
  public static final String BIND_ADDRESS = "schedbrain.shim.bind-address";
  public static final String DEFAULT_BIND_ADDRESS = "0.0.0.0";
  /**
   * File holding the shared secret the brain sends as {@code Authorization: Bearer <secret>}.
   * Without one the shim answers reads and refuses every change.
   */
  public static final String SECRET_FILE = "schedbrain.shim.secret-file";
  /** Optional file the shim writes its URL to once bound. */
  public static final String URL_FILE = "schedbrain.shim.url-file";
  /**
   * Directory where the NodeManager-side shim keeps the list of containers it holds stopped
   * ({@link SuspensionRecord}), to continue them if it dies and starts again. Must survive a
   * NodeManager restart. Default: the NodeManager's recovery directory
   * ({@code yarn.nodemanager.recovery.dir}).
   */
  public static final String STATE_DIR = "schedbrain.shim.state-dir";
  public static final String WATCHDOG_INTERVAL_MS = "schedbrain.shim.watchdog-interval-ms";
  public static final long DEFAULT_WATCHDOG_INTERVAL_MS = 100;
  /** System property the running shim publishes its URL in (same JVM). */
  public static final String URL_PROPERTY = "schedbrain.shim.url";

  private static volatile Configuration embedded;

  /** Sorting interval the embedded mini cluster uses for the plugin. */
  public static final long EMBEDDED_SORTING_INTERVAL_MS = 200;

  /**
   * The CapacityScheduler keys that load the node-ordering plugin (multi-node placement with the
   * schedbrain sorting policy as every queue's default), in a stable order.
   *
   * <p>They belong in the scheduler configuration, not only in yarn-site: with a mutable
   * scheduler configuration store the scheduler is re-initialised after every
   * {@code PUT /scheduler-conf} from the store alone (seeded once from capacity-scheduler.xml), so
   * keys that live only in yarn-site are gone after the first mutation and the scheduler stops
   * asking the plugin for a node order.
   */
  public static java.util.Map<String, String> schedulerConfKeys(long sortingIntervalMs) {
    java.util.Map<String, String> keys = new java.util.LinkedHashMap<>();
    keys.put(MULTI_NODE_ENABLED, "true");
    keys.put(SORTING_POLICY_NAMES, POLICY_NAME + "," + GENERAL_POLICY_NAME);
    keys.put(SORTING_POLICY, POLICY_NAME);
    keys.put(POLICY_CLASS_KEY, BrainRankedNodeLookupPolicy.class.getName());
    // The plugin orders nodes at lookup time when a ranking is fresh; the interval only refreshes
    // the node set and the stock fallback order.
    keys.put(POLICY_INTERVAL_KEY, Long.toString(sortingIntervalMs));
    keys.put(GENERAL_POLICY_CLASS_KEY, GeneralNodesLookupPolicy.class.getName());
    keys.put(GENERAL_POLICY_INTERVAL_KEY, Long.toString(sortingIntervalMs));
    return keys;
  }

  /**
   * Adds the node-ordering keys to a scheduler configuration (the embedded mini cluster's
   * capacity-scheduler.xml, which seeds the mutable configuration store).
   */
  public static void applySchedulerConf(Configuration schedulerConf) {
    for (java.util.Map.Entry<String, String> kv : schedulerConfKeys(EMBEDDED_SORTING_INTERVAL_MS).entrySet()) {
      schedulerConf.set(kv.getKey(), kv.getValue());
    }
  }

  /**
   * Adds the shim's keys to {@code conf} (the embedded mini cluster: loopback, ephemeral port).
   * The node-ordering keys go here too (the file store and the scheduler's start-up read
   * yarn-site as well), but with a mutable store they must also be in the scheduler
   * configuration: see {@link #applySchedulerConf}.
   */
  public static void apply(Configuration conf) {
    conf.set(CONTAINER_EXECUTOR, SuspendingContainerExecutor.class.getName());
    applySchedulerConf(conf);
    conf.setInt(PORT, 0);
    conf.setInt(RM_PORT, 0);
    conf.set(BIND_ADDRESS, "127.0.0.1");
    // The RM plugin is created without a Configuration: in this JVM it reads these settings.
    Configuration shimOnly = new Configuration(false);
    for (String k : new String[] {PORT, RM_PORT, BIND_ADDRESS, URL_FILE, WATCHDOG_INTERVAL_MS, SECRET_FILE, STATE_DIR}) {
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
