package io.schedbrain.yarn.shim;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * The order a ranking imposes on candidate nodes (the {@code rankNodes} action of
 * src/core/actions.ts): fewest allocated containers first when {@code leastLoadedFirst}, then
 * ascending brain score, nodes without a score last, then node id. Pure, so the RM plugin and the
 * tests apply exactly the same rule.
 */
public final class NodeOrder {
  private NodeOrder() {}

  /**
   * A node the ranking scores at or above this is reserved: the general-nodes sorting policy
   * ({@link GeneralNodesLookupPolicy}) leaves it out of the candidates (the contract's
   * {@code x-reserved-score-min}). Everyone else sees it last, in score order.
   */
  public static final double RESERVED_SCORE_MIN = 1_000_000;

  /** Is the node reserved under this ranking? */
  public static boolean reserved(RankingStore.Ranking ranking, String nodeId) {
    Double s = ranking.scores.get(nodeId);
    return s != null && s >= RESERVED_SCORE_MIN;
  }

  private static final class Key<T> {
    final T node;
    final String id;
    final int containers;
    final Double score;

    Key(T node, String id, int containers, Double score) {
      this.node = node;
      this.id = id;
      this.containers = containers;
      this.score = score;
    }
  }

  public static <T> List<T> order(Collection<T> nodes, Function<T, String> nodeId,
      ToIntFunction<T> allocatedContainers, RankingStore.Ranking ranking) {
    // Snapshot the keys first: allocations change while the scheduler runs, and a comparator
    // whose answers change during a sort breaks TimSort's contract.
    List<Key<T>> keys = new ArrayList<>(nodes.size());
    for (T n : nodes) {
      String id = nodeId.apply(n);
      int containers = ranking.leastLoadedFirst ? allocatedContainers.applyAsInt(n) : 0;
      keys.add(new Key<>(n, id, containers, ranking.scores.get(id)));
    }
    Comparator<Key<T>> cmp = Comparator.comparingInt((Key<T> k) -> k.containers)
        .thenComparing((a, b) -> {
          if (a.score == null || b.score == null) {
            return a.score == null ? (b.score == null ? 0 : 1) : -1;
          }
          return Double.compare(a.score, b.score);
        })
        .thenComparing(k -> k.id);
    keys.sort(cmp);
    List<T> out = new ArrayList<>(keys.size());
    for (Key<T> k : keys) {
      out.add(k.node);
    }
    return out;
  }
}
