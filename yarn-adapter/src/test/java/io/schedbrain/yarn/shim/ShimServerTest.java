package io.schedbrain.yarn.shim;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.hadoop.yarn.server.nodemanager.ContainerExecutor.Signal;
import org.apache.hadoop.yarn.server.nodemanager.executor.ContainerSignalContext;
import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The NodeManager side over HTTP, on real process groups started the way DefaultContainerExecutor
 * starts a container: a bash writes its pid ($$) to the pid file, then {@code exec setsid} into the
 * launch script, which forks the workload.
 */
public class ShimServerTest {
  private static final ObjectMapper M = new ObjectMapper();
  private static final String NODE_A = "host-a:1001";
  private static final String NODE_B = "host-b:1002";

  private final HttpClient http = HttpClient.newHttpClient();
  private final List<Process> started = new ArrayList<>();
  private MiniSchema schema;
  private static final String SECRET = "shim-test-secret-0123456789";
  private ContainerRegistry registry;
  private ShimServer server;
  private File dir;

  @Before
  public void setUp() throws Exception {
    schema = MiniSchema.load();
    registry = ContainerRegistry.system();
    registry.startWatchdog(50);
    server = new ShimServer(registry, new RankingStore(System::currentTimeMillis));
    server.requireSecret(SECRET);
    server.start("127.0.0.1", 0);
    dir = Files.createTempDirectory("shim-test").toFile();
    registry.registerNode(() -> NODE_A);
    registry.registerNode(() -> NODE_B);
  }

  @After
  public void tearDown() throws Exception {
    server.stop();
    for (Process p : started) {
      // Continue, then kill: nothing this test started may outlive it, frozen or not.
      new ProcessBuilder("kill", "-s", "CONT", "--", "-" + p.pid()).start().waitFor();
      new ProcessBuilder("kill", "-s", "KILL", "--", "-" + p.pid()).start().waitFor();
    }
  }

  /** A container-like process group: one CPU burner and one sleeper under a session leader. */
  private long launch(String containerId, String node) throws Exception {
    File pidFile = new File(dir, containerId + ".pid");
    String launchScript = "yes > /dev/null & sleep 600 & wait";
    Process p = new ProcessBuilder("bash", "-c",
        "echo $$ > " + pidFile + ".tmp; mv -f " + pidFile + ".tmp " + pidFile
            + "; exec setsid /bin/bash -c '" + launchScript + "'")
        .redirectErrorStream(true).redirectOutput(new File(dir, containerId + ".out")).start();
    started.add(p);
    registry.containerStarted(containerId, () -> node, () -> {
      try {
        return pidFile.exists() ? new String(Files.readAllBytes(pidFile.toPath()), StandardCharsets.US_ASCII).trim() : null;
      } catch (Exception e) {
        return null;
      }
    });
    waitFor(() -> pidFile.exists() && ProcFs.readStat((int) p.pid()) != null
        && ProcFs.snapshot().tree((int) p.pid()).size() >= 3, "container processes up");
    return p.pid();
  }

  private static void waitFor(BooleanSupplier cond, String what) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!cond.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  @Test
  public void everyRouteButHealthNeedsTheSharedSecret() throws Exception {
    JsonNode before = stateOf();
    for (String[] r : new String[][] {
        {"GET", "/v1/containers", null},
        {"GET", "/v1/ranking", null},
        {"POST", "/v1/lease", "{\"holder\":\"intruder\",\"ttlMs\":3600000}"},
        {"POST", "/v1/containers/suspend", "{\"nodeId\":\"" + NODE_A + "\",\"containerId\":\"c1\"}"},
        {"PUT", "/v1/ranking", "{\"scores\":{},\"leastLoadedFirst\":false,\"ttlMs\":1000}"}}) {
      for (String bearer : new String[] {null, "not-the-secret-at-all"}) {
        Reply reply = call(r[0], r[1], r[2], bearer);
        assertEquals(r[0] + " " + r[1] + " " + reply.body, 401, reply.status);
        assertEquals("unauthorized", reply.body.get("error").asText());
        assertEquals(List.of(), schema.validate("Error", reply.body));
      }
    }
    assertEquals(200, call("GET", "/v1/health", null, null).status);
    assertEquals("a refused request changes nothing", before, stateOf());
  }

