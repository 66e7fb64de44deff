package io.schedbrain.yarn.shim;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.MultiNodeLookupPolicy;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.placement.ResourceUsageMultiNodeLookupPolicy;

/**
 * CapacityScheduler multi-node lookup policy that orders candidate nodes the way the brain's
 * latest ranking says ({@link NodeOrder}); with no fresh ranking it is exactly the stock
 * {@link ResourceUsageMultiNodeLookupPolicy} (least allocated resource first, then node id).
 *
 * <p>The scheduler creates it by reflection with no Configuration, so it starts (or joins) the
 * JVM's {@link ShimServer} and learns rankings from {@code PUT /v1/ranking}.
 * Loaded through {@code yarn.scheduler.capacity.multi-node-sorting.policy.<name>.class}.
 */
public class BrainRankedNodeLookupPolicy<N extends SchedulerNode> implements MultiNodeLookupPolicy<N> {
  private final ResourceUsageMultiNodeLookupPolicy<N> stock = new ResourceUsageMultiNodeLookupPolicy<>();
  private final RankingStore store;

  public BrainRankedNodeLookupPolicy() {
    this(RankingStore.get());
    ShimServer.ensureStarted(ShimServer.Role.RESOURCEMANAGER, ShimConfig.resourceManagerSideConf());
  }

  BrainRankedNodeLookupPolicy(RankingStore store) {
    this.store = store;
    store.policyLoaded();
  }

  @Override
  public Iterator<N> getPreferredNodeIterator(Collection<N> nodes, String partition) {
    RankingStore.Ranking ranking = store.fresh();
    if (ranking == null) {
      Iterator<N> it = stock.getPreferredNodeIterator(nodes, partition);
      List<N> order = new ArrayList<>();
      it.forEachRemaining(order::add);
      store.recordOrder(ids(order), false);
      return order.iterator();
    }
    // Same membership as the stock policy (the partition's nodes as of the last refresh), but
    // ordered now, with current allocations and the current ranking.
    Collection<N> members = stock.getNodesPerPartition(partition);
    if (members.isEmpty()) {
      members = nodes;
    }
    List<N> order = NodeOrder.order(members, n -> n.getNodeID().toString(), SchedulerNode::getNumContainers, ranking);
    return ranked(order, ranking).iterator();
  }

  /**
   * The candidates, in the ranking's order, this policy hands the scheduler. This one: all of
   * them (and it is the order GET /v1/ranking reports).
   */
  protected List<N> ranked(List<N> order, RankingStore.Ranking ranking) {
    store.recordOrder(ids(order), true);
    return order;
  }

  @Override
  public void addAndRefreshNodesSet(Collection<N> nodes, String partition) {
    stock.addAndRefreshNodesSet(nodes, partition);
  }

  @Override
  public Set<N> getNodesPerPartition(String partition) {
    return stock.getNodesPerPartition(partition);
  }

  static <N extends SchedulerNode> List<String> ids(List<N> nodes) {
    List<String> out = new ArrayList<>(nodes.size());
    for (N n : nodes) {
      out.add(n.getNodeID().toString());
    }
    return out;
  }
}
