/**
 * The operator commands: `schedbrain status | state | policy | decisions | dry-run | bopf | darss
 * | rayon | threesigma`, each a call of the admin API through the generated client (src/client). Tables for
 * people, `--json` for scripts; a refusal from the server is printed as its field and reason
 * (exit 1), a mistake in the command line as usage (exit 2).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ApiError, createAdminClient, type AdminClient } from '../../client/index.js';
import { bopf } from './bopf.js';
import { resolveConnection } from './connection.js';
import { darss } from './darss.js';
import { decisions, dryRun, policy, state, status } from './engine.js';
import { rayon } from './rayon.js';
import { threesigma } from './threesigma.js';
import { UsageError, type AdminIo } from './output.js';

export interface AdminContext {
  readonly client: AdminClient;
  readonly io: AdminIo;
  readonly server: string;
  readonly json: boolean;
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  /** Stops `decisions --follow`. */
  readonly signal?: AbortSignal;
  /** Reports an answer that is neither data nor an error body the command understands. */
  fail(status: number, body: unknown): number;
}

type Options = NonNullable<ParseArgsConfig['options']>;
const str = { type: 'string' } as const;
const bool = { type: 'boolean' } as const;

const CONNECTION_HELP = `Connection (every command):
  --server URL          the service (default http://127.0.0.1:7878; env SCHEDBRAIN_SERVER)
  --token-file FILE     bearer token file (else env SCHEDBRAIN_TOKEN, the client configuration,
                        or the service's first-start token <state-dir>/admin.token)
  --state-dir DIR       where to find admin.token (default .schedbrain; env SCHEDBRAIN_STATE_DIR)
  --client-config FILE  YAML with server, token or tokenFile, stateDir (env SCHEDBRAIN_CLIENT_CONFIG;
                        default $XDG_CONFIG_HOME/schedbrain/client.yaml)
  --json                JSON instead of a table
  -h, --help            this help`;

