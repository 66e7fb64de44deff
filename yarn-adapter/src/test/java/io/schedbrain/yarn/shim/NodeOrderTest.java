package io.schedbrain.yarn.shim;

import static org.junit.Assert.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

public class NodeOrderTest {
  private static final Map<String, Integer> CONTAINERS = new HashMap<>();

  static {
    CONTAINERS.put("a:1", 3);
    CONTAINERS.put("b:1", 1);
    CONTAINERS.put("c:1", 1);
    CONTAINERS.put("d:1", 0);
  }

  private static List<String> order(Map<String, Double> scores, boolean leastLoadedFirst) {
    RankingStore.Ranking r = new RankingStore.Ranking(scores, leastLoadedFirst, 1000, 0);
    return NodeOrder.order(List.of("a:1", "b:1", "c:1", "d:1"), n -> n, CONTAINERS::get, r);
  }

  @Test
  public void ascendingScoreThenUnscoredByNodeId() {
    assertEquals(List.of("c:1", "a:1", "b:1", "d:1"), order(Map.of("c:1", -2.0, "a:1", 5.5), false));
  }

  @Test
  public void leastLoadedFirstThenScore() {
    // d has 0 containers; b and c have 1 each (c preferred by score); a has 3.
    assertEquals(List.of("d:1", "c:1", "b:1", "a:1"), order(Map.of("c:1", 1.0, "b:1", 2.0, "a:1", 0.0), true));
  }

  @Test
  public void noScoresIsNodeIdOrder() {
    assertEquals(List.of("a:1", "b:1", "c:1", "d:1"), order(Map.of(), false));
  }

  @Test
  public void generalNodesLeaveOutReservedOnesAndKeepTheOrder() {
    Map<String, Double> scores = Map.of("a:1", 0.0, "b:1", NodeOrder.RESERVED_SCORE_MIN, "c:1", NodeOrder.RESERVED_SCORE_MIN + 1, "d:1", 999_999.0);
    RankingStore.Ranking r = new RankingStore.Ranking(scores, false, 1000, 0);
    List<String> all = NodeOrder.order(List.of("a:1", "b:1", "c:1", "d:1"), n -> n, CONTAINERS::get, r);
    // Every node is ordered (reserved ones last); the general-nodes policy drops the reserved ones.
    assertEquals(List.of("a:1", "d:1", "b:1", "c:1"), all);
    assertEquals(List.of("a:1", "d:1"), GeneralNodesLookupPolicy.withoutReserved(all, n -> n, r));
    // Unscored nodes are not reserved.
    RankingStore.Ranking none = new RankingStore.Ranking(Map.of(), false, 1000, 0);
    assertEquals(List.of("a:1", "b:1"), GeneralNodesLookupPolicy.withoutReserved(List.of("a:1", "b:1"), n -> n, none));
  }

  @Test
  public void staleRankingIsNotFresh() {
    long[] now = {0};
    RankingStore store = new RankingStore(() -> now[0]);
    store.publish(Map.of("a:1", 1.0), false, 100);
    assertEquals(true, store.fresh() != null);
    now[0] = 101;
    assertEquals(null, store.fresh());
  }
}
