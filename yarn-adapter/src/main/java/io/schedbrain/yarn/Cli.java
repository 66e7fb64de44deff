package io.schedbrain.yarn;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Minimal command-line parser: {@code --key value}, {@code --key=value}, bare {@code --flag}; keys may repeat. */
public final class Cli {
  private final Map<String, List<String>> values;

  private Cli(Map<String, List<String>> values) {
    this.values = values;
  }

  public static Cli parse(String[] args) {
    Map<String, List<String>> m = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String k = args[i];
      if (!k.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument " + k);
      }
      String v;
      int eq = k.indexOf('=');
      if (eq > 0) {
        v = k.substring(eq + 1);
        k = k.substring(0, eq);
      } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        v = args[++i];
      } else {
        v = "true";
      }
      m.computeIfAbsent(k, x -> new ArrayList<>()).add(v);
    }
    return new Cli(m);
  }

  public boolean has(String k) {
    return values.containsKey(k);
  }

  public String get(String k, String dflt) {
    List<String> v = values.get(k);
    return v == null ? dflt : v.get(v.size() - 1);
  }

  public String require(String k) {
    String v = get(k, null);
    if (v == null) {
      throw new IllegalArgumentException("missing " + k);
    }
    return v;
  }

  public int getInt(String k, int dflt) {
    String v = get(k, null);
    return v == null ? dflt : Integer.parseInt(v);
  }

  public List<String> all(String k) {
    return values.getOrDefault(k, List.of());
  }
}
