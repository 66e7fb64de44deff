package io.schedbrain.yarn.shim;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The subset of JSON Schema 2020-12 that schedbrain-shim-contract.json uses (type, const, enum,
 * required, properties, additionalProperties, items, $ref to #/$defs, oneOf, minimum, maximum,
 * minLength, maxLength). Unknown keywords are a test failure, so the contract cannot grow a
 * keyword this checker silently ignores.
 */
final class MiniSchema {
  private static final List<String> KNOWN = List.of("type", "const", "enum", "required", "properties",
      "additionalProperties", "items", "$ref", "oneOf", "minimum", "maximum", "minLength", "maxLength",
      "description", "examples");

  final JsonNode root;

  private MiniSchema(JsonNode root) {
    this.root = root;
  }

  static MiniSchema load() throws IOException {
    try (InputStream in = MiniSchema.class.getResourceAsStream("/schedbrain-shim-contract.json")) {
      if (in == null) {
        throw new IOException("schedbrain-shim-contract.json is not on the classpath");
      }
      return new MiniSchema(new ObjectMapper().readTree(in));
    }
  }

  JsonNode def(String name) {
    JsonNode d = root.path("$defs").get(name);
    if (d == null) {
      throw new IllegalArgumentException("no $defs/" + name);
    }
    return d;
  }

  /** Validation errors of {@code value} against {@code $defs/name}; empty when valid. */
  List<String> validate(String name, JsonNode value) {
    List<String> errors = new ArrayList<>();
    check(def(name), value, "$", errors);
    return errors;
  }

  private void check(JsonNode schema, JsonNode v, String at, List<String> errors) {
    for (Iterator<String> it = schema.fieldNames(); it.hasNext();) {
      String k = it.next();
      if (!KNOWN.contains(k)) {
        errors.add(at + ": schema keyword '" + k + "' not supported by the checker");
      }
    }
    if (schema.has("$ref")) {
      String ref = schema.get("$ref").asText();
      if (!ref.startsWith("#/$defs/")) {
        errors.add(at + ": unsupported $ref " + ref);
        return;
      }
      check(def(ref.substring("#/$defs/".length())), v, at, errors);
    }
    if (schema.has("oneOf")) {
      int matches = 0;
      for (JsonNode alt : schema.get("oneOf")) {
        List<String> sub = new ArrayList<>();
        check(alt, v, at, sub);
        if (sub.isEmpty()) {
          matches++;
        }
      }
      if (matches != 1) {
        errors.add(at + ": matches " + matches + " of oneOf");
      }
    }
    if (schema.has("type") && !typeOk(schema.get("type"), v)) {
      errors.add(at + ": expected type " + schema.get("type") + ", got " + v.getNodeType());
      return;
    }
    if (schema.has("const") && !schema.get("const").equals(v)) {
      errors.add(at + ": expected " + schema.get("const"));
    }
    if (schema.has("enum")) {
      boolean found = false;
      for (JsonNode e : schema.get("enum")) {
        found |= e.equals(v);
      }
      if (!found) {
        errors.add(at + ": " + v + " not in " + schema.get("enum"));
      }
    }
    if (v.isNumber()) {
      if (schema.has("minimum") && v.asDouble() < schema.get("minimum").asDouble()) {
        errors.add(at + ": below minimum");
      }
      if (schema.has("maximum") && v.asDouble() > schema.get("maximum").asDouble()) {
        errors.add(at + ": above maximum");
      }
    }
    if (v.isTextual()) {
      int len = v.asText().codePointCount(0, v.asText().length());
      if (schema.has("minLength") && len < schema.get("minLength").asInt()) {
        errors.add(at + ": shorter than minLength");
      }
      if (schema.has("maxLength") && len > schema.get("maxLength").asInt()) {
        errors.add(at + ": longer than maxLength");
      }
    }
    if (v.isArray() && schema.has("items")) {
      int i = 0;
      for (JsonNode item : v) {
        check(schema.get("items"), item, at + "[" + i++ + "]", errors);
      }
    }
    if (v.isObject()) {
      if (schema.has("required")) {
        for (JsonNode r : schema.get("required")) {
          if (!v.has(r.asText())) {
            errors.add(at + ": missing required '" + r.asText() + "'");
          }
        }
      }
      JsonNode props = schema.path("properties");
      JsonNode extra = schema.get("additionalProperties");
      for (Iterator<Map.Entry<String, JsonNode>> it = v.fields(); it.hasNext();) {
        Map.Entry<String, JsonNode> f = it.next();
        if (props.has(f.getKey())) {
          check(props.get(f.getKey()), f.getValue(), at + "." + f.getKey(), errors);
        } else if (extra != null && extra.isBoolean() && !extra.asBoolean()) {
          errors.add(at + ": unexpected property '" + f.getKey() + "'");
        } else if (extra != null && extra.isObject()) {
          check(extra, f.getValue(), at + "." + f.getKey(), errors);
        }
      }
    }
  }

  private static boolean typeOk(JsonNode type, JsonNode v) {
    if (type.isArray()) {
      for (JsonNode t : type) {
        if (typeOk(t, v)) {
          return true;
        }
      }
      return false;
    }
    switch (type.asText()) {
      case "object": return v.isObject();
      case "array": return v.isArray();
      case "string": return v.isTextual();
      case "integer": return v.isIntegralNumber() || (v.isNumber() && v.asDouble() == Math.rint(v.asDouble()));
      case "number": return v.isNumber();
      case "boolean": return v.isBoolean();
      case "null": return v.isNull();
      default: return false;
    }
  }
}
