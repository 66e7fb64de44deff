package io.schedbrain.yarn;

import java.io.File;
import java.util.Properties;
import org.apache.log4j.LogManager;
import org.apache.log4j.PropertyConfigurator;

/**
 * Hadoop 3.4 logs through reload4j (log4j 1.x API). Jars on the classpath ship their own
 * log4j.properties that log to the console; we replace that so stdout stays a clean protocol channel.
 */
public final class Logging {
  private Logging() {}

  /** All logging to {@code file}. */
  public static void toFile(File file, String level) {
    Properties p = new Properties();
    p.setProperty("log4j.rootLogger", level + ",file");
    p.setProperty("log4j.appender.file", "org.apache.log4j.FileAppender");
    p.setProperty("log4j.appender.file.File", file.getAbsolutePath());
    p.setProperty("log4j.appender.file.Append", "true");
    p.setProperty("log4j.appender.file.layout", "org.apache.log4j.PatternLayout");
    p.setProperty("log4j.appender.file.layout.ConversionPattern", "%d{ISO8601} %p %c{2}: %m%n");
    // Very chatty at INFO and useless to us.
    p.setProperty("log4j.logger.org.apache.hadoop.metrics2", "WARN");
    p.setProperty("log4j.logger.org.apache.hadoop.util.NativeCodeLoader", "ERROR");
    LogManager.resetConfiguration();
    PropertyConfigurator.configure(p);
  }

  /** All logging to stderr (clients whose stdout carries JSON lines). */
  public static void toStderr(String level) {
    Properties p = new Properties();
    p.setProperty("log4j.rootLogger", level + ",err");
    p.setProperty("log4j.appender.err", "org.apache.log4j.ConsoleAppender");
    p.setProperty("log4j.appender.err.Target", "System.err");
    p.setProperty("log4j.appender.err.layout", "org.apache.log4j.PatternLayout");
    p.setProperty("log4j.appender.err.layout.ConversionPattern", "%d{ISO8601} %p %c{2}: %m%n");
    p.setProperty("log4j.logger.org.apache.hadoop.util.NativeCodeLoader", "ERROR");
    LogManager.resetConfiguration();
    PropertyConfigurator.configure(p);
  }
}
