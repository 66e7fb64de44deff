package io.schedbrain.yarn;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

/**
 * A standalone ZooKeeper server for tests of the brain's leader election (the ZooKeeper a Hadoop
 * cluster runs for the RM's own HA): one in-process server on loopback, data under {@code --dir}.
 *
 * <pre>
 *   java -cp yarn-adapter.jar:lib/* io.schedbrain.yarn.ZooKeeperMain --port 0 --dir DIR
 * </pre>
 *
 * Prints {@code SCHEDBRAIN_ZOOKEEPER_READY {"port":N,"connect":"127.0.0.1:N"}} once it accepts
 * connections; logs go to stderr. Stops when stdin closes (or on SIGTERM).
 */
public final class ZooKeeperMain {
  private ZooKeeperMain() {}

  public static void main(String[] args) throws Exception {
    Cli a = Cli.parse(args);
    File dir = new File(a.require("--dir")).getAbsoluteFile();
    if (!dir.isDirectory() && !dir.mkdirs()) {
      throw new IOException("cannot create " + dir);
    }
    int port = a.getInt("--port", 0);
    int tickMs = a.getInt("--tick-ms", 500);
    PrintStream protocolOut = System.out;
    System.setOut(System.err);
    Logging.toStderr(a.get("--log-level", "WARN"));

    ZooKeeperServer zk = new ZooKeeperServer(dir, dir, tickMs);
    ServerCnxnFactory factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", port), 100);
    factory.startup(zk);
    Runnable stop = () -> {
      factory.shutdown();
      zk.shutdown(true);
    };
    Runtime.getRuntime().addShutdownHook(new Thread(stop, "zookeeper-stop"));
    int bound = factory.getLocalPort();
    protocolOut.println("SCHEDBRAIN_ZOOKEEPER_READY {\"port\":" + bound + ",\"connect\":\"127.0.0.1:" + bound + "\"}");
    protocolOut.flush();
    while (System.in.read() != -1) {
      // EOF on stdin: the parent wants us gone.
    }
    stop.run();
    Runtime.getRuntime().halt(0);
  }
}
