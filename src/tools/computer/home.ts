/**
 * The agent home: `DATA_DIR/agents/<agent_id>/home` (given as `TurnContext.agentHome`), and the
 * one rule every file tool obeys: a path is usable only when it stays inside the home all the way,
 * symbolic links included. {@link resolveInHome} resolves a path itself, one component at a time
 * from the real path of the home: it lstat()s only names inside the home, reads a symbolic link's
 * text (which the agent wrote) and continues with it, and stops at the first step that would leave
 * the home — before anything outside is looked at. So whether a path outside the home exists, is a
 * folder, is readable or loops never changes the answer: every path that leaves the home (typed as
 * `../x` or `/etc/x`, or through a link, a chain of links or a loop that passes outside) gets the
 * same refusal, which names only what the agent typed (never a resolved host path). A path that
 * does not exist yet is fine (its missing rest cannot contain links); a symbolic link whose target
 * does not exist is refused as broken (writing through it would create its target).
 *
 * A check alone is not enough against a process that swaps a folder for a symlink right after
 * it: callers hold the home lock (home-lock.ts) and do the actual I/O through home-fs.ts, which
 * walks the checked real path again with O_NOFOLLOW and verifies the opened descriptor.
 */
import type { Stats } from 'node:fs';
import { lstat, mkdir, readlink, realpath } from 'node:fs/promises';
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

/** Most symbolic links one path may go through, as Linux allows (MAXSYMLINKS); more is taken for a loop. */
export const MAX_SYMLINKS = 40;

/** Who asks {@link resolveInHome}: a file tool (default), or `command` for its `workdir`. */
export type PathUse = 'file' | 'workdir';

/** Options of {@link resolveInHome}. */
export interface ResolveOptions {
  /** Folder a relative `input` is relative to (default: the home). */
  base?: string;
  /** Whose path it is, for the wording of refusals (default `file`). */
  use?: PathUse;
}

/**
 * The one refusal for a path that leaves the home, whichever way it does (`../x`, an absolute
 * path, a symbolic link to something outside that exists or not, a chain of links, a loop passing
 * outside). It names only what the agent typed, so it tells nothing about the host's files.
 */
export function outsideHomeMessage(input: string, use: PathUse = 'file'): string {
  if (use === 'workdir') {
    return `workdir ${input} leads outside the agent's home (directly or through a symbolic link); a command starts in a folder of the home — give a workdir inside it, relative to the home (e.g. src), or leave workdir out to start in the home itself (the command can still cd elsewhere, e.g. /tmp)`;
  }
  return `${input} leads outside the agent's home (directly or through a symbolic link); file tools only work inside the home — use a path inside it, relative to the home (e.g. notes/plan.md)`;
}

/** One component still to resolve, and the symbolic link (home-relative) whose text it came from. */
interface Part {
  name: string;
  link?: string;
}

/**
 * The components of an absolute link target after `home` (or its real path), or null when the
 * target does not name the home by one of these paths (then it leads outside). `.` and empty
 * components are skipped; `..` never matches, so `/x/home/../home` counts as outside.
 */
function afterHome(target: string, homes: string[]): string[] | null {
  const parts = target.split('/').filter((p) => p !== '' && p !== '.');
  for (const home of homes) {
    const prefix = home.split('/').filter((p) => p !== '');
    if (prefix.length <= parts.length && prefix.every((p, i) => parts[i] === p)) return parts.slice(prefix.length);
  }
  return null;
}

