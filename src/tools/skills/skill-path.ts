/**
 * Which file of a skill folder `skill_view` may read, by these rules (in order):
 * 1. `\` is read as `/`;
 * 2. an absolute path, a drive letter, or any empty, `.` or `..` segment → `invalid skill file path`;
 * 3. a path that resolves lexically outside the skill folder → `skill path escapes skill root`;
 * 4. a path whose real path (symbolic links followed) is outside the folder's real path →
 *    `skill path escapes skill root through a symbolic link`.
 * Errors are {@link SkillPathError}s; their message is what the model sees after `Error: `.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';

export class SkillPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SkillPathError';
  }
}

export const INVALID_PATH = 'invalid skill file path';
export const ESCAPES_ROOT = 'skill path escapes skill root';
export const ESCAPES_THROUGH_LINK = 'skill path escapes skill root through a symbolic link';

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Rules 1–3: the normalized relative path (`/`-separated) and its absolute lexical location. */
export function lexicalSkillPath(root: string, filePath: string): { relative: string; absolute: string } {
  const relative = filePath.replace(/\\/g, '/');
  const segments = relative.split('/');
  if (relative.startsWith('/') || /^[A-Za-z]:/.test(relative) || segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw new SkillPathError(INVALID_PATH);
  }
  const absolute = path.resolve(root, ...segments);
  if (!inside(path.resolve(root), absolute)) throw new SkillPathError(ESCAPES_ROOT);
  return { relative, absolute };
}

/**
 * All four rules: the real path of `filePath` inside skill folder `root`, or null when it does not
 * exist. @throws SkillPathError.
 */
export async function resolveSkillPath(root: string, filePath: string): Promise<{ relative: string; real: string | null }> {
  const { relative, absolute } = lexicalSkillPath(root, filePath);
  const realRoot = await realpath(root);
  let real: string;
  try {
    real = await realpath(absolute);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') {
      // A dangling link can still point outside: check the parent's real path.
      const parent = await realpath(path.dirname(absolute)).catch(() => null);
      if (parent && !inside(realRoot, parent)) throw new SkillPathError(ESCAPES_THROUGH_LINK);
      return { relative, real: null };
    }
    throw err;
  }
  if (!inside(realRoot, real)) throw new SkillPathError(ESCAPES_THROUGH_LINK);
  return { relative, real };
}
