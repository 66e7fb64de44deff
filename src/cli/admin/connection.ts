/**
 * Where the operator commands send their requests, and with which token. Each setting is taken
 * from the first place that gives it: flag, environment, client configuration file, default.
 *
 *   server:  --server, SCHEDBRAIN_SERVER, `server:` in the file, http://127.0.0.1:7878
 *   token:   --token-file, SCHEDBRAIN_TOKEN, `token:` / `tokenFile:` in the file,
 *            else the service's first-start token <stateDir>/admin.token
 *   file:    --client-config, SCHEDBRAIN_CLIENT_CONFIG, $XDG_CONFIG_HOME/schedbrain/client.yaml
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ADMIN_TOKEN_FILE } from '../../api/auth.js';
import { UsageError } from './output.js';

export const DEFAULT_SERVER = 'http://127.0.0.1:7878';
const DEFAULT_STATE_DIR = '.schedbrain';

const clientConfigSchema = z
  .object({
    server: z.string().url().optional(),
    token: z.string().min(1).optional(),
    tokenFile: z.string().min(1).optional(),
    stateDir: z.string().min(1).optional(),
  })
  .strict();

export interface ConnectionFlags {
  readonly server?: string;
  readonly tokenFile?: string;
  readonly stateDir?: string;
  readonly clientConfig?: string;
}

export interface Connection {
  readonly server: string;
  readonly token?: string;
  /** Where the token came from, for messages (never the token itself). */
  readonly tokenSource: string;
}

function defaultConfigFile(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'schedbrain', 'client.yaml');
}

function readClientConfig(file: string, explicit: boolean): z.infer<typeof clientConfigSchema> {
  if (!existsSync(file)) {
    if (explicit) throw new UsageError(`client configuration ${file} does not exist`);
    return {};
  }
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8')) ?? {};
  } catch (e) {
    throw new UsageError(`client configuration ${file}: ${(e as Error).message}`);
  }
  const r = clientConfigSchema.safeParse(doc);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new UsageError(`client configuration ${file}: ${i.path.join('.') || '(file)'}: ${i.message}`);
  }
  // A relative tokenFile is relative to the file that names it; `~/` is the home directory.
  const home = (p: string) => (p.startsWith('~/') ? join(homedir(), p.slice(2)) : p);
  return {
    ...r.data,
    ...(r.data.tokenFile ? { tokenFile: resolve(dirname(file), home(r.data.tokenFile)) } : {}),
    ...(r.data.stateDir ? { stateDir: home(r.data.stateDir) } : {}),
  };
}

function readToken(file: string, what: string): string {
  try {
    const t = readFileSync(file, 'utf8').trim();
    if (t) return t;
  } catch (e) {
    throw new UsageError(`${what} ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  throw new UsageError(`${what} ${file} is empty`);
}

export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Connection {
  const configFile = flags.clientConfig ?? env.SCHEDBRAIN_CLIENT_CONFIG;
  const file = readClientConfig(configFile ?? defaultConfigFile(env), configFile !== undefined);
  const server = flags.server ?? env.SCHEDBRAIN_SERVER ?? file.server ?? DEFAULT_SERVER;
  if (!/^https?:\/\/[^/]/.test(server)) throw new UsageError(`--server must be an http:// or https:// URL, got "${server}"`);
  if (flags.tokenFile) return { server, token: readToken(flags.tokenFile, '--token-file'), tokenSource: flags.tokenFile };
  if (env.SCHEDBRAIN_TOKEN) return { server, token: env.SCHEDBRAIN_TOKEN.trim(), tokenSource: 'SCHEDBRAIN_TOKEN' };
  if (file.token) return { server, token: file.token, tokenSource: 'the client configuration' };
  if (file.tokenFile) return { server, token: readToken(file.tokenFile, 'tokenFile'), tokenSource: file.tokenFile };
  const adminToken = join(flags.stateDir ?? file.stateDir ?? env.SCHEDBRAIN_STATE_DIR ?? DEFAULT_STATE_DIR, ADMIN_TOKEN_FILE);
  // No token at all still reaches the open routes (/healthz); others answer 401 with how to send one.
  if (!existsSync(adminToken)) return { server, tokenSource: 'none' };
  return { server, token: readToken(adminToken, 'admin token'), tokenSource: adminToken };
}
