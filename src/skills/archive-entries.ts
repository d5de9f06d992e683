/**
 * The rules every skill archive entry must pass, whatever the archive format (tar.gz or zip), and
 * the caps on one archive. Only regular files and folders are unpacked: symbolic links, hard
 * links, device files and FIFOs are refused, so nothing unpacked can point outside the skill.
 */
import { describeFoundUnsafeChar, escapeUnsafeChars, findUnsafeChar, quoteForDisplay, quoteForDisplayClipped, UNSAFE_CHAR_KINDS } from '../unsafe-chars.js';

/** Max archive size (the request body), bytes. */
export const MAX_ARCHIVE_BYTES = 10 * 1024 * 1024;
/** Max entries (files and folders) in one archive. */
export const MAX_ARCHIVE_ENTRIES = 1000;
/** Max total size of the unpacked files, bytes. */
export const MAX_UNPACKED_BYTES = 50 * 1024 * 1024;
/** Max length of one entry path, characters; max folder depth. */
const MAX_PATH_CHARS = 1024;
const MAX_DEPTH = 32;
/** Max length of one file or folder name (a path component), UTF-8 bytes: NAME_MAX of Linux file systems (ext4, xfs, btrfs, tmpfs). */
export const MAX_NAME_BYTES = 255;

/**
 * The refusal of an archive that unpacks to more than {@link MAX_UNPACKED_BYTES}: the limit in MiB
 * and bytes, and what to do. `raw`: the entry that crossed it, when known (a gzip stream is
 * inflated before its entries are read, so a .tar.gz bomb has none).
 */
export function unpackedTooLarge(raw?: string): SkillArchiveError {
  const mib = MAX_UNPACKED_BYTES / (1024 * 1024);
  const at = raw === undefined ? '' : ` (at entry ${quoteForDisplay(raw)})`;
  return new SkillArchiveError(
    `archive unpacks to more than ${mib} MiB (${MAX_UNPACKED_BYTES} bytes)${at}, the most a skill may hold: ship smaller files, and leave large data (data sets, models, media) out of the skill — a command can fetch it when it needs it`,
    raw === undefined ? undefined : escapeUnsafeChars(raw),
    { max_unpacked_bytes: MAX_UNPACKED_BYTES },
  );
}

/**
 * A refused archive; routes answer 400 `invalid_skill_archive` with {@link SkillArchiveError.details}.
 * `entry` names the offending entry as the archive spells it, when there is one; `extra` holds
 * what else the details say (the limit passed, the format that did not parse, …).
 */
export class SkillArchiveError extends Error {
  constructor(message: string, public readonly entry?: string, public readonly extra: Readonly<Record<string, unknown>> = {}) {
    super(message);
    this.name = 'SkillArchiveError';
  }

  /**
   * The 400's details: `{entry, ...extra}`, `entry` null when the archive as a whole is refused
   * (too large, not gzip/tar/zip, too many entries, no SKILL.md at its root).
   */
  get details(): { entry: string | null } & Record<string, unknown> {
    return { entry: this.entry ?? null, ...this.extra };
  }
}

/**
 * How an archive is read: `install` (a PUT) applies every rule; `stored` (an archive installed
 * before, unpacked again from the shared catalog) does not refuse an entry name for the characters
 * src/unsafe-chars.ts lists — an older version accepted them, so refusing them now would make an
 * installed skill vanish — except NUL, which no version accepted. Every other path rule (no
 * absolute paths, no `..`, no links, the caps) applies to both.
 */
export interface ArchiveReadOptions {
  stored?: boolean;
}

/** One unpacked entry: a folder, or a file with its bytes and whether it is executable. */
export type ArchiveEntry = { kind: 'dir'; path: string } | { kind: 'file'; path: string; data: Buffer; executable: boolean };

