/**
 * Is a client consuming what a socket sends? Used by the SSE write timeout (sse-stream.ts), which
 * must close only a stream that makes no progress for the whole timeout, not one that is merely
 * behind.
 *
 * Why not just wait for `drain`: the kernel wakes a writer only when a large part of its send
 * buffer is free again (Linux: a third of it; the buffer grows to `net.ipv4.tcp_wmem` max, 4 MiB
 * by default). A client reading steadily at 20 KiB/s frees that much only every ~70 s, so a drain
 * wait can exceed a 60 s timeout although data moves all the time.
 *
 * Progress is therefore any decrease of one of: the stream's own buffer (`writableLength`),
 * libuv's write queue (`_handle.writeQueueSize`, bytes not yet accepted by the kernel), and —
 * on Linux — the kernel's send queue of the connection (`tx_queue` in /proc/net/tcp and
 * /proc/net/tcp6: bytes sent but not acknowledged, or not sent yet), which shrinks whenever the
 * client reads and its window opens. Where /proc is not readable, only the first two count.
 * The /proc tables are read at most once per {@link PROC_CACHE_MS} for all sockets together.
 */
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';

/** How long one reading of the /proc TCP tables is reused, ms. */
export const PROC_CACHE_MS = 100;

/** `localPortHex:remotePortHex` → send queue bytes, or -1 when several connections share the key. */
type QueueTable = Map<string, number>;

let cache: { at: number; table: Promise<QueueTable> } | undefined;

const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');

/** Parse /proc/net/tcp{,6} lines: "sl local_address rem_address st tx_queue:rx_queue …". */
function parseTables(texts: string[]): QueueTable {
  const table: QueueTable = new Map();
  for (const text of texts) {
    for (const line of text.split('\n')) {
      const f = line.trim().split(/\s+/);
      if (f.length < 5 || !f[1].includes(':') || !f[2].includes(':')) continue;
      const key = `${f[1].slice(f[1].lastIndexOf(':') + 1)}:${f[2].slice(f[2].lastIndexOf(':') + 1)}`;
      const queue = parseInt(f[4].split(':')[0], 16);
      table.set(key, table.has(key) || !Number.isFinite(queue) ? -1 : queue);
    }
  }
  return table;
}

function queueTable(): Promise<QueueTable> {
  const now = Date.now();
  if (!cache || now - cache.at > PROC_CACHE_MS) {
    const read = (p: string) => readFile(p, 'utf8').catch(() => '');
    cache = { at: now, table: Promise.all([read('/proc/net/tcp'), read('/proc/net/tcp6')]).then(parseTables) };
  }
  return cache.table;
}

/**
 * The kernel's send queue (bytes) of the connection `localPort` ⇄ `remotePort`, or undefined when
 * unknown (no /proc, no match, or more than one connection with those ports).
 */
export async function kernelSendQueue(localPort: number, remotePort: number): Promise<number | undefined> {
  const queue = (await queueTable()).get(`${hexPort(localPort)}:${hexPort(remotePort)}`);
  return queue === undefined || queue < 0 ? undefined : queue;
}

/** A snapshot of how much a socket still has to deliver; see {@link progressed}. */
export interface SendBacklog {
  writable: number;
  libuv: number;
  kernel?: number;
}

/** Take a {@link SendBacklog} snapshot of `socket`. Never throws. */
export async function sendBacklog(socket: Socket): Promise<SendBacklog> {
  const handle = (socket as unknown as { _handle?: { writeQueueSize?: number } })._handle;
  const snapshot: SendBacklog = { writable: socket.writableLength, libuv: handle?.writeQueueSize ?? 0 };
  if (socket.localPort !== undefined && socket.remotePort !== undefined) {
    try {
      const kernel = await kernelSendQueue(socket.localPort, socket.remotePort);
      if (kernel !== undefined) snapshot.kernel = kernel;
    } catch {
      // no kernel view: the other two still count
    }
  }
  return snapshot;
}

/** True when some part of the backlog shrank from `before` to `after` (the client consumed data). */
export function progressed(before: SendBacklog, after: SendBacklog): boolean {
  return (
    after.writable < before.writable ||
    after.libuv < before.libuv ||
    (after.kernel !== undefined && before.kernel !== undefined && after.kernel < before.kernel)
  );
}
