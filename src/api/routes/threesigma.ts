/**
 * 3Sigma's SLO classes, history, predictor and plan: `/v1/threesigma/...`.
 *
 *   POST   /v1/threesigma/slos              add an SLO class (match → deadline or slack, utility)
 *   GET    /v1/threesigma/slos              every class
 *   GET    /v1/threesigma/slos/:id          one class
 *   DELETE /v1/threesigma/slos/:id          remove it
 *   POST   /v1/threesigma/history           import ended applications (history records)
 *   POST   /v1/threesigma/history/pull      read what ended since the last pull from a source (`rm`)
 *   GET    /v1/threesigma/predict           the predictor's view of an application or of features
 *   GET    /v1/threesigma/plan              the last plan: MILP size, objective, gap, time
 *
 * SLO classes are kept in the store (namespace `threesigma.slos`, one record per class, written
 * before the 2xx answer) and handed to the running `threesigma` policy's state, as DARSS
 * admissions are: at start, at every request here and every few seconds (so a switch of policy
 * and back finds them again), the state's classes are made the stored ones. The policy gives a
 * matching application its deadline when it first sees it.
 */
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ConflictError, ValidationError, zodToValidationError } from '../../core/errors.js';
import { historyRecordSchema, type HistoryRecord } from '../../core/history.js';
import { HISTORY_NAMESPACE, HistoryStore, warmRunningPolicy } from '../../history/index.js';
import {
  describeApp,
  expertTable,
  featureKeys,
  POLICY_NAME,
  predictRuntime,
  warmPredictor,
  type JobDescription,
  type ThreeSigmaParams,
  type ThreeSigmaState,
} from '../../policies/threesigma/index.js';
import { lastPlanTiming } from '../../policies/threesigma/policy.js';
import { MAX_SLO_CLASSES, sloClassOf, sloClassSchema, type SloClass } from '../../policies/threesigma/slo-classes.js';
import type { ApiRoute } from '../openapi.js';
import { errorBody } from '../schemas.js';
import type { RoutePlugin, RoutePluginOptions } from '../server.js';
import { serialQueue } from '../serial.js';

export const THREESIGMA_SLO_NAMESPACE = 'threesigma.slos';
/** Most records one import takes (a record is about 400 bytes of JSON; the body limit is 1 MiB). */
export const MAX_IMPORT_RECORDS = 2000;
/** Where a pull may read ended applications from. */
export const HISTORY_SOURCES = ['rm'] as const;
/** How often the policy's classes are checked against the stored ones, ms. */
export const SLO_RECONCILE_INTERVAL_MS = 5000;
/** Most experts one prediction lists (a job has a dozen feature values and its tags, four estimators each). */
export const MAX_EXPERTS = 400;
/** Most `key=value` entries of a `features` query. */
export const MAX_FEATURE_ENTRIES = 32;
const ID_RE = /^[A-Za-z0-9._-]+$/;

// ----------------------------------------------------------------------------------- schemas

const sloClassBody = sloClassSchema.describe('ThreeSigmaSloClass');
const sloListBody = z
  .object({
    running: z.boolean().describe('whether the threesigma policy runs (the classes apply only then)'),
    deadlineTag: z
      .string()
      .nullable()
      .describe('the tag that gives an application its deadline directly (it wins over any class); null when another policy runs'),
    classes: z.array(sloClassBody),
  })
  .describe('ThreeSigmaSloClasses');
const sloCreatedBody = z.object({ class: sloClassBody, running: z.boolean() });
const idParam = z.object({ id: z.string().min(1).max(128).regex(ID_RE, 'letters, digits, ".", "-" and "_" only').describe('SLO class id') });

const historyImportBody = z
  .object({
    records: z.array(historyRecordSchema.describe('HistoryRecord')).min(1).max(MAX_IMPORT_RECORDS),
    /** Learn the records new to the store into the running 3Sigma predictor. */
    learn: z.boolean().default(true),
  })
  .strict()
  .describe('ThreeSigmaHistoryImport');
const historyImportedBody = z
  .object({
    received: z.number().int(),
    stored: z.number().int().describe('new to the store'),
    duplicates: z.number().int().describe('already stored (by application id), or repeated in the request: not stored or learned again'),
    learned: z.number().int().describe('runtimes the running 3Sigma predictor learned (succeeded records with a runtime among those stored)'),
    note: z.string(),
  })
  .describe('ThreeSigmaHistoryImported');
