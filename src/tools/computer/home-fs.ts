/**
 * Race-safe file access inside the agent home (defence in depth behind the home lock,
 * see home-lock.ts).
 *
 * `resolveInHome` checks a path's real path, but a later `open(path)` would follow symlinks again:
 * a process that swaps a folder for a symlink in between could redirect the operation out of the
 * home. So every file operation here walks the already-resolved real path from the home one
 * component at a time, each folder opened with O_DIRECTORY|O_NOFOLLOW relative to the previous
 * one's descriptor (through `/proc/self/fd/N/<name>`, which the kernel resolves like openat(2)),
 * and opens the final component with O_NOFOLLOW. The opened descriptor's real path
 * (`/proc/self/fd/N`) is verified to be inside the home before any byte is read or written.
 *
 * Files are opened with O_NONBLOCK and then fstat'ed: anything that is not a regular file (a FIFO,
 * socket or device) is refused with a clear error, so neither the open nor a read can block a
 * libuv threadpool thread forever.
 */
import { constants, existsSync, type Stats } from 'node:fs';
import { mkdir, open, readlink, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { PathRefusedError, relativeInside, type ResolvedPath } from './home.js';

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;

/** Whether `/proc/self/fd` exists (Linux); without it the walk falls back to plain paths. */
const HAVE_PROC_FD = existsSync('/proc/self/fd');

/**
 * Largest file (bytes) that edit_file, apply_patch and the other whole-file readers load into
 * memory: 10 MiB. Larger files are refused with an `Error:` naming the size (read_file streams any
 * size; `command` can handle the rest).
 */
export const MAX_WHOLE_FILE_BYTES = 10 * 1024 * 1024;

/** How a file is opened: read, read+write (edit in place), create-or-truncate, create new only. */
export type OpenMode = 'read' | 'update' | 'write' | 'create';

const FLAGS: Record<OpenMode, number> = {
  read: O_RDONLY | O_NOFOLLOW | O_NONBLOCK,
  update: O_RDWR | O_NOFOLLOW | O_NONBLOCK,
  write: O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK,
  create: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK,
};

function fdPath(fd: number): string {
  return `/proc/self/fd/${fd}`;
}

/** What a non-regular file is, for error messages. */
export function describeKind(s: Stats): string {
  if (s.isDirectory()) return 'a folder';
  if (s.isFIFO()) return 'a named pipe (FIFO)';
  if (s.isSocket()) return 'a socket';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  if (s.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** Refuse unless `handle` (an open descriptor) is inside `home`; `/proc/self/fd/N` names its real path. */
export async function verifyOpenedInside(home: string, handle: FileHandle, shown: string): Promise<void> {
  if (!HAVE_PROC_FD) return;
  const where = await readlink(fdPath(handle.fd));
  if (where.endsWith(' (deleted)') || relativeInside(home, where) === null) {
    // Where it leads is not named: it is a host path outside the home.
    throw new PathRefusedError(`${shown} changed while it was being opened and now leads outside the agent's home; refused`);
  }
}

function refusedWalk(shown: string, part: string, err: NodeJS.ErrnoException): Error {
  if (err.code === 'ELOOP' || err.code === 'ENOTDIR') {
    return new PathRefusedError(`${shown}: ${part} is no longer a folder (it was replaced, e.g. by a symbolic link, while being used); refused`);
  }
  return err;
}

/**
 * Open the folder holding `target` (walking from the home with O_NOFOLLOW, creating missing
 * folders when `createParents`), verified inside the home.
 * @returns the folder's handle (caller closes) and the final component's name ('' for the home itself).
 */
async function openParent(target: ResolvedPath, shown: string, createParents: boolean): Promise<{ dir: FileHandle; name: string; prefix: string }> {
  const parts = target.relative === '.' ? [] : target.relative.split(path.sep);
  const name = parts.pop() ?? '';
  if (!HAVE_PROC_FD) {
    const parent = path.join(target.home, ...parts);
    if (createParents) await mkdir(parent, { recursive: true });
    const dir = await open(parent, O_RDONLY | O_DIRECTORY);
    return { dir, name, prefix: parent };
  }
  let dir = await open(target.home, O_RDONLY | O_DIRECTORY);
  try {
    for (const part of parts) {
      const p = `${fdPath(dir.fd)}/${part}`;
      if (createParents) {
        await mkdir(p).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'EEXIST') throw refusedWalk(shown, part, err);
        });
      }
      const next = await open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
        throw refusedWalk(shown, part, err);
      });
      await dir.close();
      dir = next;
    }
    await verifyOpenedInside(target.home, dir, shown);
  } catch (err) {
    await dir.close();
    throw err;
  }
  return { dir, name, prefix: fdPath(dir.fd) };
}

/** An opened regular file of the home. */
export interface OpenedFile {
  handle: FileHandle;
  /** fstat of the opened descriptor. */
  stat: Stats;
}

