/**
 * The agent home: `DATA_DIR/agents/<agent_id>/home` (given as `TurnContext.agentHome`), and the
 * one rule every file tool obeys: a path is usable only when its real path (symlinks resolved) stays
 * inside the real path of the home. For a path that does not exist yet, the nearest existing
 * ancestor is resolved instead (the missing rest cannot contain symlinks), and a dangling symlink
 * anywhere on the way is refused (writing through it could create a file outside the home).
 *
 * A check alone is not enough against a process that swaps a folder for a symlink right after
 * it: callers hold the home lock (home-lock.ts) and do the actual I/O through home-fs.ts, which
 * walks the checked real path again with O_NOFOLLOW and verifies the opened descriptor.
 */
import { lstat, mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Thrown when a path is refused; the dispatcher shows the message to the model as `Error: …`. */
export class PathRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PathRefusedError';
  }
}

/** A path that passed {@link resolveInHome}. */
export interface ResolvedPath {
  /** Real path of the agent home. */
  home: string;
  /** Absolute lexical path (what the caller named, `~` and `..` applied). */
  absolute: string;
  /** Real path: the file itself when it exists, else real parent + the missing rest. */
  real: string;
  /** Path relative to the home, for labels and outputs (`.` for the home itself). */
  relative: string;
  /** Whether something exists at the path (lstat). */
  exists: boolean;
}

/** Create the home (and its parents) when missing; returns its real path. */
export async function ensureHome(home: string): Promise<string> {
  await mkdir(home, { recursive: true });
  return realpath(home);
}

/** Return `p` relative to `root` for display, or null when `p` is outside `root`. */
export function relativeInside(root: string, p: string): string | null {
  const rel = path.relative(root, p);
  if (rel === '') return '.';
  if (rel.startsWith('..') && (rel === '..' || rel.startsWith(`..${path.sep}`))) return null;
  if (path.isAbsolute(rel)) return null;
  return rel;
}

/**
 * Resolve `input` for a file tool.
 * - `~` and `~/x` are the home; a relative path is relative to `base` (default: the home);
 *   an absolute path is taken as-is (and must land in the home).
 * @param home absolute path of the agent home; created here when missing (first use).
 * @throws PathRefusedError when the real path leaves the home, or a dangling symlink is on the way.
 */
export async function resolveInHome(home: string, input: string, base?: string): Promise<ResolvedPath> {
  const realHome = await ensureHome(home);
  const trimmed = input.trim();
  if (trimmed.includes('\0')) throw new PathRefusedError('path contains a NUL character');
  let expanded = trimmed === '' ? '.' : trimmed;
  if (expanded === '~') expanded = home;
  else if (expanded.startsWith('~/')) expanded = path.join(home, expanded.slice(2));
  const absolute = path.resolve(base ?? home, expanded);

  // Lexical check first: `../x` or `/etc/passwd` is refused without touching the file system.
  const lexicalRel = relativeInside(home, absolute) ?? relativeInside(realHome, absolute);
  if (lexicalRel === null) {
    throw new PathRefusedError(
      `${input} is outside the agent's home (${home}); file tools only work inside it — use a path relative to the home`,
    );
  }

  // Walk up to the nearest existing ancestor, refusing dangling symlinks on the way.
  let probe = absolute;
  const missing: string[] = [];
  let real: string;
  let exists = true;
  for (;;) {
    try {
      real = await realpath(probe);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' && (err as NodeJS.ErrnoException).code !== 'ENOTDIR') throw err;
      const isLink = await lstat(probe).then((s) => s.isSymbolicLink(), () => false);
      if (isLink) {
        throw new PathRefusedError(`${input} goes through a broken symbolic link (${probe}); refusing to follow it`);
      }
      exists = false;
      missing.unshift(path.basename(probe));
      const parent = path.dirname(probe);
      if (parent === probe) throw new PathRefusedError(`${input}: no existing parent folder`);
      probe = parent;
    }
  }
  real = path.join(real, ...missing);
  const rel = relativeInside(realHome, real);
  if (rel === null) {
    throw new PathRefusedError(
      `${input} resolves (through a symbolic link) to ${real}, which is outside the agent's home; refused`,
    );
  }
  return { home: realHome, absolute, real, relative: rel, exists };
}
