/**
 * Builders of skill archives for tests, including hostile ones a normal archiver refuses to make:
 * - {@link tarGz}: a ustar writer (POSIX.1-1988 headers, written byte by byte here) so an entry
 *   may have any name (`../x`, `/etc/x`) and any type (symlink, hard link, device, FIFO);
 * - {@link zipArchive}: yazl for the container, with names patched afterwards in both the local
 *   header and the central directory (the CRC does not cover names), so `../x` or `/x` survive.
 */
import { gzipSync } from 'node:zlib';
import yazl from 'yazl';

export type TarType = 'file' | 'dir' | 'symlink' | 'link' | 'char' | 'fifo';
export interface TarItem {
  name: string;
  type?: TarType;
  data?: string | Buffer;
  mode?: number;
  linkname?: string;
}

const TYPEFLAG: Record<TarType, string> = { file: '0', link: '1', symlink: '2', char: '3', dir: '5', fifo: '6' };

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

function header(item: TarItem, size: number): Buffer {
  const h = Buffer.alloc(512);
  const type = item.type ?? 'file';
  let name = item.name;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    const cut = name.lastIndexOf('/', 155);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
  }
  h.write(name, 0, 100, 'utf8');
  h.write(octal(item.mode ?? (type === 'dir' ? 0o755 : 0o644), 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(1_700_000_000, 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write(TYPEFLAG[type], 156, 'ascii');
  if (item.linkname) h.write(item.linkname, 157, 100, 'utf8');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  return h;
}

/** A gzip-compressed tar of `items`, in order. */
export function tarGz(items: TarItem[]): Buffer {
  const parts: Buffer[] = [];
  for (const item of items) {
    const data = item.type === undefined || item.type === 'file' ? Buffer.from(item.data ?? '') : Buffer.alloc(0);
    parts.push(header(item, data.length), data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts));
}

export interface ZipItem {
  name: string;
  data?: string | Buffer;
  /** Unix mode including the file type (e.g. 0o120777 for a symlink whose `data` is its target). */
  mode?: number;
  dir?: boolean;
  /** Deflate the file (default: stored as it is). */
  compress?: boolean;
}

/** A zip of `items`; names may be hostile (absolute, `..`). */
export async function zipArchive(items: ZipItem[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const patches: [string, string][] = [];
  items.forEach((item, i) => {
    // yazl refuses hostile names: write a same-length placeholder and patch it afterwards.
    const hostile = item.name.startsWith('/') || item.name.split('/').includes('..');
    const placeholder = hostile ? `p${i}`.padEnd(item.name.length, 'x').slice(0, item.name.length) : item.name;
    if (hostile) patches.push([placeholder, item.name]);
    if (item.dir) zip.addEmptyDirectory(placeholder, { mode: item.mode ?? 0o40755 });
    else zip.addBuffer(Buffer.from(item.data ?? ''), placeholder, { mode: item.mode ?? 0o100644, compress: item.compress ?? false });
  });
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  let out = Buffer.concat(chunks);
  for (const [from, to] of patches) {
    const a = Buffer.from(from);
    const b = Buffer.from(to);
    let at = out.indexOf(a);
    while (at >= 0) {
      b.copy(out, at);
      at = out.indexOf(a, at + b.length);
    }
  }
  return out;
}

/** A SKILL.md with frontmatter. */
export function skillMd(name: string, description: string, body = `# ${name}\n\nUse it well.\n`, extra = ''): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}`;
}

/**
 * A zip of many empty stored files, written directly (ZIP64 end records, since more than 65,535
 * entries need them): fast enough for 100k entries, where yazl takes a minute.
 */
export function manyEntryZip(names: string[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const n of names) {
    const name = Buffer.from(n);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name);
    centrals.push(central, name);
    offset += 30 + name.length;
  }
  const cd = Buffer.concat(centrals);
  const z64 = Buffer.alloc(56);
  z64.writeUInt32LE(0x06064b50, 0);
  z64.writeBigUInt64LE(44n, 4);
  z64.writeUInt16LE(45, 12);
  z64.writeUInt16LE(45, 14);
  z64.writeBigUInt64LE(BigInt(names.length), 24);
  z64.writeBigUInt64LE(BigInt(names.length), 32);
  z64.writeBigUInt64LE(BigInt(cd.length), 40);
  z64.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + cd.length), 8);
  locator.writeUInt32LE(1, 16);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(0xffff, 8);
  eocd.writeUInt16LE(0xffff, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([...locals, cd, z64, locator, eocd]);
}