const pullQuery = z.object({ source: z.enum(HISTORY_SOURCES).default('rm').describe('where to read ended applications from') }).strict();
const pulledBody = z
  .object({
    source: z.enum(HISTORY_SOURCES),
    listed: z.number().int(),
    added: z.number().int(),
    skipped: z.number().int(),
    finishedSinceMs: z.number().nullable(),
    learned: z
      .number()
      .int()
      .nullable()
      .describe('runtimes an empty 3Sigma predictor learned from the whole history; 0 when it had learned already, null when another policy runs'),
  })
  .describe('ThreeSigmaHistoryPull');

const predictQuery = z
  .object({
    app: z.string().min(1).max(128).regex(ID_RE, 'an application id').optional().describe('an application the cluster has (application_…)'),
    features: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        'comma-separated key=value: user, queue, name, type, tasks, containerMemoryMB, containerVcores, priority, hour (UTC) or submittedAtMs, tag.<key> (one of app and features)',
      ),
  })
  .strict();
const jobBody = z
  .object({
    user: z.string(),
    queue: z.string(),
    name: z.string(),
    applicationType: z.string().optional(),
    tags: z.record(z.string(), z.string()),
    containers: z.number().optional(),
    containerMemoryMB: z.number().optional(),
    containerVcores: z.number().optional(),
    submittedAtMs: z.number(),
    priority: z.number(),
  })
  .describe('ThreeSigmaJob');
const predictionBody = z
  .object({
    feature: z.string(),
    estimator: z.string(),
    nmae: z.number().nullable(),
    runs: z.number().int(),
    pointEstimateMs: z.number(),
    fallback: z.boolean().describe('no expert of the job was scored enough: the history of every job'),
  })
  .describe('ThreeSigmaPrediction');
const predictBody = z
  .object({
    job: jobBody,
    features: z.array(z.string()).describe("the job's feature values, the keys its history is grouped by"),
    prediction: predictionBody.nullable().describe('the chosen expert now; null when nothing has been learned'),
    histogram: z
      .object({
        feature: z.string(),
        runs: z.number().int(),
        minMs: z.number(),
        maxMs: z.number(),
        bins: z.array(z.object({ centroidMs: z.number(), count: z.number() })),
      })
      .nullable()
      .describe("the chosen feature value's streaming histogram of runtimes"),
    experts: z
      .array(
        z.object({
          feature: z.string(),
          estimator: z.string(),
          nmae: z.number().nullable().describe('null until scored'),
          runs: z.number().int(),
          scoredRuns: z.number().int(),
          estimateMs: z.number(),
          chosen: z.boolean(),
        }),
      )
      .describe('every expert that knows something of the job (the NMAE table)'),
    expertsTruncated: z.boolean(),
    sloClass: z.string().nullable().describe('the SLO class that would apply to the job'),
    app: z
      .object({
        id: z.string(),
        kind: z.enum(['slo', 'bestEffort']).nullable().describe('as the policy tracks it; null when it has not seen it yet'),
        deadlineMs: z.number().nullable(),
        sloClass: z.string().nullable(),
        planned: predictionBody.nullable().describe('the prediction the plan uses, made when the policy first saw the application'),
      })
      .optional(),
  })
  .describe('ThreeSigmaPredict');
const planBody = z
  .object({
    policy: z.string(),
    plan: z
      .object({
        atMs: z.number(),
        solver: z.string(),
        status: z.string(),
        objective: z.number(),
        mipGap: z.number().nullable().describe("HiGHS's relative gap at the end of the solve; null when no MILP was solved"),
        planMs: z.number().nullable().describe('time to build and solve the plan, ms (kept in memory: null after a restart until the next cycle)'),
        columns: z.number().int(),
        rows: z.number().int(),
        nonzeros: z.number().int(),
        pending: z.number().int(),
        startNow: z.number().int(),
        deferred: z.number().int(),
        withoutUtility: z.number().int(),
        running: z.number().int(),
        preempted: z.number().int(),
      })
      .nullable()
      .describe('null before the first cycle'),
  })
  .describe('ThreeSigmaPlan');

