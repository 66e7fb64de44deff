package io.schedbrain.yarn.shim;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;

import java.net.InetAddress;
import java.net.ServerSocket;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.junit.Test;

/** The JVM-wide server: a busy port must not take the daemon down; later users share it. */
public class ShimStartupTest {
  @Test
  public void busyPortLeavesTheDaemonRunningWithoutTheEndpoint() throws Exception {
    try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      Configuration conf = new Configuration(false);
      conf.set(ShimConfig.BIND_ADDRESS, "127.0.0.1");
      conf.setInt(ShimConfig.PORT, busy.getLocalPort());
      ShimServer s = ShimServer.ensureStarted(ShimServer.Role.NODEMANAGER, conf);
      assertNotNull(s.containers());
      assertNull(s.url());
      assertNull(ShimServer.boundUrl());
      // The RM plugin in the same JVM joins the same (endpoint-less) instance and still works.
      BrainRankedNodeLookupPolicy<SchedulerNode> policy = new BrainRankedNodeLookupPolicy<>();
      assertEquals(0, policy.getNodesPerPartition("").size());
      assertSame(s, ShimServer.ensureStarted(ShimServer.Role.RESOURCEMANAGER, null));
    }
  }
}
