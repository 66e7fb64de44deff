package io.schedbrain.yarn;

import io.schedbrain.yarn.shim.ShimConfig;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.net.NetUtils;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler;

/**
 * Starts an in-process YARN cluster (one ResourceManager with the CapacityScheduler, N
 * NodeManagers) configured the way schedbrain needs a real cluster to be configured: a mutable
 * scheduler configuration store, REST principals from {@code ?user.name=}, application
 * priorities, and the schedbrain shim.
 *
 * <p>Protocol with the parent process: stdout carries exactly one line,
 * {@code SCHEDBRAIN_MINICLUSTER_READY {json}}; everything else goes to {@code <work-dir>/minicluster.log}.
 * The cluster stops when stdin reaches EOF or on SIGTERM.
 *
 * <pre>
 * MiniClusterMain --work-dir DIR [--nodes 2] [--nm-memory-mb 4096] [--nm-vcores 4]
 *                 [--rm-web-port 0] [--conf-store memory|file] [--web-auth simple|hadoop-default]
 *                 [--log-level INFO] [--reservation-queue plan --reservation-capacity 75]
 *                 [--timeline-address HOST:PORT]
 * </pre>
 * {@code --rm-web-port 0} lets the OS pick; the READY line reports the real address either way.
 * {@code --conf-store file} gives the stock read-only scheduler configuration;
 * {@code --web-auth hadoop-default} keeps Hadoop's own web filters (anonymous callers become
 * {@code dr.who}) instead of requiring {@code ?user.name=} for writes.
 * {@code --timeline-address} makes the RM publish applications, attempts and containers to a
 * timeline server (application history) running in another JVM at that address.
 */