const sloExample = { id: 'nightly-etl', match: { name: 'etl-#', queue: 'production' }, deadlineMs: 3_600_000, utility: 2 };
const historyExample = {
  records: [
    {
      v: 1,
      appId: 'application_1700000000000_0042',
      user: 'alice',
      queue: 'production',
      name: 'etl-2026-11-24',
      nameKey: 'etl-#-#-#',
      applicationType: 'MAPREDUCE',
      tags: {},
      priority: 0,
      submittedAtMs: 1_795_000_000_000,
      submitHourUtc: 11,
      launchedAtMs: 1_795_000_002_000,
      finishedAtMs: 1_795_000_302_000,
      runtimeMs: 300_000,
      waitMs: 2000,
      state: 'FINISHED',
      finalStatus: 'SUCCEEDED',
      outcome: 'succeeded',
      source: 'jobhistory-export',
      recordedAtMs: 1_795_000_400_000,
    },
  ],
  learn: true,
};

export const apiRoutes: readonly ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/threesigma/slos',
    summary:
      'Add an SLO class: applications matching it (tag, name, user, queue) become SLO jobs with a deadline a fixed time after submission or a slack over their predicted runtime',
    tags: ['threesigma'],
    body: sloClassBody,
    bodyExample: sloExample,
    responses: { 201: sloCreatedBody, 400: errorBody, 409: errorBody },
  },
  { method: 'get', path: '/v1/threesigma/slos', summary: 'The SLO classes', tags: ['threesigma'], responses: { 200: sloListBody } },
  {
    method: 'get',
    path: '/v1/threesigma/slos/{id}',
    summary: 'One SLO class',
    tags: ['threesigma'],
    params: idParam,
    responses: { 200: sloClassBody, 404: errorBody },
  },
  {
    method: 'delete',
    path: '/v1/threesigma/slos/{id}',
    summary: 'Remove an SLO class (applications already seen keep their deadline)',
    tags: ['threesigma'],
    params: idParam,
    responses: { 204: 'removed', 404: errorBody },
  },
  {
    method: 'post',
    path: '/v1/threesigma/history',
    summary: `Import ended applications as history records (at most ${MAX_IMPORT_RECORDS}); those new to the store are learned by the running 3Sigma predictor unless learn is false`,
    tags: ['threesigma'],
    body: historyImportBody,
    bodyExample: historyExample,
    responses: { 200: historyImportedBody, 400: errorBody },
  },
  {
    method: 'post',
    path: '/v1/threesigma/history/pull',
    summary: 'Read the applications that ended since the last pull from a source (rm) into the history; an empty 3Sigma predictor learns from it',
    tags: ['threesigma'],
    query: pullQuery,
    responses: { 200: pulledBody, 400: errorBody, 409: errorBody, 503: errorBody },
  },
  {
    method: 'get',
    path: '/v1/threesigma/predict',
    summary: "The predictor's view of an application (app=) or of a job described by features (features=): chosen expert, histogram, NMAE table",
    tags: ['threesigma'],
    query: predictQuery,
    responses: { 200: predictBody, 400: errorBody, 404: errorBody, 409: errorBody, 503: errorBody },
  },
  {
    method: 'get',
    path: '/v1/threesigma/plan',
    summary: "The last cycle's plan: MILP size, objective, gap, time to plan, and what it decided",
    tags: ['threesigma'],
    responses: { 200: planBody, 409: errorBody },
  },
];

// ----------------------------------------------------------------------------------- helpers

function parse<T extends z.ZodTypeAny>(schema: T, value: unknown, prefix: string): z.output<T> {
  const r = schema.safeParse(value);
  if (!r.success) throw zodToValidationError(r.error, prefix);
  return r.data;
}

const byId = (a: SloClass, b: SloClass): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const finiteOrNull = (x: number | undefined): number | null => (x !== undefined && Number.isFinite(x) ? x : null);

const FEATURE_KEYS = ['user', 'queue', 'name', 'type', 'tasks', 'containerMemoryMB', 'containerVcores', 'priority', 'hour', 'submittedAtMs'] as const;
const MAX_FEATURE_VALUE_CHARS = 256;

