package io.schedbrain.yarn.shim;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The brain's latest node ranking, as published over {@code PUT /v1/ranking}, and what the RM
 * plugin last did with it. One per JVM (the plugin is created by reflection and gets no
 * Configuration, so this static store is its side channel).
 */
public final class RankingStore {
  /** A published ranking. Immutable. */
  public static final class Ranking {
    public final Map<String, Double> scores;
    public final boolean leastLoadedFirst;
    public final long ttlMs;
    public final long publishedAtMs;

    public Ranking(Map<String, Double> scores, boolean leastLoadedFirst, long ttlMs, long publishedAtMs) {
      this.scores = Collections.unmodifiableMap(new LinkedHashMap<>(scores));
      this.leastLoadedFirst = leastLoadedFirst;
      this.ttlMs = ttlMs;
      this.publishedAtMs = publishedAtMs;
    }

    public boolean freshAt(long now) {
      return now - publishedAtMs <= ttlMs;
    }
  }

  private static final RankingStore INSTANCE = new RankingStore(System::currentTimeMillis);

  public static RankingStore get() {
    return INSTANCE;
  }

  private final LongSupplier clock;
  private volatile Ranking ranking;
  private volatile boolean policyLoaded;
  private volatile List<String> lastOrder;
  private volatile boolean lastOrderRanked;
  private volatile long lastOrderAtMs;

  RankingStore(LongSupplier clock) {
    this.clock = clock;
  }

  public long now() {
    return clock.getAsLong();
  }

  public Ranking publish(Map<String, Double> scores, boolean leastLoadedFirst, long ttlMs) {
    Ranking r = new Ranking(scores, leastLoadedFirst, ttlMs, clock.getAsLong());
    ranking = r;
    return r;
  }

  /** The latest ranking, or null when none was published or it is older than its ttl. */
  public Ranking fresh() {
    Ranking r = ranking;
    return r != null && r.freshAt(clock.getAsLong()) ? r : null;
  }

  public Ranking latest() {
    return ranking;
  }

  void policyLoaded() {
    policyLoaded = true;
  }

  public boolean isPolicyLoaded() {
    return policyLoaded;
  }

  void recordOrder(List<String> order, boolean ranked) {
    lastOrder = Collections.unmodifiableList(order);
    lastOrderRanked = ranked;
    lastOrderAtMs = clock.getAsLong();
  }

  public List<String> lastOrder() {
    return lastOrder;
  }

  public boolean lastOrderRanked() {
    return lastOrderRanked;
  }

  public long lastOrderAtMs() {
    return lastOrderAtMs;
  }
}
