/**
 * Where the pinned `mcporter` (a dependency of this project) and the Node.js that runs it come
 * from, and where they appear inside the sandbox:
 * - the service's own Node.js binary (`process.execPath`) at {@link SANDBOX_NODE};
 * - the project's `node_modules` (read-only) at {@link SANDBOX_NODE_MODULES}, also `NODE_PATH`, so a
 *   skill's CommonJS scripts can `require` the packages the service ships (e.g. the MCP SDK);
 * - a symbolic link {@link SANDBOX_BIN}/mcporter → mcporter's CLI (`#!/usr/bin/env node`, found on
 *   PATH as {@link SANDBOX_BIN}/node).
 * Commands run in login shells (`bash -lc`, and mcporter starts stdio servers with `/bin/sh -lc`),
 * whose /etc/profile resets PATH; so inside the sandbox /etc/profile.d is replaced by a copy of
 * the host's with one more script putting {@link SANDBOX_BIN} first on PATH ({@link profileDir}).
 * Without a sandbox (COMPUTER_SANDBOX=none) the same layout is a host folder `DATA_DIR/run/bin`
 * of symbolic links, and NODE_PATH is the host `node_modules`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const SANDBOX_TOOLS_ROOT = '/opt/turn-service';
export const SANDBOX_BIN = `${SANDBOX_TOOLS_ROOT}/bin`;
export const SANDBOX_NODE = `${SANDBOX_BIN}/node`;
export const SANDBOX_NODE_MODULES = `${SANDBOX_TOOLS_ROOT}/node_modules`;

export interface ToolLocations {
  /** Host `node_modules` holding mcporter. */
  nodeModules: string;
  /** mcporter's CLI script, relative to `nodeModules`. */
  mcporterCli: string;
}

let cached: ToolLocations | undefined;

/**
 * Find the project's node_modules (walking up from this file) and mcporter's CLI in it.
 * @throws Error when mcporter is not installed.
 */
export function toolLocations(): ToolLocations {
  if (cached) return cached;
  for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'node_modules', 'mcporter', 'package.json');
    if (existsSync(pkg)) {
      const bin = (JSON.parse(readFileSync(pkg, 'utf8')) as { bin?: Record<string, string> }).bin?.mcporter ?? 'dist/cli.js';
      cached = { nodeModules: path.join(dir, 'node_modules'), mcporterCli: path.posix.join('mcporter', bin) };
      return cached;
    }
    if (path.dirname(dir) === dir) throw new Error('mcporter is not installed (npm ci installs it with the service)');
  }
}

/** The host bin folder for unsandboxed commands (created on first use): node and mcporter links. */
export async function hostToolsBin(dataDir: string): Promise<string> {
  const t = toolLocations();
  const bin = path.join(dataDir, 'run', 'bin');
  if (!existsSync(path.join(bin, 'mcporter'))) {
    await mkdir(bin, { recursive: true });
    for (const [name, target] of [['node', process.execPath], ['mcporter', path.join(t.nodeModules, t.mcporterCli)]]) {
      await rm(path.join(bin, name), { force: true });
      await symlink(target, path.join(bin, name)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
    }
  }
  return bin;
}

const HOST_PROFILE_D = '/etc/profile.d';
let profile: Promise<string | null> | undefined;

/**
 * A folder to bind over the sandbox's /etc/profile.d: the host's scripts (copied) plus
 * `zz-turn-service-tools.sh` putting {@link SANDBOX_BIN} first on PATH. Built once per process in
 * `DATA_DIR/run/profile.d`; null when the host has no /etc/profile.d (nothing to bind over).
 */
export function profileDir(dataDir: string): Promise<string | null> {
  profile ??= (async () => {
    if (!existsSync(HOST_PROFILE_D)) return null;
    const dir = path.join(dataDir, 'run', 'profile.d');
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o755 });
    for (const e of await readdir(HOST_PROFILE_D, { withFileTypes: true })) {
      if (e.isFile()) await copyFile(path.join(HOST_PROFILE_D, e.name), path.join(dir, e.name));
    }
    await writeFile(path.join(dir, 'zz-turn-service-tools.sh'), `# node and mcporter of the turn service (see README.md, Skills)\nPATH="${SANDBOX_BIN}:$PATH"\nexport PATH\n`, { mode: 0o644 });
    return dir;
  })();
  return profile;
}
