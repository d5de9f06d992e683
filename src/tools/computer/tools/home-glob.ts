/**
 * Globbing inside the agent home with tinyglobby (picomatch syntax): symbolic links are not
 * followed into folders, `..` and absolute patterns are refused (they could leave the search
 * folder), and `.git` / `node_modules` are skipped unless the pattern names them.
 */
import path from 'node:path';
import { glob } from 'tinyglobby';
import { assertSafeGlob } from './glob-pattern.js';

/** Folders skipped unless the pattern mentions them. */
const SKIPPED = ['.git', 'node_modules'];

/**
 * Files (and, unless `onlyFiles`, folders) under `base` matching `pattern`, as paths relative to
 * `base` with `/` separators, sorted.
 * @throws Error for a pattern with a `..` segment, an absolute pattern, or one refused by
 *   {@link assertSafeGlob} (too long / too many wildcards: picomatch matching is synchronous).
 */
export async function globInHome(base: string, pattern: string, opts: { onlyFiles?: boolean; signal?: AbortSignal } = {}): Promise<string[]> {
  if (path.isAbsolute(pattern) || pattern.startsWith('~')) throw new Error(`pattern ${JSON.stringify(pattern)} must be relative; use the path parameter to choose the folder`);
  assertSafeGlob(pattern);
  if (pattern.split('/').includes('..')) throw new Error(`pattern ${JSON.stringify(pattern)} must not contain ".." segments`);
  const ignore = SKIPPED.filter((d) => !pattern.includes(d)).map((d) => `**/${d}/**`);
  const found = await glob(pattern, {
    cwd: base,
    dot: true,
    ignore,
    onlyFiles: opts.onlyFiles ?? true,
    followSymbolicLinks: false,
    expandDirectories: false,
    signal: opts.signal,
  });
  return found.map((f) => f.replace(/\/$/, '')).sort();
}
