// Values the integration global setup (global-setup.ts) hands to every integration test file.
import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** ResourceManager web base URL (REST under /ws/v1/cluster). */
    rmUrl: string;
    /** Client yarn-site.xml / core-site.xml for submitJob(). */
    confDir: string;
    /** The cluster's NodeManagers (nodeId = host:port as the RM names them). */
    miniNodes: { nodeId: string; httpAddress: string }[];
    /** The schedbrain shim's URL ('' when the cluster runs without it). */
    shimUrl: string;
    /** The shim's shared secret ('' when none). */
    shimSecret: string;
    /** The cluster as it was when the global setup handed it over (see cluster-state.ts). */
    clusterBaseline: import('./cluster-state.js').ClusterState;
  }
}
