package io.schedbrain.yarn.shim;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** The contract file is well-formed, its examples are valid, and it describes what the Java side sends. */
public class ContractTest {
  @Test
  public void examplesAreValidAgainstTheirDefinitions() throws Exception {
    MiniSchema s = MiniSchema.load();
    int checked = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it = s.root.get("$defs").fields(); it.hasNext();) {
      Map.Entry<String, JsonNode> d = it.next();
      for (JsonNode ex : d.getValue().path("examples")) {
        assertEquals(d.getKey() + " example " + ex, List.of(), s.validate(d.getKey(), ex));
        checked++;
      }
    }
    assertTrue(checked >= 10);
  }

  @Test
  public void endpointsNameExistingDefinitions() throws Exception {
    MiniSchema s = MiniSchema.load();
    for (JsonNode e : s.root.get("x-endpoints")) {
      assertNotNull(s.def(e.get("response").asText()));
      if (e.has("request")) {
        assertNotNull(s.def(e.get("request").asText()));
      }
      for (JsonNode err : e.get("errors")) {
        assertEquals(List.of(), s.validate("Error", new ObjectMapper().createObjectNode()
            .put("error", err.get("error").asText()).put("reason", "x")));
      }
    }
    assertEquals(ShimServer.CONTRACT_VERSION, s.root.get("x-contract-version").asInt());
    assertEquals(NodeOrder.RESERVED_SCORE_MIN, s.root.get("x-reserved-score-min").asDouble(), 0);
  }

  @Test
  public void checkerRejectsWhatTheSchemaForbids() throws Exception {
    MiniSchema s = MiniSchema.load();
    ObjectMapper m = new ObjectMapper();
    assertFalse(s.validate("ContainerRef", m.readTree("{\"nodeId\":\"n\"}")).isEmpty());
    assertFalse(s.validate("ContainerRef", m.readTree("{\"nodeId\":\"n\",\"containerId\":\"c\",\"x\":1}")).isEmpty());
    assertFalse(s.validate("LeaseRequest", m.readTree("{\"holder\":\"h\",\"ttlMs\":0}")).isEmpty());
    assertFalse(s.validate("RankingRequest", m.readTree("{\"scores\":{\"a\":\"x\"},\"leastLoadedFirst\":true,\"ttlMs\":5}")).isEmpty());
    assertFalse(s.validate("Container", m.readTree("{\"containerId\":\"c\",\"nodeId\":\"n\",\"state\":\"PAUSED\",\"attainedServiceMs\":1,"
        + "\"runningSinceMs\":1,\"suspendedAtMs\":null,\"pid\":3,\"processes\":[]}")).isEmpty());
  }
}