  @Test
  public void aShimWithoutASecretAnswersReadsAndRefusesEveryChange() throws Exception {
    ShimServer open = new ShimServer(ContainerRegistry.system(), new RankingStore(System::currentTimeMillis));
    open.start("127.0.0.1", 0);
    try {
      HttpResponse<String> read = http.send(HttpRequest.newBuilder(URI.create(open.url() + "/v1/containers")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, read.statusCode());
      HttpResponse<String> lease = http.send(HttpRequest.newBuilder(URI.create(open.url() + "/v1/lease"))
          .header("Authorization", "Bearer anything-at-all-0123456789")
          .POST(HttpRequest.BodyPublishers.ofString("{\"holder\":\"x\",\"ttlMs\":1000}")).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(401, lease.statusCode());
      assertEquals("unauthorized", M.readTree(lease.body()).get("error").asText());
    } finally {
      open.stop();
    }
  }

  private static final class Reply {
    final int status;
    final JsonNode body;

    Reply(int status, JsonNode body) {
      this.status = status;
      this.body = body;
    }
  }

  private Reply call(String method, String path, String body) throws Exception {
    return call(method, path, body, SECRET);
  }

  private Reply call(String method, String path, String body, String bearer) throws Exception {
    return call(method, path, body, bearer, null);
  }

  private Reply call(String method, String path, String body, String bearer, String epoch) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.url() + path));
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    if (epoch != null) {
      b.header(ShimServer.EPOCH_HEADER, epoch);
    }
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), M.readTree(r.body()));
  }

  private Reply ok(String method, String path, String body, String def) throws Exception {
    Reply r = call(method, path, body);
    assertEquals(r.body.toString(), 200, r.status);
    assertEquals(r.body.toString(), List.of(), schema.validate(def, r.body));
    return r;
  }

  private void refused(int status, String code, String method, String path, String body) throws Exception {
    JsonNode before = stateOf();
    Reply r = call(method, path, body);
    assertEquals(r.body.toString(), status, r.status);
    assertEquals(code, r.body.get("error").asText());
    assertEquals(List.of(), schema.validate("Error", r.body));
    assertEquals("a refused request changes nothing", before, stateOf());
  }

  /** What must not change on a refused request: each container's state, the lease. */
  private JsonNode stateOf() throws Exception {
    JsonNode list = ok("GET", "/v1/containers", null, "ContainerList").body;
    StringBuilder sb = new StringBuilder();
    for (JsonNode c : list.get("containers")) {
      sb.append(c.get("containerId").asText()).append('=').append(c.get("state").asText()).append(';');
    }
    return M.createObjectNode().put("containers", sb.toString()).set("lease", list.get("lease"));
  }

  private JsonNode container(String id) throws Exception {
    for (JsonNode c : ok("GET", "/v1/containers", null, "ContainerList").body.get("containers")) {
      if (c.get("containerId").asText().equals(id)) {
        return c;
      }
    }
    return null;
  }

  private static boolean allStopped(JsonNode c) {
    for (JsonNode p : c.get("processes")) {
      if (!p.get("state").asText().equals("T")) {
        return false;
      }
    }
    return true;
  }

  private static boolean noneStopped(JsonNode c) {
    for (JsonNode p : c.get("processes")) {
      if (p.get("state").asText().equals("T")) {
        return false;
      }
    }
    return true;
  }

  private static String ref(String node, String id) {
    return "{\"nodeId\":\"" + node + "\",\"containerId\":\"" + id + "\"}";
  }

  @Test
  public void pidFileHoldsTheSessionAndGroupLeader() throws Exception {
    long pid = launch("container_1_0001_01_000001", NODE_A);
    ProcFs.Stat s = ProcFs.readStat((int) pid);
    assertEquals("pgrp", pid, s.pgrp);
    assertEquals("session", pid, s.session);
    List<ProcFs.Stat> tree = ProcFs.snapshot().tree((int) pid);
    assertEquals(3, tree.size());
    for (ProcFs.Stat t : tree) {
      assertEquals(pid, t.pgrp);
    }
  }

  @Test
  public void theListCarriesTheAllocationOnlyWhenAskedFor() throws Exception {
    // This JVM stands in for the container's process: listed, never signalled.
    String id = "container_1_0002_01_000001";
    registry.containerStarted(id, () -> NODE_B, () -> String.valueOf(ProcessHandle.current().pid()),
        () -> new ContainerRegistry.Allocation(1536, 2, 1_763_719_200_300L, true));
    JsonNode with = null;
    for (JsonNode c : ok("GET", "/v1/containers?allocation=true", null, "ContainerList").body.get("containers")) {
      if (c.get("containerId").asText().equals(id)) {
        with = c;
      }
    }
    assertNotNull(with);
    assertEquals(1536, with.get("allocatedMB").asLong());
    assertEquals(2, with.get("allocatedVCores").asLong());
    assertEquals(1_763_719_200_300L, with.get("createdAtMs").asLong());
    assertTrue(with.get("appMaster").asBoolean());
    JsonNode without = container(id);
    assertNotNull(without);
    assertFalse("a contract-4 reader gets the contract-4 fields only", without.has("allocatedMB") || without.has("appMaster"));
    assertTrue(ShimServer.wantsAllocation("a=1&allocation=true"));
    assertFalse(ShimServer.wantsAllocation("allocation=false"));
    assertFalse(ShimServer.wantsAllocation(null));
  }

  @Test
  public void suspendStopsTheTreeAndResumeContinuesIt() throws Exception {
    String id = "container_1_0001_01_000002";
    launch(id, NODE_A);
    ok("POST", "/v1/lease", "{\"holder\":\"brain\",\"ttlMs\":60000}", "Lease");
    waitFor(() -> cpu(id) > 0, "CPU accrues");

    JsonNode s = ok("POST", "/v1/containers/suspend", ref(NODE_A, id), "Container").body;
    assertEquals("SUSPENDED", s.get("state").asText());
    waitFor(() -> allStopped(unchecked(id)), "all processes stopped");
    long frozen = cpu(id);
    Thread.sleep(500);
    assertEquals("a suspended container accrues no CPU", frozen, cpu(id));

    JsonNode r = ok("POST", "/v1/containers/resume", ref(NODE_A, id), "Container").body;
    assertEquals("RUNNING", r.get("state").asText());
    assertTrue(noneStopped(unchecked(id)));
    waitFor(() -> cpu(id) > frozen, "CPU accrues again after resume");
  }

  @Test
  public void watchdogResumesWhenTheLeaseLapses() throws Exception {
    String id = "container_1_0001_01_000003";
    launch(id, NODE_A);
    ok("POST", "/v1/lease", "{\"holder\":\"brain\",\"ttlMs\":1500}", "Lease");
    // The suspend answer shows the tree after the stop settled; a second look could already come
    // after the short lease lapsed on a loaded machine.
    JsonNode suspended = ok("POST", "/v1/containers/suspend", ref(NODE_A, id), "Container").body;
    assertEquals("SUSPENDED", suspended.get("state").asText());
    assertTrue(suspended.toString(), allStopped(suspended));
    // No renewal: the lease lapses and the watchdog continues the container.
    waitFor(() -> "RUNNING".equals(unchecked(id).get("state").asText()) && noneStopped(unchecked(id)), "watchdog resume");
    assertTrue(ok("GET", "/v1/containers", null, "ContainerList").body.get("lease").isNull());
  }

  @Test
  public void releasingTheLeaseResumesEverything() throws Exception {
    String id = "container_1_0001_01_000004";
    launch(id, NODE_A);
    ok("POST", "/v1/lease", "{\"holder\":\"brain\",\"ttlMs\":60000}", "Lease");
    ok("POST", "/v1/containers/suspend", ref(NODE_A, id), "Container");
    refused(409, "lease_held", "POST", "/v1/lease", "{\"holder\":\"other\",\"ttlMs\":1000}");
    JsonNode rel = ok("POST", "/v1/lease/release", "{\"holder\":\"brain\"}", "LeaseReleased").body;
    assertEquals(id, rel.get("resumed").get(0).asText());
    assertTrue(noneStopped(unchecked(id)));
  }

  @Test
  public void badInputIsRefusedAndChangesNothing() throws Exception {
    String a = "container_1_0001_01_000005";
    String b = "container_1_0001_01_000006";
    launch(a, NODE_A);
    launch(b, NODE_B);
    // No lease yet.
    refused(423, "no_lease", "POST", "/v1/containers/suspend", ref(NODE_A, a));
    ok("POST", "/v1/lease", "{\"holder\":\"brain\",\"ttlMs\":60000}", "Lease");
    refused(404, "unknown_container", "POST", "/v1/containers/suspend", ref(NODE_A, "container_9_9999_01_000001"));
    refused(409, "wrong_node", "POST", "/v1/containers/suspend", ref(NODE_A, b));
    refused(409, "wrong_node", "POST", "/v1/containers/resume", ref(NODE_B, a));
    refused(400, "bad_request", "POST", "/v1/containers/suspend", "{nodeId:");
    refused(400, "bad_request", "POST", "/v1/containers/suspend", "[]");
    refused(400, "bad_request", "POST", "/v1/containers/suspend", "");
    refused(400, "bad_request", "POST", "/v1/containers/suspend", "{\"nodeId\":\"" + NODE_A + "\"}");
    refused(400, "bad_request", "POST", "/v1/containers/suspend", "{\"nodeId\":\"" + NODE_A + "\",\"containerId\":\"" + a + "\",\"force\":true}");
    refused(400, "bad_request", "POST", "/v1/containers/suspend", "{\"nodeId\":7,\"containerId\":\"" + a + "\"}");
    refused(400, "bad_request", "POST", "/v1/lease", "{\"holder\":\"brain\",\"ttlMs\":0}");
    refused(400, "bad_request", "POST", "/v1/lease", "{\"holder\":\"\",\"ttlMs\":1000}");
    refused(405, "method_not_allowed", "GET", "/v1/containers/suspend", null);
    refused(404, "not_found", "GET", "/v1/nothing", null);
    // Suspended containers stay suspended through refusals too.
    ok("POST", "/v1/containers/suspend", ref(NODE_A, a), "Container");
    refused(409, "wrong_node", "POST", "/v1/containers/resume", ref(NODE_B, a));
    refused(400, "bad_request", "POST", "/v1/containers/resume", "{}");
    assertEquals("SUSPENDED", container(a).get("state").asText());
    assertEquals("RUNNING", container(b).get("state").asText());
  }

  /** A call under a leadership epoch that must answer 200 with a body of {@code def}. */
  private JsonNode okAt(long epoch, String method, String path, String body, String def) throws Exception {
    Reply r = call(method, path, body, SECRET, Long.toString(epoch));
    assertEquals(r.body.toString(), 200, r.status);
    assertEquals(r.body.toString(), List.of(), schema.validate(def, r.body));
    return r.body;
  }

  private void staleAt(long epoch, String method, String path, String body) throws Exception {
    JsonNode before = stateOf();
    Reply r = call(method, path, body, SECRET, Long.toString(epoch));
    assertEquals(r.body.toString(), 409, r.status);
    assertEquals("stale_epoch", r.body.get("error").asText());
    assertEquals(List.of(), schema.validate("Error", r.body));
    assertEquals("a refused request changes nothing", before, stateOf());
  }

  @Test
  public void changesFromAnOlderLeaderAreRefused() throws Exception {
    String id = "container_1_0001_01_000010";
    launch(id, NODE_A);
    okAt(1, "POST", "/v1/lease", "{\"holder\":\"brain-a\",\"ttlMs\":60000}", "Lease");
    okAt(1, "POST", "/v1/containers/suspend", ref(NODE_A, id), "Container");
    assertEquals(1, ok("GET", "/v1/health", null, "Health").body.get("epoch").asLong());
    // A newer leader takes the live lease over at once; the suspension stays, for it to adopt or undo.
    JsonNode lease = okAt(2, "POST", "/v1/lease", "{\"holder\":\"brain-b\",\"ttlMs\":60000}", "Lease");
    assertEquals("brain-b", lease.get("holder").asText());
    assertEquals("SUSPENDED", container(id).get("state").asText());
    // The old leader, unaware, is refused everywhere it could write.
    staleAt(1, "POST", "/v1/containers/resume", ref(NODE_A, id));
    staleAt(1, "POST", "/v1/containers/suspend", ref(NODE_A, id));
    staleAt(1, "POST", "/v1/lease", "{\"holder\":\"brain-a\",\"ttlMs\":60000}");
    staleAt(1, "POST", "/v1/lease/release", "{\"holder\":\"brain-a\"}");
    staleAt(1, "PUT", "/v1/ranking", "{\"scores\":{},\"leastLoadedFirst\":false,\"ttlMs\":1000}");
    assertEquals(2, ok("GET", "/v1/health", null, "Health").body.get("epoch").asLong());
    // Without a higher epoch, another holder still waits for the lease to lapse.
    refused(409, "lease_held", "POST", "/v1/lease", "{\"holder\":\"brain-c\",\"ttlMs\":60000}");
    Reply same = call("POST", "/v1/lease", "{\"holder\":\"brain-c\",\"ttlMs\":60000}", SECRET, "2");
    assertEquals(409, same.status);
    assertEquals("lease_held", same.body.get("error").asText());
    // The new leader resumes it; a malformed epoch is a bad request.
    okAt(2, "POST", "/v1/containers/resume", ref(NODE_A, id), "Container");
    for (String bad : new String[] {"0", "-3", "two", "1.5", ""}) {
      Reply r = call("POST", "/v1/containers/suspend", ref(NODE_A, id), SECRET, bad);
      assertEquals(bad, 400, r.status);
      assertEquals("bad_request", r.body.get("error").asText());
    }
    // Once the lease is released no brain acts here: the next leader starts afresh.
    okAt(2, "POST", "/v1/lease/release", "{\"holder\":\"brain-b\"}", "LeaseReleased");
    assertTrue(ok("GET", "/v1/health", null, "Health").body.get("epoch").isNull());
    okAt(1, "POST", "/v1/lease", "{\"holder\":\"brain-a\",\"ttlMs\":60000}", "Lease");
  }

  @Test
  public void aShimWithoutALeaseForgetsTheEpochAfterAnHourWithoutChanges() {
    long[] now = {1_000_000L};
    ContainerRegistry r = new ContainerRegistry(() -> now[0], (pid, sig) -> { });
    r.admitEpoch(5L);
    now[0] += ContainerRegistry.FENCE_MEMORY_MS - 1;
    r.checkLease();
    assertEquals(5, r.fenceEpoch());
    try {
      r.admitEpoch(4L);
      throw new AssertionError("an older epoch was admitted");
    } catch (ShimError e) {
      assertEquals("stale_epoch", e.code);
    }
    now[0] += 1;
    r.checkLease();
    assertEquals(0, r.fenceEpoch());
    r.admitEpoch(1L);
    // With a lease held, the epoch is kept however long nothing changes.
    r.acquireLease("brain", 10 * ContainerRegistry.FENCE_MEMORY_MS, 1L);
    now[0] += 2 * ContainerRegistry.FENCE_MEMORY_MS;
    r.checkLease();
    assertEquals(1, r.fenceEpoch());
  }

  @Test
  public void healthListsEachNodesConfiguredResources() throws Exception {
    registry.registerNode(() -> "host-c:1003", 4096, 4);
    JsonNode h = ok("GET", "/v1/health", null, "Health").body;
    assertEquals(4096, h.get("resources").get("host-c:1003").get("memoryMB").asLong());
    assertEquals(4, h.get("resources").get("host-c:1003").get("vcores").asLong());
    assertFalse("nodes registered without resources are not listed", h.get("resources").has(NODE_A));
  }

  @Test
  public void killingASuspendedContainerWorks() throws Exception {
    String id = "container_1_0001_01_000007";
    long pid = launch(id, NODE_A);
    Process p = started.get(started.size() - 1);
    ok("POST", "/v1/lease", "{\"holder\":\"brain\",\"ttlMs\":60000}", "Lease");
    ok("POST", "/v1/containers/suspend", ref(NODE_A, id), "Container");
    waitFor(() -> allStopped(unchecked(id)), "stopped");
    // What the NodeManager does on kill: SIGTERM to the container's pid through the executor.
    SuspendingContainerExecutor exec = new SuspendingContainerExecutor(registry);
    boolean sent = exec.signalContainer(new ContainerSignalContext.Builder()
        .setPid(Long.toString(pid)).setUser(System.getProperty("user.name")).setSignal(Signal.TERM).build());
    assertTrue(sent);
    assertTrue("a suspended container dies of SIGTERM", p.waitFor(20, TimeUnit.SECONDS));
    waitFor(() -> ProcFs.snapshot().tree((int) pid).isEmpty(), "whole tree gone");
  }

  /** The processes of a container's tree, as /proc shows them now. */
  private static List<ProcFs.Stat> treeOf(long pid) {
    return ProcFs.snapshot().tree((int) pid);
  }

  private static boolean treeStopped(long pid, boolean stopped) {
    List<ProcFs.Stat> tree = treeOf(pid);
    return !tree.isEmpty() && tree.stream().allMatch(t -> t.stopped() == stopped);
  }

  @Test
  public void aShimKilledWithContainersSuspendedContinuesThemWhenItStartsAgain() throws Exception {
    File record = new File(dir, "state/" + SuspensionRecord.FILE_NAME);
    assertEquals(List.of(), registry.keepSuspensionsIn(new SuspensionRecord(record.toPath())));
    String id = "container_1_0001_01_000008";
    long pid = launch(id, NODE_A);
    ok("POST", "/v1/lease", "{\"holder\":\"brain\",\"ttlMs\":60000}", "Lease");
    ok("POST", "/v1/containers/suspend", ref(NODE_A, id), "Container");
    waitFor(() -> treeStopped(pid, true), "stopped");
    List<String> lines = Files.readAllLines(record.toPath());
    assertEquals(List.of(pid + " " + ProcFs.readStat((int) pid).startTicks + " " + id + " " + NODE_A), lines);

    // The shim dies without resuming anything (kill -9: no shutdown hook, no watchdog); a new one
    // starts on the same state directory and knows nothing of the container but the record.
    server.stop();
    ContainerRegistry restarted = new ContainerRegistry(System::currentTimeMillis, (p, sig) -> ProcFs.signalTreeAndSettle(p, sig, 500));
    assertTrue("still stopped while no shim runs", treeStopped(pid, true));
    assertEquals(List.of(id), restarted.keepSuspensionsIn(new SuspensionRecord(record.toPath())));
    waitFor(() -> treeStopped(pid, false), "every process of the container continued");
    assertFalse("the record is cleared", record.exists());
  }

  @Test
  public void aRecordedPidNowNamingAnotherProcessIsLeftAlone() throws Exception {
    File record = new File(dir, SuspensionRecord.FILE_NAME);
    long pid = launch("container_1_0001_01_000009", NODE_A);
    // Stopped by someone else; the record names its pid with another start time (a reused pid).
    new ProcessBuilder("kill", "-s", "STOP", "--", "-" + pid).start().waitFor();
    waitFor(() -> treeStopped(pid, true), "stopped by hand");
    long startTicks = ProcFs.readStat((int) pid).startTicks;
    new SuspensionRecord(record.toPath()).write(List.of(
        new SuspensionRecord.Line((int) pid, startTicks - 1, "container_0_0001_01_000001", NODE_A),
        new SuspensionRecord.Line(Integer.MAX_VALUE - 1, 1, "container_0_0001_01_000002", NODE_A)));
    ContainerRegistry fresh = new ContainerRegistry(System::currentTimeMillis, (p, sig) -> ProcFs.signalTreeAndSettle(p, sig, 500));
    assertEquals(List.of(), fresh.keepSuspensionsIn(new SuspensionRecord(record.toPath())));
    Thread.sleep(200);
    assertTrue("a process the record does not name is not continued", treeStopped(pid, true));
    assertFalse(record.exists());
  }

  @Test
  public void theRecordFollowsSuspendResumeAndTheWatchdog() throws Exception {
    File record = new File(dir, SuspensionRecord.FILE_NAME);
    registry.keepSuspensionsIn(new SuspensionRecord(record.toPath()));
    String a = "container_1_0001_01_000010";
    String b = "container_1_0001_01_000011";
    launch(a, NODE_A);
    launch(b, NODE_B);
    ok("POST", "/v1/lease", "{\"holder\":\"brain\",\"ttlMs\":60000}", "Lease");
    ok("POST", "/v1/containers/suspend", ref(NODE_A, a), "Container");
    ok("POST", "/v1/containers/suspend", ref(NODE_B, b), "Container");
    assertEquals(2, new SuspensionRecord(record.toPath()).read().size());
    ok("POST", "/v1/containers/resume", ref(NODE_A, a), "Container");
    List<SuspensionRecord.Line> left = new SuspensionRecord(record.toPath()).read();
    assertEquals(1, left.size());
    assertEquals(b, left.get(0).containerId);
    assertEquals(NODE_B, left.get(0).nodeId);
    ok("POST", "/v1/lease/release", "{\"holder\":\"brain\"}", "LeaseReleased");
    assertFalse("nothing suspended, no record", record.exists());
  }

  @Test
  public void aContainerTheNodeManagerStopsTrackingWhileSuspendedIsContinued() throws Exception {
    File record = new File(dir, SuspensionRecord.FILE_NAME);
    registry.keepSuspensionsIn(new SuspensionRecord(record.toPath()));
    String id = "container_1_0001_01_000012";
    long pid = launch(id, NODE_A);
    ok("POST", "/v1/lease", "{\"holder\":\"brain\",\"ttlMs\":60000}", "Lease");
    ok("POST", "/v1/containers/suspend", ref(NODE_A, id), "Container");
    waitFor(() -> treeStopped(pid, true), "stopped");
    // The NodeManager's launch returned (e.g. it stopped) while the processes live on.
    registry.containerFinished(id);
    waitFor(() -> treeStopped(pid, false), "continued");
    assertFalse(record.exists());
  }

  @Test
  public void rankingIsValidatedAndKeptOnRefusal() throws Exception {
    JsonNode st = ok("GET", "/v1/ranking", null, "RankingState").body;
    assertTrue(st.get("ranking").isNull());
    assertFalse(st.get("fresh").asBoolean());
    JsonNode put = ok("PUT", "/v1/ranking", "{\"scores\":{\"" + NODE_B + "\":0,\"" + NODE_A + "\":1.5},\"leastLoadedFirst\":false,\"ttlMs\":60000}",
        "RankingState").body;
    assertTrue(put.get("fresh").asBoolean());
    assertEquals(1.5, put.get("ranking").get("scores").get(NODE_A).asDouble(), 0);
    for (String bad : new String[] {
        "{\"scores\":{\"x\":\"high\"},\"leastLoadedFirst\":false,\"ttlMs\":1000}",
        "{\"scores\":[],\"leastLoadedFirst\":false,\"ttlMs\":1000}",
        "{\"scores\":{},\"leastLoadedFirst\":\"yes\",\"ttlMs\":1000}",
        "{\"scores\":{},\"leastLoadedFirst\":false}",
        "not json"}) {
      Reply r = call("PUT", "/v1/ranking", bad);
      assertEquals(bad, 400, r.status);
      assertEquals(List.of(), schema.validate("Error", r.body));
    }
    JsonNode after = ok("GET", "/v1/ranking", null, "RankingState").body;
    assertEquals(put.get("ranking"), after.get("ranking"));
    assertNotNull(after.get("lastOrderRanked"));
  }

  private JsonNode unchecked(String id) {
    try {
      return container(id);
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  private long cpu(String id) {
    JsonNode c = unchecked(id);
    return c == null ? -1 : c.get("attainedServiceMs").asLong();
  }
}
