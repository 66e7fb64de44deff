package io.schedbrain.yarn.shim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shim's HTTP endpoint: one per JVM, shared by every NodeManager executor and the RM
 * placement plugin in that JVM (a MiniYARNCluster runs them all in one JVM; on a real cluster
 * there is one per NodeManager and one in the ResourceManager). JDK HttpServer, JSON bodies; the
 * wire format is {@code schedbrain-shim-contract.json} (at the root of the adapter jar), which the
 * Java tests and the TypeScript client both check themselves against.
 *
 * <p>Every refusal is {@code {"error": code, "reason": text}} with a 4xx status and changes nothing.
 */
public final class ShimServer {
  private static final Logger LOG = LoggerFactory.getLogger(ShimServer.class);
  public static final int CONTRACT_VERSION = 5;
  /** The header carrying the sender's leadership epoch (fencing: older epochs are refused). */
  public static final String EPOCH_HEADER = "X-Schedbrain-Epoch";
  static final long MAX_TTL_MS = 3_600_000L;

  public enum Role { NODEMANAGER, RESOURCEMANAGER }

  private static ShimServer instance;

  /**
   * Starts the JVM's server on first use, or returns the running one (adding {@code role}).
   * {@code conf} may be null (the RM plugin gets no Configuration). Never throws: when the port
   * cannot be bound the daemon keeps running with stock behaviour (no suspension requests can
   * arrive, the RM plugin uses the stock order) and the error is logged; {@link #url} is null.
   */
  public static synchronized ShimServer ensureStarted(Role role, Configuration conf) {
    if (instance == null) {
      Configuration c = conf != null ? conf : new Configuration(false);
      ShimServer s = new ShimServer(ContainerRegistry.system(), RankingStore.get());
      s.containers.startWatchdog(c.getLong(ShimConfig.WATCHDOG_INTERVAL_MS, ShimConfig.DEFAULT_WATCHDOG_INTERVAL_MS));
      String host = c.getTrimmed(ShimConfig.BIND_ADDRESS, ShimConfig.DEFAULT_BIND_ADDRESS);
      String secretFile = c.getTrimmed(ShimConfig.SECRET_FILE);
      if (secretFile != null && !secretFile.isEmpty()) {
        try {
          s.requireSecret(new String(Files.readAllBytes(new File(secretFile).toPath()), StandardCharsets.UTF_8).trim());
        } catch (IOException | IllegalArgumentException e) {
          LOG.error("schedbrain shim cannot read its secret from {} ({}): it will refuse every change", secretFile, e.toString());
        }
      } else {
        LOG.warn("schedbrain shim has no {}: it answers reads and refuses every change", ShimConfig.SECRET_FILE);
      }
      try {
        int port = portFor(role, c);
        s.start(host, port);
        System.setProperty(ShimConfig.URL_PROPERTY, s.url());
        String urlFile = c.getTrimmed(ShimConfig.URL_FILE);
        if (urlFile != null && !urlFile.isEmpty()) {
          writeUrlFile(new File(urlFile), s.url());
        }
        LOG.info("schedbrain shim listening on {} (first started by the {})", s.url(), role);
      } catch (IOException | RuntimeException e) {
        LOG.error("schedbrain shim cannot listen on {} (port from {} / {}): {}; running without it",
            host, ShimConfig.PORT, ShimConfig.RM_PORT, e.toString());
      }
      instance = s;
    }
    if (role == Role.NODEMANAGER && !instance.suspensionsKept) {
      // The first NodeManager in this JVM: continue what a shim that died here left stopped.
      instance.suspensionsKept = true;
      String dir = conf == null ? null : conf.getTrimmed(ShimConfig.STATE_DIR);
      if (dir == null || dir.isEmpty()) {
        dir = conf == null ? null : conf.getTrimmed("yarn.nodemanager.recovery.dir");
      }
      if (dir == null || dir.isEmpty()) {
        LOG.warn("schedbrain shim has no {} (nor yarn.nodemanager.recovery.dir): containers it suspends stay stopped if it is killed outright",
            ShimConfig.STATE_DIR);
      } else {
        File f = new File(dir, SuspensionRecord.FILE_NAME);
        instance.containers.keepSuspensionsIn(new SuspensionRecord(f.toPath()));
        LOG.info("schedbrain shim keeps its suspensions in {}", f);
      }
    }
    instance.roles.add(role);
    return instance;
  }

