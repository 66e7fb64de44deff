package io.schedbrain.yarn.shim;

import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerNode;

/**
 * The brain's node order without its reserved nodes (scored at or above
 * {@link NodeOrder#RESERVED_SCORE_MIN}): a queue whose {@code multi-node-sorting.policy} names it
 * gets no container on a reserved node while the ranking is fresh. Pigeon's long-job queue uses it
 * so that reserved workers stay for short jobs. Without a fresh ranking it is the stock order over
 * every node, like {@link BrainRankedNodeLookupPolicy} (a stopped brain gives the stock scheduler back).
 *
 * <p>Registered by {@link ShimConfig#schedulerConfKeys} as {@link ShimConfig#GENERAL_POLICY_NAME}.
 */
public class GeneralNodesLookupPolicy<N extends SchedulerNode> extends BrainRankedNodeLookupPolicy<N> {
  public GeneralNodesLookupPolicy() {
    super();
  }

  GeneralNodesLookupPolicy(RankingStore store) {
    super(store);
  }

  @Override
  protected List<N> ranked(List<N> order, RankingStore.Ranking ranking) {
    return withoutReserved(order, n -> n.getNodeID().toString(), ranking);
  }

  /** {@code order} less the nodes the ranking reserves, order kept. */
  static <T> List<T> withoutReserved(List<T> order, java.util.function.Function<T, String> nodeId, RankingStore.Ranking ranking) {
    List<T> out = new ArrayList<>(order.size());
    for (T n : order) {
      if (!NodeOrder.reserved(ranking, nodeId.apply(n))) {
        out.add(n);
      }
    }
    return out;
  }
}
