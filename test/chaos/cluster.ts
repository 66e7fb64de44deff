/** What the chaos scenarios read from and do to the shared mini YARN directly (not through a brain). */
import { readFileSync } from 'node:fs';

export type Capacity = { memoryMB: number; vcores: number };

/** Each node's advertised resources, as the RM reports them now. */
export async function nodeCapacities(rmUrl: string): Promise<Record<string, Capacity>> {
  const res = await fetch(`${rmUrl}/ws/v1/cluster/nodes`, { headers: { Accept: 'application/json' } });
  const body = (await res.json()) as { nodes: { node: { id: string; totalResource: { memory: number; vCores: number } }[] } };
  return Object.fromEntries(body.nodes.node.map((n) => [n.id, { memoryMB: n.totalResource.memory, vcores: n.totalResource.vCores }]));
}

/** Kills an application a scenario submitted (clean-up; errors ignored). */
export async function killApp(rmUrl: string, appId: string): Promise<void> {
  await fetch(`${rmUrl}/ws/v1/cluster/apps/${appId}/state?user.name=schedbrain`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ state: 'KILLED' }),
  }).catch(() => undefined);
}

/** An application's final state and status once it has ended; undefined while it runs. */
export async function appEnded(rmUrl: string, appId: string): Promise<{ state: string; finalStatus: string } | undefined> {
  const r = (await (await fetch(`${rmUrl}/ws/v1/cluster/apps/${appId}`, { headers: { Accept: 'application/json' } })).json()) as {
    app: { state: string; finalStatus: string };
  };
  return ['FINISHED', 'FAILED', 'KILLED'].includes(r.app.state) ? r.app : undefined;
}

/** A process's state letter (`T`: stopped) and start time in clock ticks after boot, from /proc/<pid>/stat; undefined once it is gone. */
export function procStat(pid: number): { state: string; startTicks: number } | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces; fields 3.. follow the last ')'.
  const f = line.slice(line.lastIndexOf(')') + 2).split(' ');
  return { state: f[0]!, startTicks: Number(f[19]) };
}
