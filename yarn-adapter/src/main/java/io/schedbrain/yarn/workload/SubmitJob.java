package io.schedbrain.yarn.workload;

import io.schedbrain.yarn.Cli;
import io.schedbrain.yarn.Json;
import io.schedbrain.yarn.Logging;
import java.io.File;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.ApplicationConstants;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationReport;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.client.api.YarnClient;
import org.apache.hadoop.yarn.client.api.YarnClientApplication;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * Submits one test job: a {@link JobMaster} ApplicationMaster that runs N task containers.
 *
 * <pre>
 * SubmitJob --conf-dir DIR --name NAME [--queue default] [--priority 0] [--tag k=v ...]
 *           --containers N [--memory-mb 256] [--vcores 1] --command sleep:SECONDS|cpu:SECONDS
 *           [--task-attempts 1] [--am-memory-mb 256] [--reservation-id reservation_...] [--wait]
 * </pre>
 *
 * stdout: {@code {"appId":"application_..."}} once submitted, and with {@code --wait} a second
 * line {@code {"appId":..,"finalState":"FINISHED|FAILED|KILLED","finalStatus":..}}.
 * Logs go to stderr.
 *
 * <p>Everything runs on one machine, so the AM is started with this JVM's java binary and
 * the adapter's lib directory from the local filesystem; only the adapter jar itself is
 * localized (as a YARN LocalResource), which proves the localization path works.
 */
public final class SubmitJob {
  private SubmitJob() {}

  public static void main(String[] args) throws Exception {
    Logging.toStderr("WARN");
    Cli a = Cli.parse(args);
    File confDir = new File(a.require("--conf-dir")).getAbsoluteFile();
    YarnConfiguration conf = new YarnConfiguration();
    conf.addResource(new Path(new File(confDir, "core-site.xml").getAbsolutePath()));
    conf.addResource(new Path(new File(confDir, "yarn-site.xml").getAbsolutePath()));

    String command = a.require("--command");
    TaskCommand.parse(command); // fail fast on a bad spec
    int containers = a.getInt("--containers", 1);
    int amMemoryMb = a.getInt("--am-memory-mb", 256);

    YarnClient client = YarnClient.createYarnClient();
    client.init(conf);
    client.start();
    try {
      YarnClientApplication app = client.createApplication();
      ApplicationSubmissionContext ctx = app.getApplicationSubmissionContext();
      ApplicationId appId = ctx.getApplicationId();
      ctx.setApplicationName(a.require("--name"));
      ctx.setApplicationType("SCHEDBRAIN");
      ctx.setQueue(a.get("--queue", "default"));
      ctx.setPriority(Priority.newInstance(a.getInt("--priority", 0)));
      if (a.has("--reservation-id")) {
        // Runs inside a reservation of YARN's ReservationSystem; the queue is its reservable one.
        ctx.setReservationID(org.apache.hadoop.yarn.api.records.ReservationId.parseReservationId(a.require("--reservation-id")));
      }
      Set<String> tags = new LinkedHashSet<>(a.all("--tag"));
      if (!tags.isEmpty()) {
        ctx.setApplicationTags(tags);
      }
      ctx.setResource(Resource.newInstance(amMemoryMb, 1));
      // A failed AM is a failed test job; do not retry it behind the brain's back.
      ctx.setMaxAppAttempts(1);

      File adapterJar = AdapterPaths.adapterJar();
      Map<String, LocalResource> resources = new HashMap<>();
      resources.put("schedbrain-adapter.jar", AdapterPaths.fileResource(adapterJar));

      Map<String, String> env = new HashMap<>();
      // ./* = the localized adapter jar; then the client config (RM scheduler address) and
      // Hadoop's jars straight from the local disk.
      env.put("CLASSPATH", String.join(":",
          ApplicationConstants.Environment.PWD.$() + "/*",
          confDir.getAbsolutePath(),
          AdapterPaths.libDir().getAbsolutePath() + "/*"));

      List<String> cmd = new ArrayList<>();
      cmd.add(AdapterPaths.javaBin());
      cmd.addAll(AdapterPaths.JAVA_OPENS);
      cmd.add("-Xmx" + Math.max(64, amMemoryMb * 3 / 4) + "m");
      cmd.add(JobMaster.class.getName());
      cmd.add("--containers " + containers);
      cmd.add("--memory-mb " + a.getInt("--memory-mb", 256));
      cmd.add("--vcores " + a.getInt("--vcores", 1));
      cmd.add("--command " + command);
      cmd.add("--task-attempts " + a.getInt("--task-attempts", 1));
      cmd.add("1>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/AppMaster.stdout");
      cmd.add("2>" + ApplicationConstants.LOG_DIR_EXPANSION_VAR + "/AppMaster.stderr");

      ContainerLaunchContext amContainer =
          ContainerLaunchContext.newInstance(resources, env, List.of(String.join(" ", cmd)), null, null, null);
      ctx.setAMContainerSpec(amContainer);

      client.submitApplication(ctx);
      System.out.println("{\"appId\":" + Json.str(appId.toString()) + "}");
      System.out.flush();

      if (a.has("--wait")) {
        EnumSet<YarnApplicationState> terminal =
            EnumSet.of(YarnApplicationState.FINISHED, YarnApplicationState.FAILED, YarnApplicationState.KILLED);
        ApplicationReport report = client.getApplicationReport(appId);
        while (!terminal.contains(report.getYarnApplicationState())) {
          Thread.sleep(500);
          report = client.getApplicationReport(appId);
        }
        System.out.println("{\"appId\":" + Json.str(appId.toString())
            + ",\"finalState\":" + Json.str(report.getYarnApplicationState().toString())
            + ",\"finalStatus\":" + Json.str(report.getFinalApplicationStatus().toString())
            + ",\"diagnostics\":" + Json.str(report.getDiagnostics()) + "}");
        System.out.flush();
      }
    } finally {
      client.stop();
    }
  }
}