/**
 * Resolve `input` for a file tool (or a command's workdir).
 * - `~` and `~/x` are the home; a relative path is relative to `options.base` (default: the home);
 *   an absolute path is taken as-is (and must land in the home). `..` in what the agent typed is
 *   applied to the text first (`a/../b` is `b`); `..` in a symbolic link's text climbs from the
 *   folder the link resolved to, as the kernel does.
 * - Symbolic links are followed (at most {@link MAX_SYMLINKS}) only while every step stays in the
 *   home: nothing outside the home is ever looked at.
 * @param home absolute path of the agent home; created here when missing (first use).
 * @returns the home's real path, the lexical and the real path, the path relative to the home and
 *   whether it exists (a missing path: real path of its nearest existing folder + the missing rest).
 * @throws PathRefusedError with {@link outsideHomeMessage} for every path that leaves the home;
 *   with `… goes through a broken symbolic link (~/<link> points to something that does not
 *   exist) …` for a link whose target is missing but would be inside the home; with `… goes
 *   through more than 40 symbolic links …` for a loop inside the home; for a NUL character; when a
 *   link was replaced while it was being read. Other file system errors (EACCES, EIO) as thrown.
 */
export async function resolveInHome(home: string, input: string, options: ResolveOptions = {}): Promise<ResolvedPath> {
  const use = options.use ?? 'file';
  const shown = use === 'workdir' ? `workdir ${input}` : input;
  const realHome = await ensureHome(home);
  const trimmed = input.trim();
  if (trimmed.includes('\0')) throw new PathRefusedError(`${use === 'workdir' ? 'workdir' : 'path'} contains a NUL character`);
  let expanded = trimmed === '' ? '.' : trimmed;
  if (expanded === '~') expanded = home;
  else if (expanded.startsWith('~/')) expanded = path.join(home, expanded.slice(2));
  const absolute = path.resolve(options.base ?? home, expanded);

  // Lexical check first: `../x` or `/etc/passwd` is refused without touching the file system.
  const lexicalRel = relativeInside(home, absolute) ?? relativeInside(realHome, absolute);
  if (lexicalRel === null) throw new PathRefusedError(outsideHomeMessage(input, use));

  const outside = () => new PathRefusedError(outsideHomeMessage(input, use));
  const homes = [...new Set([realHome, path.resolve(home)])];
  const queue: Part[] = lexicalRel === '.' ? [] : lexicalRel.split(path.sep).map((name) => ({ name }));
  // `at` is always a real folder inside the home (or, at the end, the real path of the target).
  let at = realHome;
  let links = 0;
  let exists = true;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part.name === '' || part.name === '.') continue;
    if (part.name === '..') {
      at = path.dirname(at);
      if (relativeInside(realHome, at) === null) throw outside();
      continue;
    }
    const candidate = path.join(at, part.name);
    let info: Stats | null = null;
    try {
      info = await lstat(candidate);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
    }
    if (info?.isSymbolicLink()) {
      const linkRel = path.relative(realHome, candidate);
      if (++links > MAX_SYMLINKS) {
        throw new PathRefusedError(`${shown} goes through more than ${MAX_SYMLINKS} symbolic links (probably a loop; ~/${linkRel} is one of them); fix or remove the links, or use another path`);
      }
      let target: string;
      try {
        target = await readlink(candidate);
      } catch {
        throw new PathRefusedError(`${shown}: the symbolic link ~/${linkRel} changed while it was being read; try again`);
      }
      let next: string[] = target.split('/');
      if (path.isAbsolute(target)) {
        const rest = afterHome(target, homes);
        if (rest === null) throw outside();
        at = realHome;
        next = rest;
      }
      queue.unshift(...next.map((name) => ({ name, link: linkRel })));
      continue;
    }
    if (info && (info.isDirectory() || queue.length === 0)) {
      at = candidate;
      continue;
    }
    // Nothing there, or a file with more components after it: the rest does not exist (yet).
    const rest = [part, ...queue];
    const fromLink = rest.find((p) => p.link !== undefined);
    if (fromLink) {
      throw new PathRefusedError(`${shown} goes through a broken symbolic link (~/${fromLink.link} points to something that does not exist); fix or remove the link, or use another path`);
    }
    // Only typed names are left (no `..`: the typed path was normalized), so they cannot leave the home.
    at = path.join(at, ...rest.map((p) => p.name));
    exists = false;
    break;
  }
  const rel = relativeInside(realHome, at);
  if (rel === null) throw outside();
  return { home: realHome, absolute, real: at, relative: rel, exists };
}