/**
 * The normalized relative path of an entry (`./` prefixes and a trailing `/` removed), or a
 * SkillArchiveError naming it (details `{entry}`, unsafe characters written as `\\uXXXX`): control characters (C0 with NUL and line breaks,
 * DEL, C1), line and paragraph separators, invisible characters (U+00AD, U+034F, U+115F, U+1160, U+17B4, U+17B5, U+180B–U+180F, U+200B, U+2060–U+2065, U+206A–U+206F, U+3164, U+FEFF, U+FFA0, U+FFF9–U+FFFB, U+13430–U+1343F, U+1BCA0–U+1BCA3, U+1D173–U+1D17A, U+E0000–U+E007F outside a subdivision flag, the variation selectors U+FE00–U+FE0F and U+E0100–U+E01EF not after a character they apply to: U+FE0E and U+FE0F apply to an emoji beyond ASCII, U+FE0F also to a digit, # or * in a keycap (followed by U+20E3); U+FE00–U+FE0D to a visible character beyond ASCII; U+E0100–U+E01EF to an ideograph) and
 * bidirectional controls anywhere in the path (src/unsafe-chars.ts; the message names
 * the first, e.g. `U+0001 (a control character)`; of a `stored` archive only NUL, see
 * {@link ArchiveReadOptions}), absolute paths, drive letters, backslashes,
 * `..` or `.` segments, empty segments, more than {@link MAX_DEPTH} levels or
 * {@link MAX_PATH_CHARS} characters, a file or folder name over {@link MAX_NAME_BYTES} UTF-8 bytes
 * (the file system could not create it: named, its length and the limit in the message).
 */
export function checkEntryPath(raw: string, opts: ArchiveReadOptions = {}): string {
  // Echoed with unsafe characters as \uXXXX escapes (JSON.stringify leaves U+202E, U+2028 as they are).
  const shown = escapeUnsafeChars(raw);
  const fail = (why: string) => new SkillArchiveError(`archive entry ${quoteForDisplay(raw)}: ${why}`, shown);
  if (raw.length > MAX_PATH_CHARS) throw fail(`path longer than ${MAX_PATH_CHARS} characters`);
  const unsafe = findUnsafeChar(opts.stored ? raw.replace(/[^\0]/gu, '') : raw);
  if (unsafe !== undefined) throw fail(`path contains ${describeFoundUnsafeChar(unsafe)}: file and folder names must not contain ${UNSAFE_CHAR_KINDS}; rename it`);
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw fail('absolute paths are not allowed');
  if (raw.includes('\\')) throw fail('backslashes are not allowed in paths');
  let p = raw;
  while (p.startsWith('./')) p = p.slice(2);
  if (p.endsWith('/')) p = p.slice(0, -1);
  if (p === '' || p === '.') return '';
  const segments = p.split('/');
  if (segments.includes('..')) throw fail('".." segments are not allowed (the entry would land outside the skill folder)');
  if (segments.some((s) => s === '' || s === '.')) throw fail('empty or "." path segments are not allowed');
  if (segments.length > MAX_DEPTH) throw fail(`nested deeper than ${MAX_DEPTH} folders`);
  const long = segments.find((seg) => Buffer.byteLength(seg, 'utf8') > MAX_NAME_BYTES);
  if (long !== undefined) {
    throw fail(`the name ${quoteForDisplayClipped(long, 40)} is ${Buffer.byteLength(long, 'utf8')} bytes long in UTF-8; a file or folder name may be at most ${MAX_NAME_BYTES} bytes: shorten it`);
  }
  return p;
}

/** Collects entries and enforces the count and size caps and unique paths. */
export class EntryCollector {
  readonly entries: ArchiveEntry[] = [];
  private count = 0;
  private bytes = 0;
  private readonly seen = new Set<string>();

  /** Count one more entry (any type) before reading it. @throws SkillArchiveError past the cap. */
  countEntry(raw: string): void {
    this.count++;
    if (this.count > MAX_ARCHIVE_ENTRIES) {
      throw new SkillArchiveError(`archive has more than ${MAX_ARCHIVE_ENTRIES} entries (at entry ${JSON.stringify(raw)})`, raw, { max_entries: MAX_ARCHIVE_ENTRIES });
    }
  }

  /** Reserve `size` more unpacked bytes for entry `raw`. @throws SkillArchiveError past the cap. */
  addBytes(raw: string, size: number): void {
    this.bytes += size;
    if (this.bytes > MAX_UNPACKED_BYTES) throw unpackedTooLarge(raw);
  }

  add(entry: ArchiveEntry, raw: string): void {
    if (entry.path === '') return; // the root folder itself
    if (this.seen.has(entry.path)) throw new SkillArchiveError(`archive entry ${JSON.stringify(raw)} appears twice`, raw);
    this.seen.add(entry.path);
    this.entries.push(entry);
  }
}

/** The refusal for an entry that is neither a regular file nor a folder. */
export function refusedType(raw: string, what: string): SkillArchiveError {
  return new SkillArchiveError(`archive entry ${JSON.stringify(raw)}: ${what} are not allowed (only regular files and folders)`, raw);
}
