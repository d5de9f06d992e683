/**
 * Read a `.zip` skill archive into memory (yauzl, from the request buffer) under the rules of
 * archive-entries.ts. The entry count is checked from the central directory before anything is
 * inflated; declared sizes are verified while inflating (`validateEntrySizes`), and inflation runs
 * as a stream, so the event loop stays free. The Unix file type comes from the upper 16 bits of the
 * external attributes (as Info-ZIP writes them): only regular files and folders pass.
 */
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { checkEntryPath, EntryCollector, type ArchiveReadOptions, MAX_ARCHIVE_ENTRIES, refusedType, SkillArchiveError, type ArchiveEntry } from './archive-entries.js';

const S_IFMT = 0o170000;
/** What a `.zip` skill archive is and how to make one: the end of a refusal of a body that is not one. */
const ZIP_ADVICE = "send a zip of the skill's folder with SKILL.md at its top, e.g. made with (cd my-skill && zip -r ../skill.zip .)";
const TYPES: Record<number, string> = { 0o120000: 'symbolic links', 0o020000: 'device files', 0o060000: 'device files', 0o010000: 'FIFOs', 0o140000: 'sockets' };

function open(body: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(body, { lazyEntries: true, validateEntrySizes: true, decodeStrings: true, strictFileNames: false }, (err, zip) =>
      err || !zip ? reject(err) : resolve(zip),
    ),
  );
}

/** yauzl's own file-name refusals ("absolute path: x", "invalid relative path: x") → ours, naming the entry. */
function fromYauzl(err: Error): SkillArchiveError {
  const m = /^(absolute path|invalid relative path|invalid characters in fileName): (.*)$/s.exec(err.message);
  if (m) {
    try {
      checkEntryPath(m[2]);
    } catch (ours) {
      if (ours instanceof SkillArchiveError) return ours;
    }
    return new SkillArchiveError(`archive entry ${JSON.stringify(m[2])}: ${m[1]}`, m[2]);
  }
  return new SkillArchiveError(`not a valid zip archive (${err.message.replace(/\.$/, '')}): ${ZIP_ADVICE}`, undefined, { format: 'zip' });
}

/** @throws SkillArchiveError for a broken archive or a refused entry (named; `opts` as for checkEntryPath). */
export async function readZip(body: Buffer, opts: ArchiveReadOptions = {}): Promise<ArchiveEntry[]> {
  let zip: ZipFile;
  try {
    zip = await open(body);
  } catch (err) {
    throw fromYauzl(err as Error);
  }
  if (zip.entryCount > MAX_ARCHIVE_ENTRIES) {
    zip.close();
    throw new SkillArchiveError(`archive has ${zip.entryCount} entries; at most ${MAX_ARCHIVE_ENTRIES} are allowed`, undefined, { entries: zip.entryCount, max_entries: MAX_ARCHIVE_ENTRIES });
  }
  const collector = new EntryCollector();
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err: Error) => reject(err instanceof SkillArchiveError ? err : fromYauzl(err)));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: Entry) => {
        onEntry(zip, entry, collector, opts).then(
          () => zip.readEntry(),
          (err) => reject(err),
        );
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return collector.entries;
}

async function onEntry(zip: ZipFile, entry: Entry, collector: EntryCollector, opts: ArchiveReadOptions): Promise<void> {
  const raw = entry.fileName;
  collector.countEntry(raw);
  const path = checkEntryPath(raw, opts);
  const mode = (entry.externalFileAttributes >>> 16) & 0xffff;
  const type = mode & S_IFMT;
  if (TYPES[type]) throw refusedType(raw, TYPES[type]);
  if (raw.endsWith('/') || type === 0o040000) {
    collector.add({ kind: 'dir', path }, raw);
    return;
  }
  if (type !== 0 && type !== 0o100000) throw refusedType(raw, 'entries of this type');
  if (entry.isEncrypted()) throw new SkillArchiveError(`archive entry ${JSON.stringify(raw)}: encrypted entries are not supported`, raw);
  collector.addBytes(raw, entry.uncompressedSize);
  const data = await new Promise<Buffer>((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err || !stream) return reject(new SkillArchiveError(`archive entry ${JSON.stringify(raw)}: ${err?.message ?? 'unreadable'}`, raw));
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', (e: Error) => reject(new SkillArchiveError(`archive entry ${JSON.stringify(raw)}: ${e.message}`, raw)));
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
  collector.add({ kind: 'file', path, data, executable: (mode & 0o111) !== 0 }, raw);
}