interface Command {
  readonly usage: string;
  readonly options: Options;
  readonly run: (c: AdminContext, args: readonly string[]) => Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  status: {
    usage: `Usage: schedbrain status

Health of the service (RM reachable, last cycle, advisory) and the running policy. Exits 1 when
the RM is down or the snapshot stale.`,
    options: {},
    run: (c, args) => {
      if (args.length) throw new UsageError(`status takes no argument (got "${args[0]}")`);
      return status(c);
    },
  },
  state: {
    usage: `Usage: schedbrain state

The service's state dump (role operate): its configuration with secrets redacted, the engine's
status and leadership, the running policy with a summary of its ledgers, and what the backend
keeps (recorded physical capacities, over-committed nodes, the published ranking). YAML; --json
for the API's JSON.`,
    options: {},
    run: state,
  },
  policy: {
    usage: `Usage: schedbrain policy get
       schedbrain policy set NAME [--params FILE|JSON|-] [--dry-run | --no-dry-run]

get: the running policy, its parameters, the dry-run flag, the registered policies.
set: replace the running policy (role admin); validated and persisted before it takes effect.
  --params      the policy's parameters: a JSON or YAML file, inline JSON, or - for standard input
                (without it the running policy keeps its parameters, another starts with its defaults)
  --dry-run     journal decisions without applying them; --no-dry-run applies them again`,
    options: { params: str, 'dry-run': bool, 'no-dry-run': bool },
    run: policy,
  },
  decisions: {
    usage: `Usage: schedbrain decisions [--follow] [--rule R] [--since T] [--limit N] [--policy P] [--cycle C]

The decision journal, oldest first: the newest --limit entries (default 50), or those from --since.
  --follow      keep printing new entries until Ctrl-C (with --json: one JSON object per line)
  --rule R      only rule R and its sub-rules (R.*), among the entries fetched
  --since T     epoch ms, an ISO-8601 date-time, or a duration back from now (10m, 2h, 1d)
  --policy P    only entries of policy P
  --cycle C     only entries of cycle C
  --interval D  how often --follow asks (default 2s)`,
    options: { follow: { type: 'boolean', short: 'f' }, rule: str, since: str, limit: str, policy: str, cycle: str, interval: str },
    run: decisions,
  },
  'dry-run': {
    usage: `Usage: schedbrain dry-run [NAME] [--params FILE|JSON|-]

One cycle on a fresh snapshot that writes nothing: the decisions the running policy (or NAME
with --params) would take, with their reasons. Exits 1 when the policy fails.`,
    options: { params: str },
    run: dryRun,
  },
  bopf: {
    usage: `Usage: schedbrain bopf queues list
       schedbrain bopf queues get NAME
       schedbrain bopf queues add SPEC              SPEC: JSON or YAML file, inline JSON, or -
       schedbrain bopf queues set NAME SPEC
       schedbrain bopf queues rm NAME

Registered BoPF queues (LQ, TQ) and their admission class. A queue the admission conditions
refuse is answered with the failing condition and its numbers (exit 1); nothing is stored.`,
    options: {},
    run: bopf,
  },
  darss: {
    usage: `Usage: schedbrain darss requests list [--group G]
       schedbrain darss requests get ID
       schedbrain darss requests submit WORKFLOW     WORKFLOW: JSON or YAML file, inline JSON, or -
       schedbrain darss requests delete ID
       schedbrain darss quota get
       schedbrain darss quota set [--m M] [--n N] [--period D] [--production-cap-pct P]   (role admin)
       schedbrain darss ledger [--from T] [--to T] [--group G]

DARSS production workflows, the best-effort quota and the reservation ledger (the darss policy
must be running). --from/--to: epoch ms or ISO-8601; --to also a duration after --from (6h).`,
    options: { group: str, m: str, n: str, period: str, 'production-cap-pct': str, from: str, to: str },
    run: darss,
  },
  rayon: {
    usage: `Usage: schedbrain rayon reservations list
       schedbrain rayon reservations get ID
       schedbrain rayon reservations submit WORKFLOW    WORKFLOW: JSON or YAML file, inline JSON, or -
       schedbrain rayon reservations delete ID

Workflows reserved in the ResourceManager's own ReservationSystem (the Rayon baseline; serve
--reservation-queue). A workflow the RM cannot place is answered with its reason (exit 1).`,
    options: {},
    run: rayon,
  },
  threesigma: {
    usage: `Usage: schedbrain threesigma slos list
       schedbrain threesigma slos get ID
       schedbrain threesigma slos add CLASS             CLASS: JSON or YAML file, inline JSON, or -
       schedbrain threesigma slos rm ID
       schedbrain threesigma predict --app ID | --features k=v,...
       schedbrain threesigma plan
       schedbrain threesigma history import RECORDS [--no-learn]   RECORDS: file, inline JSON, or -
       schedbrain threesigma history pull [--source rm]

3Sigma's SLO classes (match on tag, name, user, queue → deadlineMs after submission, or slack over
the predicted runtime; utility), the predictor's view of an application or of features (user,
queue, name, type, tasks, containerMemoryMB, containerVcores, priority, hour, tag.<key>), the
last plan, and the history of ended applications it learns from.`,
    options: { app: str, features: str, source: str, 'no-learn': bool },
    run: threesigma,
  },
};

export const ADMIN_COMMANDS = Object.keys(COMMANDS);

export const ADMIN_HELP_LINES = `  status         health of the service and the running policy
  state          the service's state dump (configuration, engine, policy ledgers, backend)
  policy         get or set the running policy
  decisions      the decision journal (--follow to keep watching)
  dry-run        what a policy would decide now, writing nothing
  bopf           BoPF queues: list, get, add, set, rm
  darss          DARSS requests, quota and ledger
  rayon          Rayon reservations in the RM's ReservationSystem
  threesigma     3Sigma SLO classes, predictions, the last plan, history import and pull`;

export interface AdminRunOptions {
  readonly io?: AdminIo;
  readonly env?: NodeJS.ProcessEnv;
  readonly signal?: AbortSignal;
}