/**
 * Open the regular file at `target` (resolved by `resolveInHome`) race-safely.
 * - `read`/`update`: the file must exist; `write` creates or keeps it (the caller truncates);
 *   `create` fails with EEXIST when something is there. Parents are created for write/create.
 * @throws PathRefusedError when a component was swapped for a symlink or the file left the home;
 *   Error for anything that is not a regular file (FIFO, socket, device, folder) or larger than
 *   `maxBytes` (when given); ENOENT/EEXIST errors as the fs module throws them.
 */
export async function openInHome(target: ResolvedPath, mode: OpenMode, shown: string, maxBytes?: number): Promise<OpenedFile> {
  const create = mode === 'write' || mode === 'create';
  const { dir, name, prefix } = await openParent(target, shown, create);
  let handle: FileHandle;
  try {
    if (name === '') throw new Error(`${shown} is a folder, not a file`);
    handle = await open(`${prefix}/${name}`, FLAGS[mode], 0o666).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ELOOP') throw new PathRefusedError(`${shown} is a symbolic link that appeared after the path was checked; refused`);
      if (err.code === 'EISDIR') throw new Error(`${shown} is a folder, not a file`);
      if (err.code === 'ENXIO' || err.code === 'EOPNOTSUPP') throw new Error(`${shown} is not a regular file (a named pipe, socket or device); file tools only work on regular files`);
      throw err;
    });
  } finally {
    await dir.close();
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new Error(`${shown} is ${describeKind(stat)}, not a regular file; file tools only work on regular files`);
    if (maxBytes !== undefined && stat.size > maxBytes) {
      throw new Error(`${shown} is too large (${stat.size} bytes; the limit for this tool is ${maxBytes} bytes); use read_file with offset/limit, or a command such as sed or split`);
    }
    await verifyOpenedInside(target.home, handle, shown);
    return { handle, stat };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/**
 * Read an opened file completely, at most `maxBytes` (default {@link MAX_WHOLE_FILE_BYTES});
 * a file that grew past it meanwhile is refused.
 */
export async function readOpened(f: OpenedFile, shown: string, maxBytes = MAX_WHOLE_FILE_BYTES): Promise<Buffer> {
  const buf = Buffer.alloc(Math.min(f.stat.size, maxBytes) + 1);
  let n = 0;
  for (;;) {
    const { bytesRead } = await f.handle.read(buf, n, buf.length - n, n);
    if (bytesRead === 0) break;
    n += bytesRead;
    if (n === buf.length) {
      if (n > maxBytes) throw new Error(`${shown} is too large (over ${maxBytes} bytes); use read_file with offset/limit, or a command`);
      break;
    }
  }
  return buf.subarray(0, n);
}

/** Read the whole regular file at `target` (bounded by `maxBytes`). */
export async function readFileInHome(target: ResolvedPath, shown: string, maxBytes = MAX_WHOLE_FILE_BYTES): Promise<Buffer> {
  const f = await openInHome(target, 'read', shown, maxBytes);
  try {
    return await readOpened(f, shown, maxBytes);
  } finally {
    await f.handle.close();
  }
}

/**
 * Write `data` as the whole content of the file at `target` (created with its parent folders when
 * missing; `exclusive`: fail with EEXIST when something is there already).
 */
export async function writeFileInHome(target: ResolvedPath, data: string | Uint8Array, shown: string, exclusive = false): Promise<void> {
  const f = await openInHome(target, exclusive ? 'create' : 'write', shown);
  try {
    await f.handle.truncate(0);
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    let off = 0;
    while (off < buf.length) {
      const { bytesWritten } = await f.handle.write(buf, off, buf.length - off, off);
      off += bytesWritten;
    }
  } finally {
    await f.handle.close();
  }
}

/** Remove the file (not a folder) at `target`; a missing file is fine. The final symlink itself is removed, never followed. */
export async function unlinkInHome(target: ResolvedPath, shown: string): Promise<void> {
  const { dir, name, prefix } = await openParent(target, shown, false);
  try {
    if (name === '') throw new Error(`${shown} is the home folder`);
    await unlink(`${prefix}/${name}`).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  } finally {
    await dir.close();
  }
}

/**
 * Open the folder at `target` race-safely (O_DIRECTORY, O_NOFOLLOW walk, verified in the home).
 * @returns its handle; `/proc/self/fd/<handle.fd>` names it for readdir/lstat of its entries.
 */
export async function openDirInHome(target: ResolvedPath, shown: string): Promise<{ handle: FileHandle; path: string }> {
  const { dir, name, prefix } = await openParent(target, shown, false);
  if (name === '') return { handle: dir, path: prefix };
  try {
    const handle = await open(`${prefix}/${name}`, O_RDONLY | O_DIRECTORY | O_NOFOLLOW).catch((err: NodeJS.ErrnoException) => {
      throw refusedWalk(shown, name, err);
    });
    try {
      await verifyOpenedInside(target.home, handle, shown);
    } catch (err) {
      await handle.close();
      throw err;
    }
    return { handle, path: HAVE_PROC_FD ? fdPath(handle.fd) : path.join(target.home, target.relative) };
  } finally {
    await dir.close();
  }
}
