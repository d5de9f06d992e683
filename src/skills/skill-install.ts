/**
 * Unpack a skill archive body into a new folder: parse (tar.gz or zip, by content type), check
 * the entries, write them into a fresh staging folder beside the skills, then swap it into place
 * with rename(2) so a reader never sees a half-written skill. Files are written with exclusive
 * create (`wx`), folders with mkdir: since links are refused, nothing is written through a link.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { MAX_ARCHIVE_BYTES, SkillArchiveError, type ArchiveEntry, type ArchiveReadOptions } from './archive-entries.js';
import { readTarGz } from './archive-tar.js';
import { readZip } from './archive-zip.js';
import { checkArchiveSkill } from './skill-folder.js';

/** The archive formats, by their content type: how an archive is read and stored. */
export const ARCHIVE_CONTENT_TYPES = ['application/gzip', 'application/zip'] as const;
export type ArchiveContentType = (typeof ARCHIVE_CONTENT_TYPES)[number];
/**
 * Content types accepted for PUT /v1/skills/{name} (lower case, without parameters), each → the
 * format it names: `application/x-gzip`, the older name `file --mime-type` and many clients give
 * a `.tar.gz`, reads as `application/gzip`.
 */
export const ACCEPTED_ARCHIVE_TYPES: Readonly<Record<string, ArchiveContentType>> = {
  'application/gzip': 'application/gzip',
  'application/x-gzip': 'application/gzip',
  'application/zip': 'application/zip',
};

/** Parse an archive body (`opts`: see ArchiveReadOptions). @throws SkillArchiveError. */
export async function readArchive(body: Buffer, contentType: ArchiveContentType, opts: ArchiveReadOptions = {}): Promise<ArchiveEntry[]> {
  if (body.length > MAX_ARCHIVE_BYTES) throw new SkillArchiveError(`archive is larger than ${MAX_ARCHIVE_BYTES} bytes`, undefined, { max_bytes: MAX_ARCHIVE_BYTES });
  return contentType === 'application/zip' ? readZip(body, opts) : readTarGz(body, opts);
}

async function writeEntries(root: string, entries: ArchiveEntry[]): Promise<void> {
  await mkdir(root, { recursive: true, mode: 0o755 });
  // Folders first (shortest first), then files; a path used both as file and folder fails here.
  const dirs = entries.filter((e) => e.kind === 'dir').sort((a, b) => a.path.length - b.path.length);
  for (const d of dirs) await mkdir(path.join(root, d.path), { recursive: true, mode: 0o755 });
  for (const e of entries) {
    if (e.kind !== 'file') continue;
    const target = path.join(root, e.path);
    try {
      await mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
      await writeFile(target, e.data, { flag: 'wx', mode: e.executable ? 0o755 : 0o644 });
    } catch (err) {
      throw new SkillArchiveError(`archive entry ${JSON.stringify(e.path)} cannot be written (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}: a file and a folder share this path?)`, e.path);
    }
  }
}

/**
 * Check and unpack `body` as skill `name` into `skillsDir/name`, replacing an existing folder.
 * `opts.stored`: the archive was installed before (unpacked again from the shared catalog): the
 * character rules added since do not refuse it (ArchiveReadOptions, SkillMdOptions).
 * Returns the checked frontmatter and servers. @throws SkillArchiveError / SkillFormatError (nothing
 * is changed on disk then).
 */
export async function installArchive(skillsDir: string, name: string, body: Buffer, contentType: ArchiveContentType, opts: ArchiveReadOptions = {}) {
  const entries = await readArchive(body, contentType, opts);
  const checked = checkArchiveSkill(name, entries, opts);
  await installEntries(skillsDir, name, entries);
  return { ...checked, files: entries.filter((e) => e.kind === 'file').length };
}

/**
 * Write checked archive `entries` as skill `name` into `skillsDir/name`, replacing an existing
 * folder atomically: the entries go to a fresh staging folder beside the skills, which is then
 * swapped into place with rename(2) (the old folder is renamed away first and deleted after), so a
 * reader sees the old or the new skill, never a mix. The staging folder is deleted on failure.
 * @throws SkillArchiveError when an entry cannot be written; file-system errors as they come.
 */
async function installEntries(skillsDir: string, name: string, entries: ArchiveEntry[]): Promise<void> {
  const staging = path.join(skillsDir, `.staging-${randomUUID()}`);
  const target = path.join(skillsDir, name);
  const old = path.join(skillsDir, `.old-${randomUUID()}`);
  try {
    await writeEntries(staging, entries);
    await rename(target, old).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await rename(staging, target);
  } finally {
    await rm(staging, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
  }
}