const processIo = (): AdminIo => ({
  out: (s) => process.stdout.write(`${s}\n`),
  err: (s) => process.stderr.write(`${s}\n`),
  ...(process.stdout.isTTY ? { columns: process.stdout.columns } : {}),
});

/** Prints what the server said: its status and error code, then the field and the reason. */
export function serverErrorText(e: ApiError): string {
  const b = (typeof e.body === 'object' && e.body !== null ? e.body : {}) as Record<string, unknown>;
  const lines = [`the server refused the request (HTTP ${e.status}${e.code ? ` ${e.code}` : ''})`];
  if (e.field) lines.push(`  field:     ${e.field}`);
  lines.push(`  reason:    ${e.reason}`);
  if (typeof b.condition === 'string') lines.push(`  condition: ${b.condition}`);
  if (typeof b.detail === 'string') lines.push(`  detail:    ${b.detail}`);
  if (b.numbers && typeof b.numbers === 'object') lines.push(`  numbers:   ${JSON.stringify(b.numbers)}`);
  return lines.join('\n');
}

/** `schedbrain <command> ...` for one of ADMIN_COMMANDS; returns the exit code. */
export async function runAdminCommand(argv: readonly string[], o: AdminRunOptions = {}): Promise<number> {
  const [name, ...rest] = argv;
  const cmd = COMMANDS[name ?? ''];
  const io = o.io ?? processIo();
  if (!cmd) {
    io.err(`schedbrain: unknown command "${name ?? ''}"`);
    return 2;
  }
  const help = `${cmd.usage}\n\n${CONNECTION_HELP}`;
  let server = '';
  try {
    const { values, positionals } = parseArgs({
      args: [...rest],
      allowPositionals: true,
      strict: true,
      options: { ...cmd.options, server: str, 'token-file': str, 'state-dir': str, 'client-config': str, json: bool, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      io.out(help);
      return 0;
    }
    const v = values as Record<string, string | boolean | undefined>;
    const conn = resolveConnection(
      {
        server: v.server as string | undefined,
        tokenFile: v['token-file'] as string | undefined,
        stateDir: v['state-dir'] as string | undefined,
        clientConfig: v['client-config'] as string | undefined,
      },
      o.env ?? process.env,
    );
    server = conn.server;
    const client = createAdminClient({ baseUrl: conn.server, ...(conn.token ? { token: conn.token } : {}) });
    let signal = o.signal;
    let stopOnSignal: (() => void) | undefined;
    if (!signal && v.follow) {
      const ac = new AbortController();
      stopOnSignal = () => ac.abort();
      process.once('SIGINT', stopOnSignal);
      signal = ac.signal;
    }
    const ctx: AdminContext = {
      client,
      io,
      server: conn.server,
      json: v.json === true,
      flags: v,
      ...(signal ? { signal } : {}),
      fail: (status, body) => {
        throw new ApiError(status, body);
      },
    };
    try {
      return await cmd.run(ctx, positionals);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401 && conn.tokenSource === 'none') {
        io.err(
          `schedbrain ${name}: ${serverErrorText(e)}\nNo token found: give --token-file, set SCHEDBRAIN_TOKEN, or run where the service's <state-dir>/admin.token is readable.`,
        );
        return 1;
      }
      throw e;
    } finally {
      if (stopOnSignal) process.removeListener('SIGINT', stopOnSignal);
    }
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`schedbrain ${name}: ${(e as Error).message}\nRun 'schedbrain ${name} --help' for its usage.`);
      return 2;
    }
    if (e instanceof ApiError) {
      io.err(`schedbrain ${name}: ${serverErrorText(e)}`);
      return 1;
    }
    if (e instanceof TypeError && /fetch failed/.test(e.message)) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      io.err(
        `schedbrain ${name}: cannot reach ${server}: ${cause?.code ?? cause?.message ?? e.message} (is the service running? --server gives another address)`,
      );
      return 1;
    }
    if ((e as Error).name === 'TimeoutError') {
      io.err(`schedbrain ${name}: ${server} did not answer in time`);
      return 1;
    }
    throw e;
  }
}
