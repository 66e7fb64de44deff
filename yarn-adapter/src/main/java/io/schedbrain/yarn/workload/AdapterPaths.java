package io.schedbrain.yarn.workload;

import java.io.File;
import java.net.URISyntaxException;
import java.util.List;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.LocalResourceType;
import org.apache.hadoop.yarn.api.records.LocalResourceVisibility;
import org.apache.hadoop.yarn.api.records.URL;

/** Where the adapter's jar, its dependencies and the JVM live on this (single) machine. */
final class AdapterPaths {
  private AdapterPaths() {}

  /** Hadoop 3.4 on Java 17: Guice/cglib, Jersey and Hadoop's own reflection need these. */
  static final List<String> JAVA_OPENS = List.of(
      "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
      "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED",
      "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED");

  static File adapterJar() {
    try {
      File f = new File(AdapterPaths.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      if (!f.isFile()) {
        throw new IllegalStateException("not running from the adapter jar (" + f + "); run mvn package");
      }
      return f;
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** target/lib next to the adapter jar (maven-dependency-plugin copy-dependencies). */
  static File libDir() {
    return new File(adapterJar().getParentFile(), "lib");
  }

  static String javaBin() {
    return new File(System.getProperty("java.home"), "bin/java").getAbsolutePath();
  }

  /** A local file as an application-private LocalResource; the NM copies it into the container dir. */
  static LocalResource fileResource(File f) {
    return LocalResource.newInstance(
        URL.fromPath(new Path(f.getAbsoluteFile().toURI())),
        LocalResourceType.FILE,
        LocalResourceVisibility.APPLICATION,
        f.length(),
        f.lastModified());
  }
}
