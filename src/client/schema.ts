/**
 * Types of the admin API, generated from openapi/openapi.json by openapi-typescript: do not edit.
 * Regenerate with `npm run openapi`.
 */

export interface paths {
  '/livez': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: the process answers (200 even when the RM is down; use /healthz for readiness) */
    get: operations['getLivez'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness and readiness: is the RM reachable, did the last cycle succeed, is the engine advisory? */
    get: operations['getHealthz'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Prometheus metrics (text exposition format 0.0.4) */
    get: operations['getMetrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/snapshot': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The cluster as the engine last read it (the queues and the parts the running policy reads: nodes, apps, containers) and its age; read from the RM only when no cycle's read is fresh enough (three periods), or with parts=all when it lacks a part */
    get: operations['getV1Snapshot'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/decisions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The decision journal (newest first by default) */
    get: operations['getV1Decisions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/policy': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The running policy, its parameters and the dry-run flag */
    get: operations['getV1Policy'];
    /** Replace the running policy (validated and persisted before it takes effect; nothing half-applied) */
    put: operations['putV1Policy'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/policy/state': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The running policy's state (in memory) and when it was last persisted */
    get: operations['getV1PolicyState'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/state': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The operator's state dump: configuration (secrets redacted), engine status and capabilities, leadership, the running policy with a summary of its ledgers, and what the backend keeps (recorded physical capacities, over-committed nodes, published ranking) */
    get: operations['getV1State'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dry-run': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Run one cycle on a fresh snapshot, optionally with another policy; returns decisions with reasons and writes nothing */
    post: operations['postV1DryRun'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/bopf/queues': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Admitted BoPF queues with their classes */
    get: operations['getV1BopfQueues'];
    put?: never;
    /** Register a BoPF queue (LQ or TQ); answers its admission class with the conditions and their numbers */
    post: operations['postV1BopfQueues'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/bopf/queues/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One admitted BoPF queue */
    get: operations['getV1BopfQueuesName'];
    /** Re-register a queue with new parameters (judged as if absent; unchanged when rejected) */
    put: operations['putV1BopfQueuesName'];
    post?: never;
    /** Unregister a BoPF queue */
    delete: operations['deleteV1BopfQueuesName'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/darss/requests': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Admitted DARSS requests with progress and slack */
    get: operations['getV1DarssRequests'];
    put?: never;
    /** Submit a workflow (RSL; application/json or application/yaml); admitted against the ledger (201 with its latest starts) or refused (409 with the failing condition and its numbers) */
    post: operations['postV1DarssRequests'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/darss/requests/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One admitted DARSS request with its workflow */
    get: operations['getV1DarssRequestsId'];
    put?: never;
    post?: never;
    /** Withdraw a request and release its bookings (409 once one of its tasks has started) */
    delete: operations['deleteV1DarssRequestsId'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/darss/quota': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Best-effort quota (m of n units per period) and production cap */
    get: operations['getV1DarssQuota'];
    /** Change the best-effort quota and production cap (role admin); names admitted requests that no longer fit */
    put: operations['putV1DarssQuota'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/darss/ledger': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Units reserved for production over [from, to) as a step function (at most 30 days, 10,000 steps) */
    get: operations['getV1DarssLedger'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/rayon/reservations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Workflows reserved through the brain, with what the RM placed */
    get: operations['getV1RayonReservations'];
    put?: never;
    /** Reserve a workflow (RSL) in the RM's own ReservationSystem: 201 with the reservation, or 409 with the RM's reason */
    post: operations['postV1RayonReservations'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/rayon/reservations/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One reserved workflow */
    get: operations['getV1RayonReservationsId'];
    put?: never;
    post?: never;
    /** Give a reservation back (409 once an application of it has started) */
    delete: operations['deleteV1RayonReservationsId'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/threesigma/slos': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The SLO classes */
    get: operations['getV1ThreesigmaSlos'];
    put?: never;
    /** Add an SLO class: applications matching it (tag, name, user, queue) become SLO jobs with a deadline a fixed time after submission or a slack over their predicted runtime */
    post: operations['postV1ThreesigmaSlos'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/threesigma/slos/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One SLO class */
    get: operations['getV1ThreesigmaSlosId'];
    put?: never;
    post?: never;
    /** Remove an SLO class (applications already seen keep their deadline) */
    delete: operations['deleteV1ThreesigmaSlosId'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/threesigma/history': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Import ended applications as history records (at most 2000); those new to the store are learned by the running 3Sigma predictor unless learn is false */
    post: operations['postV1ThreesigmaHistory'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/threesigma/history/pull': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Read the applications that ended since the last pull from a source (rm) into the history; an empty 3Sigma predictor learns from it */
    post: operations['postV1ThreesigmaHistoryPull'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/threesigma/predict': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The predictor's view of an application (app=) or of a job described by features (features=): chosen expert, histogram, NMAE table */
    get: operations['getV1ThreesigmaPredict'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/threesigma/plan': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The last cycle's plan: MILP size, objective, gap, time to plan, and what it decided */
    get: operations['getV1ThreesigmaPlan'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    App: {
      id: string;
      name: string;
      user: string;
      queue: string;
      state: string;
      priority: number;
      submittedAtMs: number;
      startedAtMs?: number;
      pendingContainers: number;
      pendingContainerResource?: components['schemas']['Resources'];
      runningContainers: number;
      allocated: components['schemas']['Resources'];
      tags: {
        [key: string]: string;
      };
    };
    BopfAdmission: {
      /** @enum {string} */
      class: 'hard' | 'soft' | 'elastic' | 'rejected';
      reason: string;
      queuesIfAdmitted: number;
      checks: {
        /** @enum {string} */
        condition: 'safety' | 'fairness' | 'resource';
        passed: boolean;
        detail: string;
      }[];
      demand?: {
        vcoreSeconds: number;
        memoryMBSeconds: number;
      };
      demandHow?: string;
    };
    BopfConflict: {
      /** @enum {string} */
      error: 'conflict';
      reason: string;
      /** @enum {string} */
      condition?: 'safety' | 'fairness' | 'resource';
      detail?: string;
      admission?: components['schemas']['BopfAdmission'];
    };
    BopfQueue: {
      name: string;
      /** @enum {string} */
      kind: 'LQ' | 'TQ';
      /** @enum {string} */
      class: 'hard' | 'soft' | 'elastic';
      reason: string;
      spec: {
        name: string;
        /** @enum {string} */
        kind: 'LQ' | 'TQ';
        periodMs?: number;
        burstDeadlineMs?: number;
        demand?: {
          vcoreSeconds: number;
          memoryMBSeconds: number;
        };
        distribution?: {
          vcoreSeconds:
            | {
                /** @enum {string} */
                kind: 'normal';
                mean: number;
                std: number;
              }
            | {
                /** @enum {string} */
                kind: 'uniform';
                min: number;
                max: number;
              }
            | {
                /** @enum {string} */
                kind: 'empirical';
                samples: number[];
              };
          memoryMBSeconds:
            | {
                /** @enum {string} */
                kind: 'normal';
                mean: number;
                std: number;
              }
            | {
                /** @enum {string} */
                kind: 'uniform';
                min: number;
                max: number;
              }
            | {
                /** @enum {string} */
                kind: 'empirical';
                samples: number[];
              };
          /**
           * @default independent
           * @enum {string}
           */
          correlation: 'independent' | 'perfect';
        };
        alpha?: number;
        firstArrivalMs?: number;
      };
      demand: {
        vcoreSeconds: number;
        memoryMBSeconds: number;
      };
    };
    BopfQueueSpecInput: {
      name: string;
      /** @enum {string} */
      kind: 'LQ' | 'TQ';
      periodMs?: number;
      burstDeadlineMs?: number;
      demand?: {
        vcoreSeconds: number;
        memoryMBSeconds: number;
      };
      distribution?: {
        vcoreSeconds:
          | {
              /** @enum {string} */
              kind: 'normal';
              mean: number;
              std: number;
            }
          | {
              /** @enum {string} */
              kind: 'uniform';
              min: number;
              max: number;
            }
          | {
              /** @enum {string} */
              kind: 'empirical';
              samples: number[];
            };
        memoryMBSeconds:
          | {
              /** @enum {string} */
              kind: 'normal';
              mean: number;
              std: number;
            }
          | {
              /** @enum {string} */
              kind: 'uniform';
              min: number;
              max: number;
            }
          | {
              /** @enum {string} */
              kind: 'empirical';
              samples: number[];
            };
        /**
         * @default independent
         * @enum {string}
         */
        correlation?: 'independent' | 'perfect';
      };
      alpha?: number;
      firstArrivalMs?: number;
    };
    Container: {
      id: string;
      appId: string;
      nodeId: string;
      resource: components['schemas']['Resources'];
      /** @enum {string} */
      state: 'RUNNING' | 'SUSPENDED';
      startedAtMs: number;
      attainedServiceMs?: number;
      runningSinceMs?: number;
    };
    DarssConflict: {
      /** @enum {string} */
      error: 'conflict';
      reason: string;
      condition?: string;
      numbers?: components['schemas']['DarssNumbers'];
      decision?: components['schemas']['DarssDecision'];
    };
    DarssDecision: {
      accepted: boolean;
      rule: string;
      /** @enum {string} */
      test: 'critical-path' | 'count-only';
      nowMs: number;
      reason: string;
      numbers: components['schemas']['DarssNumbers'];
    };
    DarssLedger: {
      fromMs: number;
      toMs: number;
      capacityUnits: number;
      productionLimitUnits: number;
      group?: string;
      steps: {
        fromMs: number;
        toMs: number;
        units: number;
      }[];
      truncated: boolean;
    };
    DarssNumbers: {
      neededUnitMs: number;
      freeUnitMs: number;
      windowFromMs: number;
      windowToMs: number;
      criticalPathMs: number;
      timeLeftMs?: number;
      bookedFromMs?: number;
    };
    DarssQuota: {
      m: number;
      n: number;
      periodMs: number;
      productionCapPct: number;
      capacityUnits: number;
      bestEffortUnits: number;
      productionLimitUnits: number;
      noLongerFit?: string[];
    };
    DarssQuotaUpdate: {
      m: number;
      n: number;
      periodMs: number;
      productionCapPct?: number;
    };
    DarssRequest: {
      id: string;
      group: string;
      deadlineMs: number | null;
      admittedAtMs: number;
      jobs: {
        job: string;
        latestStartMs: number;
        bookedStartMs: number;
        done: boolean;
      }[];
      progress: {
        jobs: number;
        jobsDone: number;
        fraction: number;
      };
      /** @description least latest start of a job not done, less now; null when nothing is left */
      slackMs: number | null;
      noLongerFit: {
        atMs: number;
        capacityUnits: number;
        limitUnits: number;
        bookedUnits: number;
      } | null;
      decision: components['schemas']['DarssDecision'];
    };
    DarssRequestDetail: {
      id: string;
      group: string;
      deadlineMs: number | null;
      admittedAtMs: number;
      jobs: {
        job: string;
        latestStartMs: number;
        bookedStartMs: number;
        done: boolean;
      }[];
      progress: {
        jobs: number;
        jobsDone: number;
        fraction: number;
      };
      /** @description least latest start of a job not done, less now; null when nothing is left */
      slackMs: number | null;
      noLongerFit: {
        atMs: number;
        capacityUnits: number;
        limitUnits: number;
        bookedUnits: number;
      } | null;
      decision: components['schemas']['DarssDecision'];
      workflow: {
        id?: string;
        /** @default default */
        group: string;
        submittedAtMs?: number;
        deadlineMs?: number;
        jobs: {
          name: string;
          tasks: number;
          leaseMs: number;
          /** @default 1 */
          unitsPerTask: number;
          /** @default [] */
          prerequisites: string[];
          deadlineMs?: number;
          taskPrerequisites?: {
            [key: string]: number[];
          };
        }[];
      };
    };
    DarssWorkflowInput: {
      id?: string;
      /** @default default */
      group?: string;
      submittedAtMs?: number;
      deadlineMs?: number;
      jobs: {
        name: string;
        tasks: number;
        leaseMs: number;
        /** @default 1 */
        unitsPerTask?: number;
        /** @default [] */
        prerequisites?: string[];
        deadlineMs?: number;
        taskPrerequisites?: {
          [key: string]: number[];
        };
      }[];
    };
    Decisions: {
      entries: components['schemas']['JournalEntry'][];
    };
    DryRunRequest: {
      /** @description Policy to try (default: the running one) */
      name?: string;
      /** @description Parameters to try (default: the running ones when name is omitted) */
      params?: unknown;
    };
    DryRunResult: {
      cycleId: string;
      policy: string;
      params?: unknown;
      snapshotAtMs: number;
      /** @enum {string} */
      outcome: 'ok' | 'policy_error';
      advisory: boolean;
      decisions: components['schemas']['PlannedDecision'][];
      notes: string[];
      error?: string;
    };
    Error: {
      /** @enum {string} */
      error:
        | 'bad_request'
        | 'unauthorized'
        | 'forbidden'
        | 'not_found'
        | 'rm_unavailable'
        | 'conflict'
        | 'payload_too_large'
        | 'unsupported_media_type'
        | 'internal';
      field?: string;
      reason: string;
    };
    Health: {
      /**
       * @description down: the RM is unreachable; stale: no good snapshot for staleAfterPeriods periods; degraded: the last cycle failed
       * @enum {string}
       */
      status: 'ok' | 'degraded' | 'down' | 'starting' | 'stale';
      staleReason?: string;
      /** @description What the backend can do, as of the last cycle (null before it), and whether this brain may write (leadership, under a leader election) */
      capabilities: {
        queueWrites: boolean;
        containerSuspend: boolean;
        nodeRanking: boolean;
        notes: string[];
        leadership?: components['schemas']['Leadership'];
      } | null;
      /** @description Who leads, under a leader election (null: none, this brain always writes) */
      leadership: components['schemas']['Leadership'] | null;
      rmReachable: boolean | null;
      rmError?: string;
      lastCycle: {
        cycleId: string;
        /** @enum {string} */
        outcome: 'ok' | 'rm_unavailable' | 'policy_error' | 'error';
        atMs: number;
        error?: string;
      } | null;
      lastCycleOk: boolean | null;
      /** @description true when the backend cannot write queues: decisions are journaled only */
      advisory: boolean | null;
      advisoryReason?: string;
      dryRun: boolean;
      policy: string;
      running: boolean;
      consecutiveRmFailures: number;
      lastSnapshotAtMs: number | null;
      nextCycleAtMs: number | null;
    };
    HistoryRecord: {
      /** @enum {number} */
      v: 1;
      appId: string;
      user: string;
      queue: string;
      name: string;
      nameKey: string;
      applicationType?: string;
      tags: {
        [key: string]: string;
      };
      priority: number;
      submittedAtMs: number;
      submitHourUtc: number;
      launchedAtMs?: number;
      finishedAtMs: number;
      runtimeMs?: number;
      waitMs?: number;
      /** @enum {string} */
      state: 'FINISHED' | 'FAILED' | 'KILLED';
      finalStatus?: string;
      /** @enum {string} */
      outcome: 'succeeded' | 'failed' | 'killed';
      requested?: {
        containers: number;
        memoryMB: number;
        vcores: number;
      };
      usage?: {
        memoryMBSeconds: number;
        vcoreSeconds: number;
      };
      source: string;
      recordedAtMs: number;
    };
    JournalEntry: {
      id: string;
      timeMs: number;
      cycleId: string;
      policy: string;
      rule: string;
      action?:
        | {
            /** @enum {string} */
            kind: 'updateQueues';
            /** @default [] */
            add: {
              path: string;
              capacityPct: number;
              maxCapacityPct: number;
            }[];
            /** @default [] */
            update: {
              path: string;
              capacityPct?: number;
              maxCapacityPct?: number;
              capacityResource?: {
                memoryMB: number;
                vcores: number;
              };
            }[];
          }
        | {
            /** @enum {string} */
            kind: 'setAppPriority';
            appId: string;
            priority: number;
          }
        | {
            /** @enum {string} */
            kind: 'moveApp';
            appId: string;
            queue: string;
          }
        | {
            /** @enum {string} */
            kind: 'killApp';
            appId: string;
          }
        | {
            /** @enum {string} */
            kind: 'setNodeResource';
            nodeId: string;
            resource: {
              memoryMB: number;
              vcores: number;
            };
          }
        | {
            /** @enum {string} */
            kind: 'suspendContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'resumeContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'killContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'rankNodes';
            scores: {
              [key: string]: number;
            };
            leastLoadedFirst: boolean;
            /** @default false */
            partial: boolean;
          };
      requestedAction?:
        | {
            /** @enum {string} */
            kind: 'updateQueues';
            /** @default [] */
            add: {
              path: string;
              capacityPct: number;
              maxCapacityPct: number;
            }[];
            /** @default [] */
            update: {
              path: string;
              capacityPct?: number;
              maxCapacityPct?: number;
              capacityResource?: {
                memoryMB: number;
                vcores: number;
              };
            }[];
          }
        | {
            /** @enum {string} */
            kind: 'setAppPriority';
            appId: string;
            priority: number;
          }
        | {
            /** @enum {string} */
            kind: 'moveApp';
            appId: string;
            queue: string;
          }
        | {
            /** @enum {string} */
            kind: 'killApp';
            appId: string;
          }
        | {
            /** @enum {string} */
            kind: 'setNodeResource';
            nodeId: string;
            resource: {
              memoryMB: number;
              vcores: number;
            };
          }
        | {
            /** @enum {string} */
            kind: 'suspendContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'resumeContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'killContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'rankNodes';
            scores: {
              [key: string]: number;
            };
            leastLoadedFirst: boolean;
            /** @default false */
            partial: boolean;
          };
      reason: string;
      /** @enum {string} */
      result: 'applied' | 'noop' | 'dryRun' | 'skipped' | 'failed';
      /** @enum {string} */
      skipReason?: 'limit' | 'advisory' | 'unsupported' | 'duplicate' | 'superseded' | 'invariant' | 'drift';
      detail?: string;
      error?: string;
      count?: number;
      repeats?: number;
      lastCycleId?: string;
      lastTimeMs?: number;
      rankingBase?: {
        base: string;
        unchanged: number;
      };
    };
    Leadership: {
      /**
       * @description standby: another brain leads; this one plans and journals, writes nothing
       * @enum {string}
       */
      role: 'leader' | 'standby';
      /** @description The leader's epoch (0: no leader known); it only grows from one leader to the next */
      epoch: number;
      /** @description The leader */
      holder: string | null;
    };
    Liveness: {
      /** @enum {string} */
      status: 'alive';
      running: boolean;
    };
    Node: {
      id: string;
      state: string;
      rack: string;
      capacity: components['schemas']['Resources'];
      physicalCapacity: components['schemas']['Resources'];
      used: components['schemas']['Resources'];
      containerIds: string[];
    };
    PlannedDecision: {
      policy: string;
      rule: string;
      reason: string;
      action?:
        | {
            /** @enum {string} */
            kind: 'updateQueues';
            /** @default [] */
            add: {
              path: string;
              capacityPct: number;
              maxCapacityPct: number;
            }[];
            /** @default [] */
            update: {
              path: string;
              capacityPct?: number;
              maxCapacityPct?: number;
              capacityResource?: {
                memoryMB: number;
                vcores: number;
              };
            }[];
          }
        | {
            /** @enum {string} */
            kind: 'setAppPriority';
            appId: string;
            priority: number;
          }
        | {
            /** @enum {string} */
            kind: 'moveApp';
            appId: string;
            queue: string;
          }
        | {
            /** @enum {string} */
            kind: 'killApp';
            appId: string;
          }
        | {
            /** @enum {string} */
            kind: 'setNodeResource';
            nodeId: string;
            resource: {
              memoryMB: number;
              vcores: number;
            };
          }
        | {
            /** @enum {string} */
            kind: 'suspendContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'resumeContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'killContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'rankNodes';
            scores: {
              [key: string]: number;
            };
            leastLoadedFirst: boolean;
            /** @default false */
            partial: boolean;
          };
      requestedAction?:
        | {
            /** @enum {string} */
            kind: 'updateQueues';
            /** @default [] */
            add: {
              path: string;
              capacityPct: number;
              maxCapacityPct: number;
            }[];
            /** @default [] */
            update: {
              path: string;
              capacityPct?: number;
              maxCapacityPct?: number;
              capacityResource?: {
                memoryMB: number;
                vcores: number;
              };
            }[];
          }
        | {
            /** @enum {string} */
            kind: 'setAppPriority';
            appId: string;
            priority: number;
          }
        | {
            /** @enum {string} */
            kind: 'moveApp';
            appId: string;
            queue: string;
          }
        | {
            /** @enum {string} */
            kind: 'killApp';
            appId: string;
          }
        | {
            /** @enum {string} */
            kind: 'setNodeResource';
            nodeId: string;
            resource: {
              memoryMB: number;
              vcores: number;
            };
          }
        | {
            /** @enum {string} */
            kind: 'suspendContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'resumeContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'killContainer';
            containerId: string;
            nodeId: string;
          }
        | {
            /** @enum {string} */
            kind: 'rankNodes';
            scores: {
              [key: string]: number;
            };
            leastLoadedFirst: boolean;
            /** @default false */
            partial: boolean;
          };
      /** @enum {string} */
      result: 'applied' | 'noop' | 'dryRun' | 'skipped' | 'failed';
      /** @enum {string} */
      skipReason?: 'limit' | 'advisory' | 'unsupported' | 'duplicate' | 'superseded' | 'invariant' | 'drift';
      detail?: string;
      error?: string;
    };
    PolicyConfig: {
      name: string;
      description: string;
      params?: unknown;
      dryRun: boolean;
      updatedAtMs: number;
      registered: {
        name: string;
        description: string;
      }[];
    };
    PolicyState: {
      policy: string;
      state?: unknown;
      savedAtMs: number | null;
      savedByCycle: string | null;
    };
    PutPolicyRequest: {
      /** @description Registered policy name */
      name: string;
      /** @description Policy parameters, validated by the policy's schema */
      params?: unknown;
      /** @description Discard every statement (decide and journal, never write); unchanged when omitted */
      dryRun?: boolean;
    };
    Queue: {
      path: string;
      name: string;
      state: string;
      capacityPct: number;
      maxCapacityPct: number;
      absoluteCapacityPct: number;
      absoluteMaxCapacityPct: number;
      usedCapacityPct: number;
      used: components['schemas']['Resources'];
      numApplications: number;
      children: components['schemas']['Queue'][];
    };
    RayonConflict: {
      /** @enum {string} */
      error: 'conflict';
      reason: string;
      condition?: string;
    };
    RayonReservation: {
      id: string;
      reservationId: string;
      /** @description submit the jobs here, with the reservation id and the request tag */
      queue: string;
      reservedAtMs: number;
      deadlineMs: number;
      /** @description what the RM's agent placed; empty once the reservation is over */
      allocations: {
        fromMs: number;
        toMs: number;
        memoryMB: number;
        vcores: number;
      }[];
    };
    RayonWorkflowInput: {
      id?: string;
      /** @default default */
      group?: string;
      submittedAtMs?: number;
      deadlineMs?: number;
      jobs: {
        name: string;
        tasks: number;
        leaseMs: number;
        /** @default 1 */
        unitsPerTask?: number;
        /** @default [] */
        prerequisites?: string[];
        deadlineMs?: number;
        taskPrerequisites?: {
          [key: string]: number[];
        };
      }[];
    };
    Resources: {
      memoryMB: number;
      vcores: number;
    };
    ServiceState: {
      atMs: number;
      /** @description configuration with secrets redacted, shim lease holder */
      service: {
        [key: string]: unknown;
      };
      /** @description as /healthz reports it, with leadership */
      engine: {
        [key: string]: unknown;
      };
      /** @description name, parameters, dry-run, size of its state and a summary of its ledgers */
      policy: {
        [key: string]: unknown;
      };
      /** @description recorded physical capacities, over-committed nodes, published ranking */
      backend: {
        [key: string]: unknown;
      };
    };
    Snapshot: {
      nowMs: number;
      totalCapacity: components['schemas']['Resources'];
      nodes: components['schemas']['Node'][];
      apps: components['schemas']['App'][];
      containers: components['schemas']['Container'][];
      rootQueue: components['schemas']['Queue'];
      /** @description what was read besides the queues and the total capacity, when not everything: the running policy reads only these (a part not read is empty) */
      parts?: ('nodes' | 'apps' | 'containers')[];
      changedNodeIds?: string[];
      changedAppIds?: string[];
      /** @description how long ago the cluster was read, ms */
      ageMs?: number;
    };
    ThreeSigmaHistoryImported: {
      received: number;
      /** @description new to the store */
      stored: number;
      /** @description already stored (by application id), or repeated in the request: not stored or learned again */
      duplicates: number;
      /** @description runtimes the running 3Sigma predictor learned (succeeded records with a runtime among those stored) */
      learned: number;
      note: string;
    };
    ThreeSigmaHistoryImportInput: {
      records: components['schemas']['HistoryRecord'][];
      /** @default true */
      learn?: boolean;
    };
    ThreeSigmaHistoryPull: {
      /** @enum {string} */
      source: 'rm';
      listed: number;
      added: number;
      skipped: number;
      finishedSinceMs: number | null;
      /** @description runtimes an empty 3Sigma predictor learned from the whole history; 0 when it had learned already, null when another policy runs */
      learned: number | null;
    };
    ThreeSigmaJob: {
      user: string;
      queue: string;
      name: string;
      applicationType?: string;
      tags: {
        [key: string]: string;
      };
      containers?: number;
      containerMemoryMB?: number;
      containerVcores?: number;
      submittedAtMs: number;
      priority: number;
    };
    ThreeSigmaPlan: {
      policy: string;
      /** @description null before the first cycle */
      plan: {
        atMs: number;
        solver: string;
        status: string;
        objective: number;
        /** @description HiGHS's relative gap at the end of the solve; null when no MILP was solved */
        mipGap: number | null;
        /** @description time to build and solve the plan, ms (kept in memory: null after a restart until the next cycle) */
        planMs: number | null;
        columns: number;
        rows: number;
        nonzeros: number;
        pending: number;
        startNow: number;
        deferred: number;
        withoutUtility: number;
        running: number;
        preempted: number;
      } | null;
    };
    ThreeSigmaPredict: {
      job: components['schemas']['ThreeSigmaJob'];
      /** @description the job's feature values, the keys its history is grouped by */
      features: string[];
      /** @description the chosen expert now; null when nothing has been learned */
      prediction: components['schemas']['ThreeSigmaPrediction'] | null;
      /** @description the chosen feature value's streaming histogram of runtimes */
      histogram: {
        feature: string;
        runs: number;
        minMs: number;
        maxMs: number;
        bins: {
          centroidMs: number;
          count: number;
        }[];
      } | null;
      /** @description every expert that knows something of the job (the NMAE table) */
      experts: {
        feature: string;
        estimator: string;
        /** @description null until scored */
        nmae: number | null;
        runs: number;
        scoredRuns: number;
        estimateMs: number;
        chosen: boolean;
      }[];
      expertsTruncated: boolean;
      /** @description the SLO class that would apply to the job */
      sloClass: string | null;
      app?: {
        id: string;
        /** @description as the policy tracks it; null when it has not seen it yet */
        kind: ('slo' | 'bestEffort') | null;
        deadlineMs: number | null;
        sloClass: string | null;
        /** @description the prediction the plan uses, made when the policy first saw the application */
        planned: components['schemas']['ThreeSigmaPrediction'] | null;
      };
    };
    ThreeSigmaPrediction: {
      feature: string;
      estimator: string;
      nmae: number | null;
      runs: number;
      pointEstimateMs: number;
      /** @description no expert of the job was scored enough: the history of every job */
      fallback: boolean;
    };
    ThreeSigmaSloClass: {
      id: string;
      /** @description every field given must match */
      match: {
        /** @description key=value, or key for any value (YARN lower-cases tags) */
        tag?: string;
        /** @description the application name as submitted, or with its digits as # (etl-# matches etl-2026-11-24) */
        name?: string;
        user?: string;
        /** @description the application's queue as the RM reports it */
        queue?: string;
      };
      /** @description deadline = submission + this, ms (give this or slack) */
      deadlineMs?: number;
      /** @description deadline = submission + (1 + slack) × the predicted runtime (give this or deadlineMs) */
      slack?: number;
      /** @description utility of meeting the deadline (default: the policy's slo.utility) */
      utility?: number;
    };
    ThreeSigmaSloClasses: {
      /** @description whether the threesigma policy runs (the classes apply only then) */
      running: boolean;
      /** @description the tag that gives an application its deadline directly (it wins over any class); null when another policy runs */
      deadlineTag: string | null;
      classes: components['schemas']['ThreeSigmaSloClass'][];
    };
  };
  responses: {
    /** @description Invalid input: `field` names the offending part (`body.…`, `query.…`, a path parameter) and `reason` says why */
    BadRequest: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['Error'];
      };
    };
    /** @description No bearer token, or one the service does not know */
    Unauthorized: {
      headers: {
        /** @description Bearer realm="schedbrain" */
        'WWW-Authenticate'?: string;
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['Error'];
      };
    };
    /** @description The token's role is below the route's, or the Host header names another service */
    Forbidden: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['Error'];
      };
    };
    /** @description No such resource */
    NotFound: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['Error'];
      };
    };
    /** @description The request does not fit the current state (`reason` says which) */
    Conflict: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['Error'];
      };
    };
    /** @description The body is larger than 1 MiB */
    PayloadTooLarge: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['Error'];
      };
    };
    /** @description The body is in a media type the route does not read */
    UnsupportedMediaType: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['Error'];
      };
    };
    /** @description The ResourceManager could not be read */
    RmUnavailable: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['Error'];
      };
    };
  };
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  getLivez: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Liveness */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Liveness'];
        };
      };
      403: components['responses']['Forbidden'];
    };
  };
  getHealthz: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Health */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
      403: components['responses']['Forbidden'];
      /** @description Health */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
    };
  };
  getMetrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Prometheus text exposition */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      403: components['responses']['Forbidden'];
    };
  };
  getV1Snapshot: {
    parameters: {
      query?: {
        /** @description policy: what the running policy reads, from the engine's last read (no RM request while it is fresh); all: nodes, apps and containers too, read from the RM now when the engine's read lacks them */
        parts?: 'policy' | 'all';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Snapshot */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Snapshot'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      503: components['responses']['RmUnavailable'];
    };
  };
  getV1Decisions: {
    parameters: {
      query?: {
        /** @description At most this many entries */
        limit?: number;
        /** @description desc: newest first; asc: oldest first (page forward with since) */
        order?: 'desc' | 'asc';
        /** @description Only entries at or after this time: epoch milliseconds or ISO-8601 */
        since?: string;
        /** @description Only entries of this policy */
        policy?: string;
        /** @description Only entries of this cycle id */
        cycle?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Decisions */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Decisions'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
    };
  };
  getV1Policy: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description PolicyConfig */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PolicyConfig'];
        };
      };
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
    };
  };
  putV1Policy: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "name": "capacity-targets",
         *       "params": {
         *         "targets": {
         *           "root.a": {
         *             "capacityPct": 60
         *           },
         *           "root.b": {
         *             "capacityPct": 40
         *           }
         *         }
         *       },
         *       "dryRun": false
         *     }
         */
        'application/json': components['schemas']['PutPolicyRequest'];
      };
    };
    responses: {
      /** @description PolicyConfig */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PolicyConfig'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      409: components['responses']['Conflict'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
    };
  };
  getV1PolicyState: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description PolicyState */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PolicyState'];
        };
      };
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
    };
  };
  getV1State: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ServiceState */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ServiceState'];
        };
      };
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
    };
  };
  postV1DryRun: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: {
      content: {
        /**
         * @example {
         *       "name": "capacity-targets",
         *       "params": {
         *         "targets": {
         *           "root.a": {
         *             "capacityPct": 70
         *           },
         *           "root.b": {
         *             "capacityPct": 30
         *           }
         *         }
         *       }
         *     }
         */
        'application/json': components['schemas']['DryRunRequest'];
      };
    };
    responses: {
      /** @description DryRunResult */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DryRunResult'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      503: components['responses']['RmUnavailable'];
    };
  };
  getV1BopfQueues: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description HTTP 200 */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            capacity: {
              memoryMB: number;
              vcores: number;
            } | null;
            /** @enum {string} */
            variant: 'bopf' | 'nbopf';
            queues: components['schemas']['BopfQueue'][];
          };
        };
      };
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
    };
  };
  postV1BopfQueues: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "name": "etl",
         *       "kind": "LQ",
         *       "periodMs": 600000,
         *       "burstDeadlineMs": 120000,
         *       "demand": {
         *         "vcoreSeconds": 2400,
         *         "memoryMBSeconds": 4915200
         *       }
         *     }
         */
        'application/json': components['schemas']['BopfQueueSpecInput'];
      };
    };
    responses: {
      /** @description HTTP 201 */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            queue: components['schemas']['BopfQueue'];
            admission: components['schemas']['BopfAdmission'];
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      /** @description BopfConflict */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BopfConflict'];
        };
      };
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      503: components['responses']['RmUnavailable'];
    };
  };
  getV1BopfQueuesName: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Queue name */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description BopfQueue */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BopfQueue'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
    };
  };
  putV1BopfQueuesName: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Queue name */
        name: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "name": "etl",
         *       "kind": "LQ",
         *       "periodMs": 600000,
         *       "burstDeadlineMs": 180000,
         *       "demand": {
         *         "vcoreSeconds": 2400,
         *         "memoryMBSeconds": 4915200
         *       }
         *     }
         */
        'application/json': components['schemas']['BopfQueueSpecInput'];
      };
    };
    responses: {
      /** @description HTTP 200 */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            queue: components['schemas']['BopfQueue'];
            admission: components['schemas']['BopfAdmission'];
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      /** @description BopfConflict */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BopfConflict'];
        };
      };
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
    };
  };
  deleteV1BopfQueuesName: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Queue name */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
    };
  };
  getV1DarssRequests: {
    parameters: {
      query?: {
        group?: string;
        limit?: number;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description HTTP 200 */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            nowMs: number;
            requests: components['schemas']['DarssRequest'][];
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
    };
  };
  postV1DarssRequests: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "id": "nightly-etl",
         *       "group": "analytics",
         *       "deadlineMs": 1796000000000,
         *       "jobs": [
         *         {
         *           "name": "extract",
         *           "tasks": 20,
         *           "leaseMs": 300000
         *         },
         *         {
         *           "name": "load",
         *           "tasks": 5,
         *           "leaseMs": 600000,
         *           "unitsPerTask": 2,
         *           "prerequisites": [
         *             "extract"
         *           ]
         *         }
         *       ]
         *     }
         */
        'application/json': components['schemas']['DarssWorkflowInput'];
        /**
         * @example {
         *       "id": "nightly-etl",
         *       "group": "analytics",
         *       "deadlineMs": 1796000000000,
         *       "jobs": [
         *         {
         *           "name": "extract",
         *           "tasks": 20,
         *           "leaseMs": 300000
         *         },
         *         {
         *           "name": "load",
         *           "tasks": 5,
         *           "leaseMs": 600000,
         *           "unitsPerTask": 2,
         *           "prerequisites": [
         *             "extract"
         *           ]
         *         }
         *       ]
         *     }
         */
        'application/yaml': components['schemas']['DarssWorkflowInput'];
      };
    };
    responses: {
      /** @description HTTP 201 */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            id: string;
            latestStarts: {
              [key: string]: number;
            };
            decision: components['schemas']['DarssDecision'];
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      /** @description DarssConflict */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DarssConflict'];
        };
      };
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      503: components['responses']['RmUnavailable'];
    };
  };
  getV1DarssRequestsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Request id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description DarssRequestDetail */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DarssRequestDetail'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
    };
  };
  deleteV1DarssRequestsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Request id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description withdrawn */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      /** @description DarssConflict */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DarssConflict'];
        };
      };
      503: components['responses']['RmUnavailable'];
    };
  };
  getV1DarssQuota: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description DarssQuota */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DarssQuota'];
        };
      };
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      409: components['responses']['Conflict'];
    };
  };
  putV1DarssQuota: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "m": 40,
         *       "n": 100,
         *       "periodMs": 3600000,
         *       "productionCapPct": 80
         *     }
         */
        'application/json': components['schemas']['DarssQuotaUpdate'];
      };
    };
    responses: {
      /** @description DarssQuota */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DarssQuota'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      409: components['responses']['Conflict'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
    };
  };
  getV1DarssLedger: {
    parameters: {
      query?: {
        from?: number;
        to?: number;
        group?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description DarssLedger */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DarssLedger'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      409: components['responses']['Conflict'];
    };
  };
  getV1RayonReservations: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description HTTP 200 */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            nowMs: number;
            reservations: components['schemas']['RayonReservation'][];
          };
        };
      };
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      409: components['responses']['Conflict'];
      503: components['responses']['RmUnavailable'];
    };
  };
  postV1RayonReservations: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "id": "nightly-etl",
         *       "deadlineMs": 1796000000000,
         *       "jobs": [
         *         {
         *           "name": "extract",
         *           "tasks": 4,
         *           "leaseMs": 300000
         *         },
         *         {
         *           "name": "load",
         *           "tasks": 2,
         *           "leaseMs": 600000,
         *           "prerequisites": [
         *             "extract"
         *           ]
         *         }
         *       ]
         *     }
         */
        'application/json': components['schemas']['RayonWorkflowInput'];
        /**
         * @example {
         *       "id": "nightly-etl",
         *       "deadlineMs": 1796000000000,
         *       "jobs": [
         *         {
         *           "name": "extract",
         *           "tasks": 4,
         *           "leaseMs": 300000
         *         },
         *         {
         *           "name": "load",
         *           "tasks": 2,
         *           "leaseMs": 600000,
         *           "prerequisites": [
         *             "extract"
         *           ]
         *         }
         *       ]
         *     }
         */
        'application/yaml': components['schemas']['RayonWorkflowInput'];
      };
    };
    responses: {
      /** @description RayonReservation */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RayonReservation'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      /** @description RayonConflict */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RayonConflict'];
        };
      };
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      503: components['responses']['RmUnavailable'];
    };
  };
  getV1RayonReservationsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Request id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description RayonReservation */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RayonReservation'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
    };
  };
  deleteV1RayonReservationsId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description Request id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description deleted */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      /** @description RayonConflict */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RayonConflict'];
        };
      };
      503: components['responses']['RmUnavailable'];
    };
  };
  getV1ThreesigmaSlos: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ThreeSigmaSloClasses */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ThreeSigmaSloClasses'];
        };
      };
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
    };
  };
  postV1ThreesigmaSlos: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "id": "nightly-etl",
         *       "match": {
         *         "name": "etl-#",
         *         "queue": "production"
         *       },
         *       "deadlineMs": 3600000,
         *       "utility": 2
         *     }
         */
        'application/json': components['schemas']['ThreeSigmaSloClass'];
      };
    };
    responses: {
      /** @description HTTP 201 */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            class: components['schemas']['ThreeSigmaSloClass'];
            running: boolean;
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      409: components['responses']['Conflict'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
    };
  };
  getV1ThreesigmaSlosId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description SLO class id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ThreeSigmaSloClass */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ThreeSigmaSloClass'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
    };
  };
  deleteV1ThreesigmaSlosId: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description SLO class id */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
    };
  };
  postV1ThreesigmaHistory: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        /**
         * @example {
         *       "records": [
         *         {
         *           "v": 1,
         *           "appId": "application_1700000000000_0042",
         *           "user": "alice",
         *           "queue": "production",
         *           "name": "etl-2026-11-24",
         *           "nameKey": "etl-#-#-#",
         *           "applicationType": "MAPREDUCE",
         *           "tags": {},
         *           "priority": 0,
         *           "submittedAtMs": 1795000000000,
         *           "submitHourUtc": 11,
         *           "launchedAtMs": 1795000002000,
         *           "finishedAtMs": 1795000302000,
         *           "runtimeMs": 300000,
         *           "waitMs": 2000,
         *           "state": "FINISHED",
         *           "finalStatus": "SUCCEEDED",
         *           "outcome": "succeeded",
         *           "source": "jobhistory-export",
         *           "recordedAtMs": 1795000400000
         *         }
         *       ],
         *       "learn": true
         *     }
         */
        'application/json': components['schemas']['ThreeSigmaHistoryImportInput'];
      };
    };
    responses: {
      /** @description ThreeSigmaHistoryImported */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ThreeSigmaHistoryImported'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
    };
  };
  postV1ThreesigmaHistoryPull: {
    parameters: {
      query?: {
        /** @description where to read ended applications from */
        source?: 'rm';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ThreeSigmaHistoryPull */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ThreeSigmaHistoryPull'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      409: components['responses']['Conflict'];
      503: components['responses']['RmUnavailable'];
    };
  };
  getV1ThreesigmaPredict: {
    parameters: {
      query?: {
        /** @description an application the cluster has (application_…) */
        app?: string;
        /** @description comma-separated key=value: user, queue, name, type, tasks, containerMemoryMB, containerVcores, priority, hour (UTC) or submittedAtMs, tag.<key> (one of app and features) */
        features?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ThreeSigmaPredict */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ThreeSigmaPredict'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      404: components['responses']['NotFound'];
      409: components['responses']['Conflict'];
      503: components['responses']['RmUnavailable'];
    };
  };
  getV1ThreesigmaPlan: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description ThreeSigmaPlan */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ThreeSigmaPlan'];
        };
      };
      401: components['responses']['Unauthorized'];
      403: components['responses']['Forbidden'];
      409: components['responses']['Conflict'];
    };
  };
}
