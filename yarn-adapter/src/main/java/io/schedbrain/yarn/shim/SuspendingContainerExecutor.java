package io.schedbrain.yarn.shim;

import java.io.IOException;
import java.util.function.Supplier;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.nodemanager.util.NodeManagerHardwareUtils;
import org.apache.hadoop.yarn.exceptions.ConfigurationException;
import org.apache.hadoop.yarn.server.nodemanager.Context;
import org.apache.hadoop.yarn.server.nodemanager.DefaultContainerExecutor;
import org.apache.hadoop.yarn.security.ContainerTokenIdentifier;
import org.apache.hadoop.yarn.server.api.ContainerType;
import org.apache.hadoop.yarn.server.nodemanager.containermanager.container.Container;
import org.apache.hadoop.yarn.server.nodemanager.executor.ContainerSignalContext;
import org.apache.hadoop.yarn.server.nodemanager.executor.ContainerStartContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DefaultContainerExecutor} that lets the brain suspend and resume a container's whole
 * process tree (SIGSTOP / SIGCONT to the container's process group, see {@link ProcFs}) and
 * reports each container's attained CPU service, through the JVM's {@link ShimServer}.
 * Launching, signalling and cleanup are the stock executor's; the additions:
 * <ul>
 *   <li>every launched container is registered with the JVM's {@link ContainerRegistry} for the
 *       duration of {@code launchContainer} (which blocks while the container runs);</li>
 *   <li>a signal from the NodeManager (kill, graceful shutdown, thread dump) to a suspended
 *       container is followed by SIGCONT, so a stopped process acts on it and dies.</li>
 * </ul>
 * Loaded through {@code yarn.nodemanager.container-executor.class}.
 */
public class SuspendingContainerExecutor extends DefaultContainerExecutor {
  private static final Logger LOG = LoggerFactory.getLogger(SuspendingContainerExecutor.class);

  private volatile Context nmContext;
  private volatile ContainerRegistry registry;

  public SuspendingContainerExecutor() {}

  /** For tests: an executor bound to a given registry, without a NodeManager. */
  SuspendingContainerExecutor(ContainerRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void init(Context context) throws IOException {
    super.init(context);
    this.nmContext = context;
    ShimServer server = ShimServer.ensureStarted(ShimServer.Role.NODEMANAGER, getConf());
    if (registry == null) {
      this.registry = server.containers();
    }
    // The node's own configured capacity: a new leader's physical figure, whatever a previous
    // brain advertised to the RM since.
    Resource configured = null;
    try {
      configured = NodeManagerHardwareUtils.getNodeResources(getConf());
    } catch (RuntimeException e) {
      LOG.warn("cannot read this NodeManager's configured resources: {}", e.toString());
    }
    if (configured != null) {
      registry.registerNode(nodeIdSupplier(), configured.getMemorySize(), configured.getVirtualCores());
    } else {
      registry.registerNode(nodeIdSupplier());
    }
    LOG.info("schedbrain shim executor ready, shim at {}", server.url());
  }

  private Supplier<String> nodeIdSupplier() {
    return () -> {
      Context c = nmContext;
      NodeId id = c == null ? null : c.getNodeId();
      return id == null ? null : id.toString();
    };
  }

  @Override
  public int launchContainer(ContainerStartContext ctx) throws IOException, ConfigurationException {
    ContainerId id = ctx.getContainer().getContainerId();
    register(ctx.getContainer());
    try {
      return super.launchContainer(ctx);
    } finally {
      registry.containerFinished(id.toString());
    }
  }

  @Override
  public int relaunchContainer(ContainerStartContext ctx) throws IOException, ConfigurationException {
    ContainerId id = ctx.getContainer().getContainerId();
    register(ctx.getContainer());
    try {
      return super.relaunchContainer(ctx);
    } finally {
      registry.containerFinished(id.toString());
    }
  }

  private void register(Container container) {
    ContainerId id = container.getContainerId();
    if (registry == null) {
      // init(Context) was not called (tests constructing the executor by hand).
      registry = ShimServer.ensureStarted(ShimServer.Role.NODEMANAGER, getConf()).containers();
    }
    registry.containerStarted(id.toString(), nodeIdSupplier(), () -> getProcessId(id), () -> allocationOf(container));
  }

  /**
   * What the RM allocated, as the NodeManager holds it: the container's current resource (an
   * update changes it) and its token's creation time and type, which the RM set from its own
   * RMContainer (SchedulerApplicationAttempt.updateContainerAndNMToken, Hadoop 3.4.1).
   */
  static ContainerRegistry.Allocation allocationOf(Container container) {
    Resource r = container.getResource();
    ContainerTokenIdentifier token = container.getContainerTokenIdentifier();
    if (r == null) {
      return null;
    }
    long created = token != null ? token.getCreationTime() : container.getContainerStartTime();
    boolean am = token != null && token.getContainerType() == ContainerType.APPLICATION_MASTER;
    return new ContainerRegistry.Allocation(r.getMemorySize(), r.getVirtualCores(), created, am);
  }

  @Override
  public boolean signalContainer(ContainerSignalContext ctx) throws IOException {
    String pid = ctx.getPid();
    boolean wasSuspended = registry != null && pid != null
        && ctx.getSignal() != Signal.NULL && registry.releaseForSignal(pid);
    try {
      return super.signalContainer(ctx);
    } finally {
      if (wasSuspended) {
        // The signal is pending on stopped processes: continue them so they act on it.
        registry.continueAfterSignal(pid);
        LOG.info("signal {} to suspended container pid {}: continued so it takes effect", ctx.getSignal(), pid);
      }
    }
  }
}
