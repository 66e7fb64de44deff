package io.schedbrain.yarn.workload;

import io.schedbrain.yarn.Cli;
import io.schedbrain.yarn.Logging;
import java.io.File;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.records.AMCommand;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerLaunchContext;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.LocalResource;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.client.api.AMRMClient;
import org.apache.hadoop.yarn.client.api.AMRMClient.ContainerRequest;
import org.apache.hadoop.yarn.client.api.NMClient;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * ApplicationMaster of a test job: asks for N identical containers, runs {@code task.sh} in each,
 * and finishes when all N tasks have exited (SUCCEEDED if every one exited 0).
 *
 * <p>A task whose container was taken away by the cluster (preempted, node lost, released by the
 * scheduler) is asked for again, so a job always completes its N tasks unless a task itself fails
 * or the app is killed. {@code --task-attempts K} (default 1) also runs a task that failed again,
 * up to K attempts in all, as MapReduce's {@code mapreduce.map.maxattempts} does: a container
 * killed by a signal (the brain's kill preemption) then costs the task's work, not the job.
 * Synchronous AMRMClient/NMClient in one loop: simple and enough for tests.
 */
public final class JobMaster {
  private JobMaster() {}

  /** Exit codes meaning "the cluster took the container away", not "the task failed". */
  private static final Set<Integer> RETRYABLE = Set.of(
      ContainerExitStatus.PREEMPTED,
      ContainerExitStatus.ABORTED,
      ContainerExitStatus.DISKS_FAILED,
      ContainerExitStatus.KILLED_BY_CONTAINER_SCHEDULER);

  public static void main(String[] args) throws Exception {
    Logging.toStderr("INFO");
    Cli a = Cli.parse(args);
    int total = a.getInt("--containers", 1);
    int maxAttempts = Math.max(1, a.getInt("--task-attempts", 1));
    Resource capability = Resource.newInstance(a.getInt("--memory-mb", 256), a.getInt("--vcores", 1));
    TaskCommand task = TaskCommand.parse(a.require("--command"));

    // yarn-site.xml (RM scheduler address) comes from the client conf dir on our classpath.
    YarnConfiguration conf = new YarnConfiguration();

    // The task script ships inside our jar; put it in our container dir and localize it from there.
    File script = new File("task.sh").getAbsoluteFile();
    try (InputStream in = JobMaster.class.getResourceAsStream("task.sh")) {
      Files.copy(in, script.toPath(), StandardCopyOption.REPLACE_EXISTING);
    }
    Map<String, LocalResource> taskResources = Map.of("task.sh", AdapterPaths.fileResource(script));

    AMRMClient<ContainerRequest> rm = AMRMClient.createAMRMClient();
    rm.init(conf);
    rm.start();
    NMClient nm = NMClient.createNMClient();
    nm.init(conf);
    nm.start();
    rm.registerApplicationMaster(InetAddress.getLocalHost().getHostName(), 0, "");

    ContainerRequest request = new ContainerRequest(capability, null, null, Priority.newInstance(0));
    for (int i = 0; i < total; i++) {
      rm.addContainerRequest(request);
    }
    // Which task each running container runs, and the tasks waiting for a container (task numbers).
    Map<ContainerId, Integer> running = new HashMap<>();
    Deque<Integer> waiting = new ArrayDeque<>();
    for (int i = 0; i < total; i++) {
      waiting.add(i);
    }
    int[] failedAttempts = new int[total];
    int outstanding = total;
    int succeeded = 0;
    int failed = 0;
    boolean shutdownRequested = false;

    while (succeeded + failed < total) {
      AllocateResponse resp = rm.allocate((float) (succeeded + failed) / total);
      if (resp.getAMCommand() == AMCommand.AM_SHUTDOWN) {
        shutdownRequested = true;
        break;
      }
      for (Container c : resp.getAllocatedContainers()) {
        if (outstanding == 0) {
          rm.releaseAssignedContainer(c.getId()); // more than we asked for (request bookkeeping race)
          continue;
        }
        outstanding--;
        rm.removeContainerRequest(request);
        int taskNo = waiting.poll();
        ContainerLaunchContext ctx = ContainerLaunchContext.newInstance(
            taskResources, Map.of(), List.of(task.containerCommand()), null, null, null);
        nm.startContainer(c, ctx);
        running.put(c.getId(), taskNo);
        System.err.println("started task " + taskNo + " in " + c.getId() + " on " + c.getNodeId());
      }
      for (ContainerStatus s : resp.getCompletedContainersStatuses()) {
        Integer taskNo = running.remove(s.getContainerId());
        if (taskNo == null) {
          continue; // one we released
        }
        int exit = s.getExitStatus();
        System.err.println("completed task " + taskNo + " in " + s.getContainerId() + " exit=" + exit + " " + s.getDiagnostics());
        boolean again = false;
        if (exit == 0) {
          succeeded++;
        } else if (RETRYABLE.contains(exit)) {
          again = true;
        } else if (++failedAttempts[taskNo] < maxAttempts) {
          System.err.println("task " + taskNo + " failed attempt " + failedAttempts[taskNo] + " of " + maxAttempts + ": run again");
          again = true;
        } else {
          failed++;
        }
        if (again) {
          waiting.add(taskNo);
          outstanding++;
          rm.addContainerRequest(request);
        }
      }
      Thread.sleep(300);
    }

    if (!shutdownRequested) {
      FinalApplicationStatus status = failed == 0 ? FinalApplicationStatus.SUCCEEDED : FinalApplicationStatus.FAILED;
      rm.unregisterApplicationMaster(status, succeeded + " of " + total + " tasks succeeded", null);
    }
    nm.stop();
    rm.stop();
  }
}
