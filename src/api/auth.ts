/**
 * Who may call the admin API. Bearer tokens, each with a name and a role; roles are ordered
 * (`read` < `operate` < `admin`) and every route requires one (see `requiredRole`). The `Host`
 * header must name this service (a page on another origin cannot reach a loopback admin API
 * through DNS rebinding).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { SchedbrainError } from '../core/errors.js';

export const ROLES = ['read', 'operate', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export const apiTokenSchema = z
  .object({
    /** Who this token is: written in the audit trail. */
    name: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z0-9._@-]+$/, 'letters, digits and . _ @ - only'),
    role: z.enum(ROLES),
    /** The secret itself; at least 16 characters. */
    token: z.string().min(16).max(512),
  })
  .strict();
export type ApiToken = z.infer<typeof apiTokenSchema>;

export interface ApiAuthOptions {
  /** Accepted tokens; none means no request carries a valid credential. */
  readonly tokens: readonly ApiToken[];
  /** GET routes of role `read` answer without a token. */
  readonly openReads?: boolean;
  /** /livez, /healthz and /metrics answer without a token (default true). */
  readonly openProbes?: boolean;
  /** Host names (without port) the `Host` header may carry; loopback names are always allowed. */
  readonly allowedHosts?: readonly string[];
}

export class AuthConfigError extends SchedbrainError {}

const PROBES = new Set(['/livez', '/healthz', '/metrics']);
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1', '[::1]'];

export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

/**
 * The role a route needs when it does not declare one: reads need `read`, anything else
 * `operate`. Routes that change what the brain does (`PUT /v1/policy`) declare `admin`.
 */
export function defaultRole(method: string): Role {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'operate';
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export class ApiAuth {
  private readonly digests: { digest: Buffer; token: ApiToken }[];
  private readonly hosts: Set<string>;

  constructor(readonly options: ApiAuthOptions) {
    const names = new Set<string>();
    for (const t of options.tokens) {
      if (names.has(t.name)) throw new AuthConfigError(`two API tokens are named '${t.name}'`);
      names.add(t.name);
    }
    this.digests = options.tokens.map((token) => ({ digest: sha256(token.token), token }));
    this.hosts = new Set([...LOOPBACK_HOSTS, ...(options.allowedHosts ?? []).map((h) => h.toLowerCase())]);
  }

  /** Whether the path answers without a credential. */
  isOpen(method: string, path: string, role: Role): boolean {
    if (PROBES.has(path) && (method === 'GET' || method === 'HEAD')) return this.options.openProbes !== false;
    return this.options.openReads === true && role === 'read' && (method === 'GET' || method === 'HEAD');
  }

  /** The token a bearer credential matches, comparing against every token in constant time. */
  identify(authorization: string | undefined): ApiToken | undefined {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    if (!m) return undefined;
    const given = sha256(m[1]!);
    let found: ApiToken | undefined;
    for (const d of this.digests) if (timingSafeEqual(given, d.digest) && !found) found = d.token;
    return found;
  }

  /** Whether the `Host` header names this service (port ignored). */
  hostAllowed(host: string | undefined): boolean {
    if (!host) return false;
    const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
    return this.hosts.has(name.toLowerCase());
  }
}

/** Parses `name:role:token[,name:role:token…]` (the SCHEDBRAIN_API_TOKENS form). */
export function parseTokenList(text: string, source: string): ApiToken[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry, i) => {
      const [name, role, ...rest] = entry.split(':');
      return parseToken({ name, role, token: rest.join(':') }, `${source}[${i}]`);
    });
}

function parseToken(raw: unknown, where: string): ApiToken {
  const r = apiTokenSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new AuthConfigError(`${where}.${issue.path.join('.')}: ${issue.message}`);
  }
  return r.data;
}

/** Reads a tokens file: a YAML or JSON list of `{ name, role, token }` (or `{ tokens: [...] }`). */
export function readTokensFile(file: string): ApiToken[] {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new AuthConfigError(`tokens file ${file}: ${(e as Error).message}`);
  }
  const list = Array.isArray(doc) ? doc : (doc as { tokens?: unknown } | null)?.tokens;
  if (!Array.isArray(list)) throw new AuthConfigError(`tokens file ${file}: expected a list of { name, role, token }`);
  return list.map((t, i) => parseToken(t, `${file}[${i}]`));
}

export const ADMIN_TOKEN_FILE = 'admin.token';

/**
 * The token of the first start: `<stateDir>/admin.token` (mode 0600), made when missing. Used
 * only when no token is configured, so one command still gives a working, protected service.
 */
export function ensureAdminTokenFile(stateDir: string): { path: string; token: ApiToken; created: boolean } {
  const path = join(stateDir, ADMIN_TOKEN_FILE);
  let created = false;
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    created = true;
  }
  // A file another user can read is no secret: tighten it rather than serve with it.
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const secret = readFileSync(path, 'utf8').trim();
  return { path, token: parseToken({ name: 'admin', role: 'admin', token: secret }, path), created };
}

/** Host names a service bound to `bindHost` answers to, besides loopback. */
export function defaultAllowedHosts(bindHost: string): string[] {
  const out = [hostname().toLowerCase()];
  if (!isWildcard(bindHost)) out.push(bindHost.toLowerCase());
  return out;
}

export function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

export function isLoopback(host: string): boolean {
  return LOOPBACK_HOSTS.includes(host.toLowerCase()) || /^127\./.test(host);
}
