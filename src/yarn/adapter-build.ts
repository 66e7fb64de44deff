/**
 * Where the Java adapter (yarn-adapter/) lives, how to build it, and how to run its JVMs.
 * Shared by the mini-cluster launcher and the workload client.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SchedbrainError } from '../core/errors.js';

export class AdapterBuildError extends SchedbrainError {}

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** yarn-adapter/ of this checkout, or $SCHEDBRAIN_ADAPTER_DIR. */
export function adapterDir(): string {
  return resolve(process.env.SCHEDBRAIN_ADAPTER_DIR || join(repoRoot, 'yarn-adapter'));
}

export function adapterJar(dir = adapterDir()): string {
  return join(dir, 'target', 'yarn-adapter-0.1.0.jar');
}

/** Classpath of the adapter JVMs: the adapter jar, then Hadoop and friends (copied by Maven). */
export function adapterClasspath(dir = adapterDir()): string {
  return [adapterJar(dir), join(dir, 'target', 'lib', '*')].join(':');
}

/**
 * Hadoop 3.4 on Java 17: Guice/cglib (RM/NM web apps), Jersey and Hadoop's own reflection
 * need these packages open to the unnamed module.
 */
export const JAVA_OPENS: readonly string[] = [
  'java.base/java.lang',
  'java.base/java.lang.reflect',
  'java.base/java.lang.invoke',
  'java.base/java.util',
  'java.base/java.util.concurrent',
  'java.base/java.io',
  'java.base/java.net',
  'java.base/java.nio',
  'java.base/sun.nio.ch',
].map((p) => `--add-opens=${p}=ALL-UNNAMED`);

const JAVA17_CANDIDATES = [
  '/usr/lib/jvm/java-17-openjdk-amd64',
  '/usr/lib/jvm/java-17-openjdk-arm64',
  '/usr/lib/jvm/java-17-openjdk',
  '/usr/lib/jvm/temurin-17-jdk-amd64',
  '/usr/lib/jvm/temurin-17-jdk',
  '/Library/Java/JavaVirtualMachines/temurin-17.jdk/Contents/Home',
];

/** Newest Java Hadoop 3.4 runs on: from Java 23 `Subject.getSubject` throws and UGI fails. */
export const MAX_JAVA_MAJOR = 22;

/** Major version of the JDK at `home` (from its `release` file), if known. */
export function javaMajor(home: string): number | undefined {
  try {
    const m = /^JAVA_VERSION="(\d+)(?:\.(\d+))?/m.exec(readFileSync(join(home, 'release'), 'utf8'));
    if (!m) return undefined;
    const major = Number(m[1]);
    return major === 1 && m[2] ? Number(m[2]) : major;
  } catch {
    return undefined;
  }
}

/**
 * The java binary for the adapter JVMs: $SCHEDBRAIN_JAVA; else $JAVA_HOME/bin/java unless that
 * JDK is too new for Hadoop 3.4 (> 22); else a Java 17 install; else `java` from PATH.
 */
export function findJava(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SCHEDBRAIN_JAVA) return env.SCHEDBRAIN_JAVA;
  const home = env.JAVA_HOME;
  if (home && existsSync(join(home, 'bin', 'java'))) {
    const major = javaMajor(home);
    if (major === undefined || major <= MAX_JAVA_MAJOR) return join(home, 'bin', 'java');
  }
  for (const h of JAVA17_CANDIDATES) {
    const j = join(h, 'bin', 'java');
    if (existsSync(j)) return j;
  }
  return home && existsSync(join(home, 'bin', 'java')) ? join(home, 'bin', 'java') : 'java';
}

let building: Promise<void> | undefined;

/**
 * Runs scripts/build-adapter.mjs (a no-op when the jar is newer than the sources). With
 * `ifMissing`, only builds when there is no jar at all: a running cluster JVM reads classes from
 * that jar, so clients (submitJob) must not rebuild it under its feet.
 */
export function ensureAdapterBuilt(dir = adapterDir(), opts: { ifMissing?: boolean } = {}): Promise<void> {
  if (opts.ifMissing && existsSync(adapterJar(dir)) && existsSync(join(dir, 'target', 'lib'))) {
    return Promise.resolve();
  }
  building ??= new Promise<void>((resolvePromise, reject) => {
    const script = join(repoRoot, 'scripts', 'build-adapter.mjs');
    const child = spawn(process.execPath, [script, '--adapter-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', (e) => reject(new AdapterBuildError(`cannot run build-adapter: ${e.message}`)));
    child.on('exit', (code) => {
      if (code === 0) resolvePromise();
      else reject(new AdapterBuildError(`building the YARN adapter failed (exit ${code}):\n${out.slice(-4000)}`));
    });
  }).finally(() => {
    building = undefined;
  });
  return building;
}