/** A job described as `key=value,…` (`features=`): what the predictor would know of it at submission. */
export function parseFeatures(text: string, nowMs: number): JobDescription {
  const field = 'query.features';
  const entries = text.split(',').map((s) => s.trim());
  if (entries.length > MAX_FEATURE_ENTRIES) throw new ValidationError(field, `at most ${MAX_FEATURE_ENTRIES} entries (got ${entries.length})`);
  const v: Record<string, string> = {};
  const tags: Record<string, string> = {};
  for (const e of entries) {
    const eq = e.indexOf('=');
    if (eq <= 0) throw new ValidationError(field, `"${e}": expected key=value`);
    const key = e.slice(0, eq);
    const value = e.slice(eq + 1);
    if (value.length > MAX_FEATURE_VALUE_CHARS) throw new ValidationError(field, `${key}: at most ${MAX_FEATURE_VALUE_CHARS} characters`);
    if (key.startsWith('tag.') && key.length > 4) tags[key.slice(4)] = value;
    else if ((FEATURE_KEYS as readonly string[]).includes(key)) {
      if (Object.hasOwn(v, key)) throw new ValidationError(field, `${key} given twice`);
      v[key] = value;
    } else throw new ValidationError(field, `unknown key "${key}" (${FEATURE_KEYS.join(', ')}, tag.<key>)`);
  }
  const int = (key: string, min: number, max: number): number | undefined => {
    if (v[key] === undefined) return undefined;
    const n = Number(v[key]);
    if (v[key].trim() === '' || !Number.isInteger(n) || n < min || n > max)
      throw new ValidationError(field, `${key}: an integer in [${min}, ${max}], got "${v[key]}"`);
    return n;
  };
  const containers = int('tasks', 0, 1_000_000);
  const memoryMB = int('containerMemoryMB', 1, 1 << 30);
  const vcores = int('containerVcores', 1, 1 << 20);
  if ((memoryMB === undefined) !== (vcores === undefined)) throw new ValidationError(field, 'give both containerMemoryMB and containerVcores, or neither');
  const hour = int('hour', 0, 23);
  const at = int('submittedAtMs', 0, 1e15);
  if (hour !== undefined && at !== undefined) throw new ValidationError(field, 'give hour or submittedAtMs, not both');
  return {
    user: v.user ?? '',
    queue: v.queue ?? '',
    name: v.name ?? '',
    ...(v.type !== undefined ? { applicationType: v.type } : {}),
    tags,
    ...(containers !== undefined ? { containers } : {}),
    ...(memoryMB !== undefined && vcores !== undefined ? { containerMemoryMB: memoryMB, containerVcores: vcores } : {}),
    submittedAtMs: at ?? (hour !== undefined ? Date.UTC(1970, 0, 1, hour) : nowMs),
    priority: int('priority', -1_000_000, 1_000_000) ?? 0,
  };
}

function predictionJson(x: ReturnType<typeof predictRuntime>) {
  if (!x) return null;
  return { feature: x.feature, estimator: x.estimator, nmae: finiteOrNull(x.nmae), runs: x.runs, pointEstimateMs: x.pointEstimateMs, fallback: x.fallback };
}

// ----------------------------------------------------------------------------------- routes