public final class MiniClusterMain {
  private MiniClusterMain() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Throwable t) {
      // Hadoop leaves non-daemon threads behind: a failed start must still end the JVM.
      System.err.println("SCHEDBRAIN_MINICLUSTER_FAILED " + t);
      t.printStackTrace();
      Runtime.getRuntime().halt(1);
    }
  }

  private static void run(String[] args) throws Exception {
    Cli a = Cli.parse(args);
    File workDir = new File(a.get("--work-dir", "target/minicluster")).getAbsoluteFile();
    if (!workDir.isDirectory() && !workDir.mkdirs()) {
      throw new IOException("cannot create work dir " + workDir);
    }
    int nodes = a.getInt("--nodes", 2);
    int nmMemoryMb = a.getInt("--nm-memory-mb", 4096);
    int nmVcores = a.getInt("--nm-vcores", 4);
    int rmWebPort = a.getInt("--rm-web-port", 0);

    // Keep stdout for the READY line only: Hadoop (and some libraries) print to System.out.
    PrintStream protocolOut = System.out;
    File logFile = new File(workDir, "minicluster.log");
    PrintStream logStream = new PrintStream(new FileOutputStream(logFile, true), true, "UTF-8");
    System.setOut(logStream);
    Logging.toFile(logFile, a.get("--log-level", "INFO"));
    // Jersey logs through java.util.logging to stderr at INFO; keep only warnings.
    java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
    java.util.logging.Logger.getLogger("com.sun.jersey").setLevel(java.util.logging.Level.WARNING);

    // MiniYARNCluster puts its dirs under GenericTestUtils.getTestDir(), i.e. ${test.build.data}.
    System.setProperty("test.build.data", new File(workDir, "data").getAbsolutePath());
    System.setProperty("hadoop.log.dir", new File(workDir, "logs").getAbsolutePath());

    // The RM reads its initial queues from capacity-scheduler.xml on the classpath (the Hadoop
    // test jars ship one). Serve ours first; set before any Configuration exists, since each
    // Configuration captures the context class loader when it is created.
    // YARN's own ReservationSystem (Rayon): a reservable leaf beside root.default. Such a cluster
    // must get no scheduler-conf PUT (the plan follower stops after one; yarn-facts.md).
    String reservationQueue = a.get("--reservation-queue", null);
    int reservationCapacity = a.getInt("--reservation-capacity", 75);
    File csXml = writeCapacitySchedulerXml(new File(workDir, "rm-conf"), reservationQueue, reservationCapacity);
    Thread.currentThread().setContextClassLoader(new OverridingClassLoader(
        Thread.currentThread().getContextClassLoader(), "capacity-scheduler.xml", csXml));

    YarnConfiguration conf = clusterConf(nmMemoryMb, nmVcores, rmWebPort);
    String confStore = a.get("--conf-store", YarnConfiguration.MEMORY_CONFIGURATION_STORE);
    // "file" = stock read-only scheduler configuration (PUT /scheduler-conf is refused).
    conf.set(YarnConfiguration.SCHEDULER_CONFIGURATION_STORE_CLASS, confStore);
    if (a.get("--web-auth", "simple").equals("hadoop-default")) {
      // Hadoop's own defaults (to check what a stock cluster does with ?user.name=).
      conf.unset("hadoop.http.filter.initializers");
      conf.unset("hadoop.http.authentication.type");
      conf.unset("hadoop.http.authentication.simple.anonymous.allowed");
    }
    // The shim's shared secret: random per cluster, readable by this user only; a cluster started
    // again on the same work dir keeps it, as a restarted NodeManager keeps its configuration.
    File secretFile = new File(workDir, "shim.secret");
    if (!hasSecret(secretFile)) {
      writeSecret(secretFile);
    }
    conf.set(ShimConfig.SECRET_FILE, secretFile.getAbsolutePath());
    // Outside data/, which MiniYARNCluster empties at start: a cluster started again on this work
    // dir continues what a killed one left suspended.
    conf.set(ShimConfig.STATE_DIR, new File(workDir, "shim-state").getAbsolutePath());
    ShimConfig.apply(conf);
    if (reservationQueue != null) {
      conf.setBoolean(YarnConfiguration.RM_RESERVATION_SYSTEM_ENABLE, true);
    }

    // NM web servers off: Guice's servlet pipeline is static, so in one JVM the last web app
    // started (an NM's) would answer on every port, RM REST included.
    String timelineAddress = a.get("--timeline-address", null);
    MiniYARNCluster cluster = timelineAddress == null
        ? new MiniYARNCluster("schedbrain", nodes, 1, 1, false)
        : publishingToTimeline(nodes, timelineAddress);
    AtomicBoolean stopped = new AtomicBoolean(false);
    CountDownLatch done = new CountDownLatch(1);
    Runnable stop = () -> {
      if (stopped.compareAndSet(false, true)) {
        shutdown(cluster, nodes, logStream);
        done.countDown();
      }
    };
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "minicluster-shutdown"));

    cluster.init(conf);
    cluster.start();
    if (!cluster.waitForNodeManagersToConnect(60_000)) {
      throw new IllegalStateException("NodeManagers did not register within 60 s");
    }
    ResourceManager rm = cluster.getResourceManager();
    Configuration rmConf = rm.getConfig();
    waitForRunningNodes(rm, nodes, 60_000);

    File confDir = new File(workDir, "conf");
    writeClientConf(rmConf, confDir);

    String ready = readyJson(rm, rmConf, confDir, workDir, logFile);
    protocolOut.println("SCHEDBRAIN_MINICLUSTER_READY " + ready);
    protocolOut.flush();

    // Parent closes our stdin (or dies) → shut down. SIGTERM goes through the shutdown hook.
    Thread stdinWatch = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // ignore input
        }
      } catch (IOException ignored) {
        // treat as EOF
      }
      stop.run();
    }, "stdin-watch");
    stdinWatch.setDaemon(true);
    stdinWatch.start();
    done.await();
    logStream.flush();
    // Non-daemon Hadoop threads may linger after stop(); the cluster is down, so leave.
    Runtime.getRuntime().halt(0);
  }

  /**
   * Stops the cluster without leaving container processes behind, in bounded time. A plain
   * {@code cluster.stop()} takes ~20 s per NM (waits for apps, then 10 s for the log handler's
   * delayed deletions), so: kill every live app, wait for the NMs to have no containers, then
   * stop with a deadline; whatever is still stopping after it holds no processes any more.
   */
  private static void shutdown(MiniYARNCluster cluster, int nodes, PrintStream log) {
    try {
      ResourceManager rm = cluster.getResourceManager();
      if (rm != null && rm.getServiceState() == org.apache.hadoop.service.Service.STATE.STARTED) {
        for (org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp app : rm.getRMContext().getRMApps().values()) {
          if (!app.isAppInCompletedStates()) {
            log.println("shutdown: killing " + app.getApplicationId());
            rm.getClientRMService().forceKillApplication(
                org.apache.hadoop.yarn.api.protocolrecords.KillApplicationRequest.newInstance(app.getApplicationId()));
          }
        }
        long deadline = System.currentTimeMillis() + 15_000;
        while (System.currentTimeMillis() < deadline && liveContainers(cluster, nodes) > 0) {
          Thread.sleep(200);
        }
      }
    } catch (Throwable t) {
      t.printStackTrace(log);
    }
    Thread stopper = new Thread(() -> {
      try {
        cluster.stop();
      } catch (Throwable t) {
        t.printStackTrace(log);
      }
    }, "minicluster-stop");
    stopper.setDaemon(true);
    stopper.start();
    try {
      stopper.join(5_000);
    } catch (InterruptedException ignored) {
      Thread.currentThread().interrupt();
    }
    log.println("shutdown: done (stop " + (stopper.isAlive() ? "cut short" : "complete") + ")");
    log.flush();
  }

  /**
   * A cluster whose RM publishes to a timeline server (v1) at {@code address}. The server runs in
   * its own JVM: in this one its web app would take over the RM's REST (Guice's servlet pipeline
   * is static), and MiniYARNCluster starts one here when the configuration it is given enables
   * the timeline service: the switch is set as the RM initialises, after that check.
   */
  private static MiniYARNCluster publishingToTimeline(int nodes, String address) {
    return new MiniYARNCluster("schedbrain", nodes, 1, 1, false) {
      @Override
      protected ResourceManager createResourceManager() {
        return new ResourceManager() {
          @Override
          protected void serviceInit(Configuration conf) throws Exception {
            conf.setBoolean(YarnConfiguration.TIMELINE_SERVICE_ENABLED, true);
            conf.set(YarnConfiguration.TIMELINE_SERVICE_WEBAPP_ADDRESS, address);
            conf.setBoolean(YarnConfiguration.SYSTEM_METRICS_PUBLISHER_ENABLED, true);
            // Container start and finish, not only the application's (off by default).
            conf.setBoolean("yarn.rm.system-metrics-publisher.emit-container-events", true);
            super.serviceInit(conf);
          }
        };
      }
    };
  }

  private static int liveContainers(MiniYARNCluster cluster, int nodes) {
    int n = 0;
    for (int i = 0; i < nodes; i++) {
      org.apache.hadoop.yarn.server.nodemanager.NodeManager nm = cluster.getNodeManager(i);
      if (nm != null && nm.getNMContext() != null) {
        n += nm.getNMContext().getContainers().size();
      }
    }
    return n;
  }

  /**
   * Initial CapacityScheduler configuration: one leaf queue root.default with all of the cluster,
   * and the shim's multi-node placement keys.
   */
  private static File writeCapacitySchedulerXml(File dir, String reservationQueue, int reservationCapacity) throws IOException {
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("cannot create " + dir);
    }
    if (reservationQueue != null && (!reservationQueue.matches("[A-Za-z0-9_]+") || reservationQueue.equals("default")
        || reservationCapacity < 1 || reservationCapacity > 99)) {
      throw new IllegalArgumentException("--reservation-queue must be a plain leaf name other than default, --reservation-capacity 1..99");
    }
    Configuration cs = new Configuration(false);
    String prefix = "yarn.scheduler.capacity.root.";
    int defaultCapacity = reservationQueue == null ? 100 : 100 - reservationCapacity;
    cs.set(prefix + "queues", reservationQueue == null ? "default" : "default," + reservationQueue);
    cs.set(prefix + "default.capacity", String.valueOf(defaultCapacity));
    cs.set(prefix + "default.maximum-capacity", "100");
    cs.set(prefix + "default.state", "RUNNING");
    if (reservationQueue != null) {
      cs.set(prefix + reservationQueue + ".capacity", String.valueOf(reservationCapacity));
      cs.set(prefix + reservationQueue + ".maximum-capacity", "100");
      cs.set(prefix + reservationQueue + ".state", "RUNNING");
      cs.setBoolean(prefix + reservationQueue + ".reservable", true);
    }
    cs.set("yarn.scheduler.capacity.root.acl_submit_applications", "*");
    cs.set("yarn.scheduler.capacity.root.acl_administer_queue", "*");
    cs.set("yarn.scheduler.capacity.maximum-applications", "10000");
    // Several small jobs share a tiny cluster: let AMs use up to half of it (default 10%).
    cs.set("yarn.scheduler.capacity.maximum-am-resource-percent", "0.5");
    // Account vcores too, so CPU-bound jobs compete for cores like on a real cluster.
    cs.set("yarn.scheduler.capacity.resource-calculator",
        "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator");
    // Requests are off-switch anyway; do not wait for locality.
    cs.set("yarn.scheduler.capacity.node-locality-delay", "-1");
    // The shim's node-ordering plugin. This file seeds the mutable configuration store, and the
    // scheduler is rebuilt from the store alone after every PUT /scheduler-conf: keys only in
    // yarn-site would be lost at the first queue change.
    ShimConfig.applySchedulerConf(cs);
    File f = new File(dir, "capacity-scheduler.xml");
    try (OutputStream out = new FileOutputStream(f)) {
      cs.writeXml(out);
    }
    return f;
  }

  /** Answers one resource name with a given file, before the parent (parent-first would find the jar's copy). */
  private static final class OverridingClassLoader extends ClassLoader {
    private final String name;
    private final File file;

    OverridingClassLoader(ClassLoader parent, String name, File file) {
      super(parent);
      this.name = name;
      this.file = file;
    }

    @Override
    public java.net.URL getResource(String resource) {
      if (resource.equals(name)) {
        try {
          return file.toURI().toURL();
        } catch (java.net.MalformedURLException e) {
          throw new IllegalStateException(e);
        }
      }
      return super.getResource(resource);
    }

    @Override
    public java.io.InputStream getResourceAsStream(String resource) {
      if (resource.equals(name)) {
        try {
          return new java.io.FileInputStream(file);
        } catch (java.io.FileNotFoundException e) {
          throw new IllegalStateException(e);
        }
      }
      return super.getResourceAsStream(resource);
    }
  }

  static YarnConfiguration clusterConf(int nmMemoryMb, int nmVcores, int rmWebPort) {
    YarnConfiguration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RM_SCHEDULER, CapacityScheduler.class.getName());
    // Queues: see writeCapacitySchedulerXml; the brain reshapes the tree through PUT /scheduler-conf.
    // A mutable store makes PUT /ws/v1/cluster/scheduler-conf work (the default file store is read-only).
    conf.set(YarnConfiguration.SCHEDULER_CONFIGURATION_STORE_CLASS, YarnConfiguration.MEMORY_CONFIGURATION_STORE);
    // Mutations are allowed for YARN admins (DefaultConfigurationMutationACLPolicy); everybody is one here.
    conf.set(YarnConfiguration.YARN_ADMIN_ACL, "*");
    // Application priorities 0..10 (default max is 0, i.e. priorities are ignored).
    conf.setInt(YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY, 10);
    // Let small containers stay small (default minimum is 1024 MB).
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_MB, nmMemoryMb);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MAXIMUM_ALLOCATION_VCORES, nmVcores);
    // MiniYARNCluster forces every NM to this key's value (default 4096), ignoring the NM key.
    conf.setInt("yarn.minicluster.yarn.nodemanager.resource.memory-mb", nmMemoryMb);
    conf.setInt(YarnConfiguration.NM_PMEM_MB, nmMemoryMb);
    conf.setInt(YarnConfiguration.NM_VCORES, nmVcores);
    // All NMs share one host: node names carry the port so each NM is addressable on its own.
    conf.setBoolean(YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME, true);
    // The RM web UI accepts ?user.name= (simple auth) so REST writes have a principal;
    // requests without it stay anonymous (reads work).
    conf.set("hadoop.http.filter.initializers", "org.apache.hadoop.security.AuthenticationFilterInitializer");
    conf.set("hadoop.http.authentication.type", "simple");
    conf.setBoolean("hadoop.http.authentication.simple.anonymous.allowed", true);
    // Developer machines often have full-ish disks; do not let the NM mark its dirs bad.
    conf.setFloat(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 100.0f);
    // Faster app/container turnaround in tests.
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, 500);
    conf.setLong(YarnConfiguration.DEBUG_NM_DELETE_DELAY_SEC, 0);
    conf.set("fs.defaultFS", "file:///");

    if (rmWebPort > 0) {
      // With ephemeral ports MiniYARNCluster rewrites every RM address (web included) to :0.
      // To honour a fixed web port we take over: RPC addresses stay ephemeral, web is fixed.
      String host = MiniYARNCluster.getHostname();
      conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, true);
      conf.set(YarnConfiguration.RM_ADDRESS, host + ":0");
      conf.set(YarnConfiguration.RM_ADMIN_ADDRESS, host + ":0");
      conf.set(YarnConfiguration.RM_SCHEDULER_ADDRESS, host + ":0");
      conf.set(YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS, host + ":0");
      conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, host + ":" + rmWebPort);
    }
    return conf;
  }

  private static void waitForRunningNodes(ResourceManager rm, int n, long timeoutMs) throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (System.currentTimeMillis() < deadline) {
      long running = rm.getRMContext().getRMNodes().values().stream()
          .filter(node -> node.getState().toString().equals("RUNNING")).count();
      if (running >= n && rm.getResourceScheduler().getNumClusterNodes() >= n) {
        return;
      }
      Thread.sleep(100);
    }
    throw new IllegalStateException("nodes not RUNNING in the scheduler within " + timeoutMs + " ms");
  }

  /** yarn-site.xml / core-site.xml for clients (SubmitJob, the JobMaster AM, yarn CLI). */
  private static void writeClientConf(Configuration rmConf, File confDir) throws IOException {
    if (!confDir.isDirectory() && !confDir.mkdirs()) {
      throw new IOException("cannot create " + confDir);
    }
    Configuration yarnSite = new Configuration(false);
    for (String key : new String[] {
        YarnConfiguration.RM_ADDRESS,
        YarnConfiguration.RM_SCHEDULER_ADDRESS,
        YarnConfiguration.RM_ADMIN_ADDRESS,
        YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS,
        YarnConfiguration.RM_WEBAPP_ADDRESS,
        YarnConfiguration.MAX_CLUSTER_LEVEL_APPLICATION_PRIORITY,
        YarnConfiguration.RM_SCHEDULER_INCLUDE_PORT_IN_NODE_NAME}) {
      yarnSite.set(key, rmConf.get(key));
    }
    Configuration coreSite = new Configuration(false);
    coreSite.set("fs.defaultFS", "file:///");
    try (OutputStream out = new FileOutputStream(new File(confDir, "yarn-site.xml"))) {
      yarnSite.writeXml(out);
    }
    try (OutputStream out = new FileOutputStream(new File(confDir, "core-site.xml"))) {
      coreSite.writeXml(out);
    }
  }

  private static boolean hasSecret(File f) throws IOException {
    return f.isFile() && new String(java.nio.file.Files.readAllBytes(f.toPath()), java.nio.charset.StandardCharsets.UTF_8).trim().length() >= 16;
  }

  private static void writeSecret(File f) throws IOException {
    byte[] raw = new byte[32];
    new java.security.SecureRandom().nextBytes(raw);
    String secret = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    java.nio.file.Path path = f.toPath();
    java.nio.file.Files.deleteIfExists(path);
    java.nio.file.Files.createFile(path, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
    java.nio.file.Files.write(path, (secret + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  private static String readyJson(ResourceManager rm, Configuration rmConf, File confDir, File workDir, File logFile) {
    // The RM rewrites its own config with the bound addresses once its servers are up.
    InetSocketAddress web = NetUtils.createSocketAddr(rmConf.get(YarnConfiguration.RM_WEBAPP_ADDRESS));
    StringBuilder nodes = new StringBuilder("[");
    List<RMNode> rmNodes = new ArrayList<>(rm.getRMContext().getRMNodes().values());
    rmNodes.sort((x, y) -> x.getNodeID().toString().compareTo(y.getNodeID().toString()));
    for (RMNode node : rmNodes) {
      NodeId id = node.getNodeID();
      if (nodes.length() > 1) {
        nodes.append(',');
      }
      nodes.append("{\"nodeId\":").append(Json.str(id.toString()))
          .append(",\"httpAddress\":").append(Json.str(node.getHttpAddress())).append('}');
    }
    nodes.append(']');
    return "{\"rmWebUrl\":" + Json.str("http://" + web.getHostString() + ":" + web.getPort())
        + ",\"rmAddress\":" + Json.str(rmConf.get(YarnConfiguration.RM_ADDRESS))
        + ",\"schedulerAddress\":" + Json.str(rmConf.get(YarnConfiguration.RM_SCHEDULER_ADDRESS))
        + ",\"confDir\":" + Json.str(confDir.getAbsolutePath())
        + ",\"workDir\":" + Json.str(workDir.getAbsolutePath())
        + ",\"logFile\":" + Json.str(logFile.getAbsolutePath())
        + ",\"hadoopVersion\":" + Json.str(org.apache.hadoop.util.VersionInfo.getVersion())
        + ",\"pid\":" + ProcessHandle.current().pid()
        + ",\"shimUrl\":" + Json.str(io.schedbrain.yarn.shim.ShimServer.boundUrl())
        + ",\"shimSecretFile\":" + Json.str(new File(workDir, "shim.secret").getAbsolutePath())
        + ",\"nodes\":" + nodes + "}";
  }
}