  /** The URL of this JVM's shim ({@code http://host:port}), or null when none was started. */
  public static synchronized String boundUrl() {
    return instance == null ? null : instance.url();
  }

  static int portFor(Role role, Configuration c) {
    String sys = System.getProperty(ShimConfig.PORT);
    if (sys != null && !sys.trim().isEmpty()) {
      return Integer.parseInt(sys.trim());
    }
    return role == Role.NODEMANAGER
        ? c.getInt(ShimConfig.PORT, ShimConfig.DEFAULT_NM_PORT)
        : c.getInt(ShimConfig.RM_PORT, ShimConfig.DEFAULT_RM_PORT);
  }

  private static void writeUrlFile(File f, String url) {
    try {
      File dir = f.getAbsoluteFile().getParentFile();
      if (dir != null && !dir.isDirectory() && !dir.mkdirs()) {
        throw new IOException("cannot create " + dir);
      }
      File tmp = new File(f.getAbsolutePath() + ".tmp");
      Files.write(tmp.toPath(), (url + "\n").getBytes(StandardCharsets.UTF_8));
      Files.move(tmp.toPath(), f.toPath(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      LOG.warn("cannot write the shim URL to {}: {}", f, e.getMessage());
    }
  }

  // ---- instance ------------------------------------------------------------------------------

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NF = JsonNodeFactory.instance;

  private final ContainerRegistry containers;
  private final RankingStore ranking;
  private final Set<Role> roles = Collections.synchronizedSet(EnumSet.noneOf(Role.class));
  /** Whether {@link #ensureStarted} gave the registry its on-disk record (once, for the first NodeManager). */
  private boolean suspensionsKept;
  private HttpServer http;
  private ExecutorService pool;
  private String url;
  /** SHA-256 of the shared secret; null: none configured, so every change is refused. */
  private volatile byte[] secretDigest;

  public ShimServer(ContainerRegistry containers, RankingStore ranking) {
    this.containers = containers;
    this.ranking = ranking;
  }

  public ContainerRegistry containers() {
    return containers;
  }

  public String url() {
    return url;
  }

  public void addRole(Role r) {
    roles.add(r);
  }

  /** From now on every request but {@code GET /v1/health} must carry this secret as a bearer token. */
  public void requireSecret(String secret) {
    if (secret == null || secret.length() < 16) {
      throw new IllegalArgumentException("the shim secret must be at least 16 characters");
    }
    secretDigest = sha256(secret);
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The health route is open (monitoring); reads need the secret once one is set; changes always do. */
  private void authorize(String method, String path, HttpExchange ex) {
    if ("/v1/health".equals(path)) {
      return;
    }
    byte[] expected = secretDigest;
    if (expected == null) {
      if ("GET".equals(method)) {
        return;
      }
      throw new ShimError(401, "unauthorized", "this shim has no shared secret (" + ShimConfig.SECRET_FILE + "), so it refuses every change");
    }
    String h = ex.getRequestHeaders().getFirst("Authorization");
    String given = h != null && h.regionMatches(true, 0, "Bearer ", 0, 7) ? h.substring(7).trim() : null;
    if (given == null) {
      throw new ShimError(401, "unauthorized", "a bearer token is required (Authorization: Bearer <shim secret>)");
    }
    if (!MessageDigest.isEqual(sha256(given), expected)) {
      throw new ShimError(401, "unauthorized", "the bearer token is not valid");
    }
  }

  public synchronized void start(String host, int port) throws IOException {
    InetSocketAddress addr = new InetSocketAddress(host, port);
    http = HttpServer.create(addr, 64);
    pool = Executors.newFixedThreadPool(2, r -> {
      Thread t = new Thread(r, "schedbrain-shim-http");
      t.setDaemon(true);
      return t;
    });
    http.setExecutor(pool);
    http.createContext("/", this::handle);
    // HttpServer's dispatcher thread inherits daemon status from the thread that starts it:
    // start it from a daemon thread so the shim never keeps a stopping JVM alive.
    Thread starter = new Thread(http::start, "schedbrain-shim-start");
    starter.setDaemon(true);
    starter.start();
    try {
      starter.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting", e);
    }
    int bound = http.getAddress().getPort();
    String h = host;
    if (h.isEmpty() || "0.0.0.0".equals(h) || "::".equals(h)) {
      h = InetAddress.getLocalHost().getCanonicalHostName();
    }
    url = "http://" + h + ":" + bound;
  }

  public synchronized void stop() {
    if (http != null) {
      http.stop(0);
      pool.shutdownNow();
      http = null;
    }
  }

  // ---- HTTP ------------------------------------------------------------------------------------

  private void handle(HttpExchange ex) throws IOException {
    int status;
    JsonNode body;
    try {
      authorize(ex.getRequestMethod(), ex.getRequestURI().getPath(), ex);
      body = route(ex.getRequestMethod(), ex.getRequestURI().getPath(), ex);
      status = 200;
    } catch (ShimError e) {
      status = e.status;
      body = error(e.code, e.getMessage());
    } catch (RuntimeException e) {
      LOG.error("shim request {} {} failed", ex.getRequestMethod(), ex.getRequestURI(), e);
      status = 500;
      body = error("internal", String.valueOf(e.getMessage()));
    }
    byte[] out = JSON.writeValueAsBytes(body);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, out.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(out);
    }
  }

  static ObjectNode error(String code, String reason) {
    ObjectNode n = NF.objectNode();
    n.put("error", code);
    n.put("reason", reason);
    return n;
  }

  private JsonNode route(String method, String path, HttpExchange ex) throws IOException {
    switch (path) {
      case "/v1/health":
        allow(method, "GET");
        return health();
      case "/v1/containers":
        allow(method, "GET");
        return containerList(wantsAllocation(ex.getRequestURI().getRawQuery()));
      case "/v1/containers/suspend": {
        allow(method, "POST");
        ObjectNode b = readObject(ex, "nodeId", "containerId");
        containers.admitEpoch(epochOf(ex));
        return containerView(containers.suspend(str(b, "nodeId"), str(b, "containerId")));
      }
      case "/v1/containers/resume": {
        allow(method, "POST");
        ObjectNode b = readObject(ex, "nodeId", "containerId");
        containers.admitEpoch(epochOf(ex));
        return containerView(containers.resume(str(b, "nodeId"), str(b, "containerId")));
      }
      case "/v1/lease": {
        allow(method, "POST");
        ObjectNode b = readObject(ex, "holder", "ttlMs");
        String holder = str(b, "holder");
        long ttl = ttl(b);
        Long epoch = epochOf(ex);
        containers.admitEpoch(epoch);
        return leaseView(containers.acquireLease(holder, ttl, epoch));
      }
      case "/v1/lease/release": {
        allow(method, "POST");
        ObjectNode b = readObject(ex, "holder");
        containers.admitEpoch(epochOf(ex));
        List<String> resumed = containers.releaseLease(str(b, "holder"));
        ObjectNode n = NF.objectNode();
        ArrayNode a = n.putArray("resumed");
        resumed.forEach(a::add);
        return n;
      }
      case "/v1/ranking":
        if ("GET".equals(method)) {
          return rankingState();
        }
        allow(method, "PUT");
        ObjectNode body = readObject(ex, "scores", "leastLoadedFirst", "ttlMs");
        containers.admitEpoch(epochOf(ex));
        return putRanking(body);
      default:
        throw new ShimError(404, "not_found", "no route " + path);
    }
  }

  /** The sender's leadership epoch (a positive integer), or null when it sent none. */
  static Long epochOf(HttpExchange ex) {
    String raw = ex.getRequestHeaders().getFirst(EPOCH_HEADER);
    if (raw == null) {
      return null;
    }
    try {
      long e = Long.parseLong(raw.trim());
      if (e >= 1) {
        return e;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    String shown = raw.length() > 40 ? raw.substring(0, 40) + "..." : raw;
    throw ShimError.badRequest(EPOCH_HEADER + " must be a positive integer, got '" + shown + "'");
  }

  private static void allow(String method, String expected) {
    if (!expected.equals(method)) {
      throw new ShimError(405, "method_not_allowed", method + " not allowed here; use " + expected);
    }
  }

  /** Reads a JSON object whose keys are exactly {@code fields} (all required). */
  static ObjectNode readObject(HttpExchange ex, String... fields) throws IOException {
    byte[] raw = ex.getRequestBody().readAllBytes();
    return parseObject(raw, fields);
  }

  static ObjectNode parseObject(byte[] raw, String... fields) {
    JsonNode n;
    try {
      n = JSON.readTree(raw);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw ShimError.badRequest("body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw ShimError.badRequest("body is not valid JSON: " + e.getMessage());
    }
    if (n == null || !n.isObject()) {
      throw ShimError.badRequest("body must be a JSON object");
    }
    ObjectNode o = (ObjectNode) n;
    List<String> allowed = List.of(fields);
    for (Iterator<String> it = o.fieldNames(); it.hasNext();) {
      String f = it.next();
      if (!allowed.contains(f)) {
        throw ShimError.badRequest("unknown field '" + f + "' (expected " + allowed + ")");
      }
    }
    for (String f : fields) {
      if (!o.has(f)) {
        throw ShimError.badRequest("missing field '" + f + "'");
      }
    }
    return o;
  }

  static String str(ObjectNode o, String f) {
    JsonNode v = o.get(f);
    if (!v.isTextual() || v.asText().isEmpty()) {
      throw ShimError.badRequest("'" + f + "' must be a non-empty string");
    }
    return v.asText();
  }

  static long ttl(ObjectNode o) {
    JsonNode v = o.get("ttlMs");
    if (!v.isIntegralNumber() || v.asLong() < 1 || v.asLong() > MAX_TTL_MS) {
      throw ShimError.badRequest("'ttlMs' must be an integer between 1 and " + MAX_TTL_MS);
    }
    return v.asLong();
  }

  private JsonNode putRanking(ObjectNode b) {
    JsonNode scores = b.get("scores");
    if (!scores.isObject()) {
      throw ShimError.badRequest("'scores' must be an object of node id → number");
    }
    Map<String, Double> parsed = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = scores.fields(); it.hasNext();) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().isEmpty()) {
        throw ShimError.badRequest("'scores' has an empty node id");
      }
      if (!e.getValue().isNumber() || !Double.isFinite(e.getValue().asDouble())) {
        throw ShimError.badRequest("'scores." + e.getKey() + "' must be a finite number");
      }
      parsed.put(e.getKey(), e.getValue().asDouble());
    }
    JsonNode llf = b.get("leastLoadedFirst");
    if (!llf.isBoolean()) {
      throw ShimError.badRequest("'leastLoadedFirst' must be a boolean");
    }
    long ttl = ttl(b);
    ranking.publish(parsed, llf.asBoolean(), ttl);
    return rankingState();
  }

  // ---- views -----------------------------------------------------------------------------------

  private JsonNode health() {
    ObjectNode n = NF.objectNode();
    n.put("service", "schedbrain-shim");
    n.put("contractVersion", CONTRACT_VERSION);
    ArrayNode r = n.putArray("roles");
    synchronized (roles) {
      for (Role role : roles) {
        r.add(role.name().toLowerCase());
      }
    }
    ArrayNode nodes = n.putArray("nodes");
    containers.nodeIds().forEach(nodes::add);
    n.put("nowMs", System.currentTimeMillis());
    long fence = containers.fenceEpoch();
    if (fence > 0) {
      n.put("epoch", fence);
    } else {
      n.putNull("epoch");
    }
    ObjectNode res = n.putObject("resources");
    containers.configuredResources().forEach((id, cap) -> res.putObject(id).put("memoryMB", cap[0]).put("vcores", cap[1]));
    return n;
  }

  /**
   * {@code ?allocation=true} (contract 5): each container also carries what the RM allocated to it.
   * Asked for, so a brain of an earlier contract, which refuses unknown fields, reads the list it knows.
   */
  static boolean wantsAllocation(String query) {
    if (query == null) {
      return false;
    }
    for (String part : query.split("&")) {
      if ("allocation=true".equals(part)) {
        return true;
      }
    }
    return false;
  }

  private JsonNode containerList(boolean withAllocation) {
    ObjectNode n = NF.objectNode();
    n.put("nowMs", System.currentTimeMillis());
    ArrayNode nodes = n.putArray("nodes");
    containers.nodeIds().forEach(nodes::add);
    ContainerRegistry.Lease lease = containers.liveLease();
    if (lease == null) {
      n.putNull("lease");
    } else {
      n.set("lease", leaseView(lease));
    }
    ArrayNode a = n.putArray("containers");
    for (ContainerRegistry.View v : containers.list()) {
      ObjectNode c = containerView(v);
      ContainerRegistry.Allocation al = v.allocation;
      if (withAllocation && al != null) {
        c.put("allocatedMB", al.memoryMB);
        c.put("allocatedVCores", al.vcores);
        c.put("createdAtMs", al.createdAtMs);
        c.put("appMaster", al.appMaster);
      }
      a.add(c);
    }
    return n;
  }

  static ObjectNode containerView(ContainerRegistry.View v) {
    ObjectNode n = NF.objectNode();
    n.put("containerId", v.containerId);
    n.put("nodeId", v.nodeId);
    n.put("state", v.state);
    n.put("attainedServiceMs", v.attainedServiceMs);
    n.put("runningSinceMs", v.runningSinceMs);
    if (v.suspendedAtMs == null) {
      n.putNull("suspendedAtMs");
    } else {
      n.put("suspendedAtMs", v.suspendedAtMs);
    }
    n.put("pid", v.pid);
    ArrayNode procs = n.putArray("processes");
    for (ProcFs.Stat s : v.processes) {
      ObjectNode p = procs.addObject();
      p.put("pid", s.pid);
      p.put("state", String.valueOf(s.state));
    }
    return n;
  }

  static ObjectNode leaseView(ContainerRegistry.Lease l) {
    ObjectNode n = NF.objectNode();
    n.put("holder", l.holder);
    n.put("ttlMs", l.ttlMs);
    n.put("expiresAtMs", l.expiresAtMs);
    return n;
  }

  private JsonNode rankingState() {
    ObjectNode n = NF.objectNode();
    RankingStore.Ranking r = ranking.latest();
    if (r == null) {
      n.putNull("ranking");
    } else {
      ObjectNode rn = n.putObject("ranking");
      ObjectNode sc = rn.putObject("scores");
      r.scores.forEach(sc::put);
      rn.put("leastLoadedFirst", r.leastLoadedFirst);
      rn.put("ttlMs", r.ttlMs);
      rn.put("publishedAtMs", r.publishedAtMs);
    }
    n.put("fresh", ranking.fresh() != null);
    n.put("policyLoaded", ranking.isPolicyLoaded());
    List<String> order = ranking.lastOrder();
    if (order == null) {
      n.putNull("lastOrder");
      n.putNull("lastOrderAtMs");
    } else {
      ArrayNode a = n.putArray("lastOrder");
      new ArrayList<>(order).forEach(a::add);
      n.put("lastOrderAtMs", ranking.lastOrderAtMs());
    }
    n.put("lastOrderRanked", ranking.lastOrderRanked());
    return n;
  }
}