const threeSigmaRoutes: RoutePlugin = async (app, opts: RoutePluginOptions) => {
  const { engine, store } = opts;
  const ns = store.namespace(THREESIGMA_SLO_NAMESPACE, sloClassSchema);
  const classes = new Map<string, SloClass>();
  for (const { key, value } of await ns.list()) classes.set(key, value);
  const history = opts.history?.records ?? new HistoryStore(store);
  // The same records as `history`, to take back those a failed import stored.
  const historyRecords = store.namespace(HISTORY_NAMESPACE, historyRecordSchema);
  const serial = serialQueue();

  const running = (): boolean => engine.config().name === POLICY_NAME;
  const params = (): ThreeSigmaParams => engine.config().params as ThreeSigmaParams;
  const liveState = (): ThreeSigmaState | undefined => (running() ? (engine.policyState() as ThreeSigmaState) : undefined);
  const requireThreeSigma = (): ThreeSigmaState => {
    const s = liveState();
    if (!s) throw new ConflictError(`the running policy is ${engine.config().name}; this needs the threesigma policy (PUT /v1/policy)`);
    return s;
  };
  const stored = (): SloClass[] => [...classes.values()].sort(byId);

  /** Makes the running policy's classes the stored ones (cheap when they are). */
  const reconcile = async (): Promise<void> => {
    const s = liveState();
    if (!s) return;
    const want = JSON.stringify(stored());
    if (JSON.stringify(s.sloClasses ?? []) === want) return;
    await engine.changePolicyState(POLICY_NAME, (raw) => {
      (raw as ThreeSigmaState).sloClasses = JSON.parse(want) as SloClass[];
      return { changed: true, value: undefined };
    });
  };
  /** A reconciliation whose failure waits for the next one: the store holds the classes whatever happens. */
  const reconcileLogged = () =>
    serial(reconcile).catch((e: unknown) => {
      // The policy changed between the check and the change: the next check sees the new one.
      if (!(e instanceof ConflictError)) app.log.warn({ err: e }, 'could not hand the SLO classes to the 3Sigma policy; tried again shortly');
    });
  await reconcileLogged();
  const timer = setInterval(() => void reconcileLogged(), SLO_RECONCILE_INTERVAL_MS);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));

  const notFound = (reply: FastifyReply, id: string) => reply.code(404).send({ error: 'not_found', reason: `no SLO class ${id}` });
  const parseId = (p: unknown): string => {
    const r = idParam.shape.id.safeParse((p as { id?: string }).id ?? '');
    if (!r.success) throw new ValidationError('id', r.error.issues[0].message);
    return r.data;
  };

  app.post('/v1/threesigma/slos', async (req, reply) => {
    if (req.body === undefined) throw new ValidationError('body', 'a JSON body { id, match, deadlineMs | slack, utility? } is required');
    const c = parse(sloClassSchema, req.body, 'body');
    return serial(async () => {
      if (classes.has(c.id)) return reply.code(409).send({ error: 'conflict', reason: `SLO class ${c.id} exists already; delete it first or give another id` });
      if (classes.size >= MAX_SLO_CLASSES)
        return reply.code(409).send({ error: 'conflict', reason: `at most ${MAX_SLO_CLASSES} SLO classes; delete one first` });
      await ns.put(c.id, c);
      classes.set(c.id, c);
      try {
        await reconcile();
      } catch (e) {
        if (!(e instanceof ConflictError)) {
          // Not handed to the policy, so not added: nothing half-applied.
          classes.delete(c.id);
          await ns.del(c.id);
          throw e;
        }
      }
      req.audit = { after: c };
      return reply.code(201).send({ class: c, running: running() });
    });
  });

  app.get('/v1/threesigma/slos', async () => {
    await reconcileLogged();
    return { running: running(), deadlineTag: running() ? params().deadlineTag : null, classes: stored() };
  });

  app.get('/v1/threesigma/slos/:id', async (req, reply) => {
    const id = parseId(req.params);
    const c = classes.get(id);
    return c ?? notFound(reply, id);
  });

  app.delete('/v1/threesigma/slos/:id', async (req, reply) => {
    const id = parseId(req.params);
    return serial(async () => {
      const c = classes.get(id);
      if (!c) return notFound(reply, id);
      await ns.del(id);
      classes.delete(id);
      try {
        await reconcile();
      } catch (e) {
        if (!(e instanceof ConflictError)) {
          classes.set(id, c);
          await ns.put(id, c);
          throw e;
        }
      }
      req.audit = { before: c };
      return reply.code(204).send();
    });
  });

  app.post('/v1/threesigma/history', async (req) => {
    if (req.body === undefined) throw new ValidationError('body', 'a JSON body { records: [...], learn? } is required');
    const body = parse(historyImportBody, req.body, 'body');
    return serial(async () => {
      // Application ids already stored, or repeated here, are not stored or learned again.
      const fresh: HistoryRecord[] = [];
      const seen = new Set<string>();
      for (const r of body.records) {
        if (seen.has(r.appId)) continue;
        seen.add(r.appId);
        if ((await history.get(r.appId)) === undefined) fresh.push(r);
      }
      // Nothing half-applied: records stored by a request that then fails are removed again, so a
      // retry finds them new and learns them.
      const added: string[] = [];
      const undo = async () => {
        for (const id of added) await historyRecords.del(id);
      };
      try {
        for (const r of fresh) {
          await history.add([r]);
          added.push(r.appId);
        }
      } catch (e) {
        await undo();
        throw e;
      }
      const stored = added.length;
      let learned = 0;
      let note: string;
      const storedOnly = `stored only: the running policy is ${engine.config().name}; an empty 3Sigma predictor learns the stored history when the brain starts`;
      if (!body.learn) note = 'stored only (learn: false)';
      else if (!running()) note = storedOnly;
      else {
        try {
          learned = await engine.changePolicyState(POLICY_NAME, (raw) => {
            const state = raw as ThreeSigmaState;
            const w = warmPredictor(fresh, params().predictor, {}, state.predictor);
            state.predictor = w.predictor;
            return { changed: w.learned > 0, value: w.learned };
          });
          note = `the running 3Sigma predictor learned ${learned} runtime(s) (succeeded records with a runtime, oldest end first)`;
        } catch (e) {
          // The policy changed in between: the records stay, as under any other policy.
          if (!(e instanceof ConflictError)) {
            await undo();
            throw e;
          }
          note = storedOnly;
        }
      }
      req.audit = { after: { received: body.records.length, stored, learned } };
      return { received: body.records.length, stored, duplicates: body.records.length - stored, learned, note };
    });
  });

  app.post('/v1/threesigma/history/pull', async (req) => {
    const q = parse(pullQuery, req.query ?? {}, 'query');
    const puller = opts.history?.pullers[q.source];
    if (!puller) throw new ConflictError(`no history pull from ${q.source} is configured on this service (history.pullCron in the configuration file)`);
    const r = await puller.pull();
    const learned = (await warmRunningPolicy(engine, history, app.log as unknown as Logger)) ?? null;
    req.audit = { after: { source: q.source, listed: r.listed, added: r.added } };
    return { source: q.source, listed: r.listed, added: r.added, skipped: r.skipped, finishedSinceMs: r.finishedSinceMs ?? null, learned };
  });

  app.get('/v1/threesigma/predict', async (req, reply) => {
    const q = parse(predictQuery, req.query ?? {}, 'query');
    if ((q.app === undefined) === (q.features === undefined)) throw new ValidationError('query', 'give exactly one of app and features');
    const state = requireThreeSigma();
    const p = params();
    let job: JobDescription;
    let appView: z.input<typeof predictBody>['app'];
    if (q.app !== undefined) {
      const tracked = Object.hasOwn(state.jobs, q.app) ? state.jobs[q.app] : undefined;
      const a = tracked ? undefined : (await engine.view()).snapshot.apps.get(q.app);
      if (!tracked && !a) return reply.code(404).send({ error: 'not_found', reason: `no application ${q.app} in the cluster` });
      job = tracked ? tracked.description : describeApp(a!);
      appView = {
        id: q.app,
        kind: tracked?.kind ?? null,
        deadlineMs: tracked?.deadlineMs ?? null,
        sloClass: tracked?.sloClass ?? null,
        planned: predictionJson(tracked?.prediction),
      };
    } else job = parseFeatures(q.features!, engine.clock.now());
    const prediction = predictRuntime(state.predictor, job, p.predictor);
    const h = prediction ? state.predictor.features[prediction.feature]?.histogram : undefined;
    const table = expertTable(state.predictor, job);
    return {
      job,
      features: featureKeys(job),
      prediction: predictionJson(prediction),
      histogram: h
        ? { feature: prediction!.feature, runs: h.total, minMs: h.min, maxMs: h.max, bins: h.centroids.map((c, i) => ({ centroidMs: c, count: h.counts[i] })) }
        : null,
      experts: table.slice(0, MAX_EXPERTS).map((x) => ({
        feature: x.feature,
        estimator: x.estimator,
        nmae: finiteOrNull(x.nmae),
        runs: x.runs,
        scoredRuns: x.scoredRuns,
        estimateMs: x.estimateMs,
        chosen: prediction !== undefined && !prediction.fallback && x.feature === prediction.feature && x.estimator === prediction.estimator,
      })),
      expertsTruncated: table.length > MAX_EXPERTS,
      sloClass: sloClassOf(state.sloClasses, job)?.id ?? null,
      ...(appView ? { app: appView } : {}),
    };
  });

  app.get('/v1/threesigma/plan', async () => {
    const state = requireThreeSigma();
    const l = state.lastPlan;
    return {
      policy: POLICY_NAME,
      plan: l ? { ...l, mipGap: finiteOrNull(l.mipGap), planMs: finiteOrNull(lastPlanTiming(state)?.planMs) } : null,
    };
  });
};

export default threeSigmaRoutes;
