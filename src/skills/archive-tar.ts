/**
 * Read a `.tar.gz` skill archive into memory, entry by entry, under the rules of
 * archive-entries.ts. The gzip layer is inflated asynchronously (libuv thread pool) with a hard
 * output limit, so a compression bomb stops at the cap instead of filling memory; the tar layer
 * is then parsed in 64 KiB slices with a yield between them, so the event loop stays free.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { Parser, type ReadEntry } from 'tar';
import { checkEntryPath, EntryCollector, type ArchiveReadOptions, MAX_ARCHIVE_ENTRIES, MAX_UNPACKED_BYTES, refusedType, SkillArchiveError, type ArchiveEntry, unpackedTooLarge } from './archive-entries.js';

const gunzipAsync = promisify(gunzip);
/** Tar headers and padding on top of the file bytes: two 512-byte blocks per entry, plus the end. */
const TAR_OVERHEAD = MAX_ARCHIVE_ENTRIES * 2048 + 1024 * 1024;
const SLICE = 64 * 1024;
/** What a `.tar.gz` skill archive is and how to make one: the end of a refusal of a body that is not one. */
export const TAR_GZ_ADVICE =
  "send a gzip-compressed tar of the skill's folder with SKILL.md at its top, e.g. made with tar -czf skill.tar.gz -C my-skill . (a gzip of a single file such as SKILL.md is not one)";

/**
 * @throws SkillArchiveError for a broken archive (`not a valid gzip stream: …` / `not a valid tar
 *   archive: …`, details `{entry: null, format: "gzip" | "tar"}`, the message ending with
 *   {@link TAR_GZ_ADVICE}) or a refused entry (named; `opts` as for checkEntryPath).
 */
export async function readTarGz(body: Buffer, opts: ArchiveReadOptions = {}): Promise<ArchiveEntry[]> {
  let tarBytes: Buffer;
  try {
    tarBytes = await gunzipAsync(body, { maxOutputLength: MAX_UNPACKED_BYTES + TAR_OVERHEAD });
  } catch (err) {
    if (err instanceof RangeError || (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw unpackedTooLarge();
    }
    throw new SkillArchiveError(`not a valid gzip stream (${(err as Error).message}): ${TAR_GZ_ADVICE}`, undefined, { format: 'gzip' });
  }
  const collector = new EntryCollector();
  let failure: Error | undefined;
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      if (failure) return entry.resume();
      try {
        onEntry(entry, collector, opts);
      } catch (err) {
        failure = err as Error;
        entry.resume();
      }
    },
  });
  const done = new Promise<void>((resolve, reject) => {
    parser.on('end', () => resolve());
    parser.on('error', (err: Error) => reject(err));
  });
  done.catch(() => {});
  for (let off = 0; off < tarBytes.length && !failure; off += SLICE) {
    parser.write(tarBytes.subarray(off, off + SLICE));
    await new Promise((r) => setImmediate(r));
  }
  if (failure) throw failure;
  parser.end();
  try {
    await done;
  } catch (err) {
    throw failure ?? new SkillArchiveError(`not a valid tar archive (${(err as Error).message}): ${TAR_GZ_ADVICE}`, undefined, { format: 'tar' });
  }
  if (failure) throw failure;
  return collector.entries;
}

function onEntry(entry: ReadEntry, collector: EntryCollector, opts: ArchiveReadOptions): void {
  const raw = entry.path;
  collector.countEntry(raw);
  const path = checkEntryPath(raw, opts);
  switch (entry.type) {
    case 'Directory':
      collector.add({ kind: 'dir', path }, raw);
      entry.resume();
      return;
    case 'File':
    case 'OldFile':
    case 'ContiguousFile': {
      collector.addBytes(raw, entry.size ?? 0);
      const chunks: Buffer[] = [];
      const file: ArchiveEntry = { kind: 'file', path, data: Buffer.alloc(0), executable: ((entry.mode ?? 0) & 0o111) !== 0 };
      entry.on('data', (c: Buffer) => chunks.push(c));
      entry.on('end', () => {
        file.data = Buffer.concat(chunks);
      });
      collector.add(file, raw);
      return;
    }
    case 'SymbolicLink':
      throw refusedType(raw, 'symbolic links');
    case 'Link':
      throw refusedType(raw, 'hard links');
    case 'CharacterDevice':
    case 'BlockDevice':
      throw refusedType(raw, 'device files');
    case 'FIFO':
      throw refusedType(raw, 'FIFOs');
    default:
      throw refusedType(raw, `entries of type ${entry.type}`);
  }
}
