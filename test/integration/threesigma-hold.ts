/**
 * What the 3Sigma live tests share: a hold queue of their own under root (capacity 0, maximum
 * capacity 0: YARN keeps its applications ACCEPTED), jobs submitted into it, the RM's view of an
 * application, and the removal of the queue at the end.
 */
import { expect } from 'vitest';
import type { YarnBackend } from '../../src/yarn/backend.js';
import { submitJob, type JobSpec } from '../../src/yarn/workload.js';
import { eventually } from './helpers.js';

export const RUN_PATH = 'root.default';
export const DONE = new Set(['FINISHED', 'FAILED', 'KILLED']);

export interface RmApp {
  id: string;
  state: string;
  finalStatus: string;
  queue: string;
  startedTime: number;
  launchTime?: number;
  finishedTime: number;
  runningContainers?: number;
}

export async function rmApp(rmUrl: string, appId: string): Promise<RmApp> {
  const res = await fetch(`${rmUrl}/ws/v1/cluster/apps/${appId}`, { headers: { Accept: 'application/json' } });
  if (!res.ok) throw new Error(`GET app ${appId}: ${res.status}`);
  return ((await res.json()) as { app: RmApp }).app;
}

/** The application once it reached FINISHED, FAILED or KILLED; `diag` says what the brain did when it times out. */
export function waitDone(rmUrl: string, appId: string, timeoutMs: number, diag?: () => string): Promise<RmApp> {
  return eventually(
    `${appId} to finish`,
    async () => {
      const a = await rmApp(rmUrl, appId);
      return DONE.has(a.state) ? a : undefined;
    },
    timeoutMs,
    500,
    diag,
  );
}

/** A hold queue named `<prefix><tag>` under root, and the applications a test submitted to it. */
export class HoldQueue {
  readonly name: string;
  readonly path: string;
  readonly apps: string[] = [];

  constructor(prefix: string) {
    this.name = `${prefix}${Date.now() % 100_000}`;
    this.path = `root.${this.name}`;
  }

  /** YARN names an application's queue by its leaf name or its path. */
  holds(queue: string): boolean {
    return queue === this.name || queue === this.path;
  }

  async create(backend: YarnBackend): Promise<void> {
    // maximum-applications is absolute: scaled by a capacity of 0 it would refuse every submission.
    await backend.client.updateSchedulerConf({
      addQueues: [{ queue: this.path, params: { capacity: '0', 'maximum-capacity': '0', 'maximum-applications': '100' } }],
    });
  }

  async submit(confDir: string, job: JobSpec): Promise<string> {
    const j = await submitJob(confDir, { ...job, queue: this.name });
    this.apps.push(j.appId);
    return j.appId;
  }

  /** Kills what the test submitted, removes the queue, and checks root is left with `root.default` only. */
  async remove(backend: YarnBackend): Promise<void> {
    const numApps = async () => (await backend.snapshot()).rootQueue.children.find((q) => q.path === this.path)?.numApplications;
    for (const id of this.apps) await backend.client.killApp(id).catch(() => undefined);
    await eventually('the hold queue to hold no application', async () => (await numApps()) === 0, 60_000, 500).catch((e: unknown) =>
      console.warn((e as Error).message),
    );
    if ((await numApps()) !== undefined) {
      await backend.client.updateSchedulerConf({ updateQueues: [{ queue: this.path, params: { state: 'STOPPED' } }] });
      await backend.client.updateSchedulerConf({ removeQueues: [this.path] });
    }
    expect((await backend.snapshot()).rootQueue.children.map((q) => q.path)).toEqual([RUN_PATH]);
  }
}
