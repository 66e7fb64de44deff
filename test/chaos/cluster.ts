/** What the chaos scenarios read from and do to the shared mini YARN directly (not through a brain). */

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
