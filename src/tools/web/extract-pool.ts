/**
 * Page extraction off the event loop: {@link extractContent} runs in a pool of worker threads
 * (piscina), so no page — however deep or large — blocks the service's HTTP server, SSE streams
 * or other turns. Each extraction has a time limit (WEB_EXTRACT_TIMEOUT_MS); a worker past it is
 * terminated (piscina replaces it) and the page comes back as plain text from a linear scan
 * ({@link htmlToPlainText}), with `plainTextReason` saying why. The pool is shared by all turns of
 * the process, starts its workers on first use, runs them at a lower CPU priority and lets idle
 * ones exit.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { contentKind, decodeHtml, htmlToPlainText, UnsupportedContentError, type ExtractedContent } from './extract.js';
import type { ExtractReply, ExtractTask } from './extract-worker.js';

/** Worker threads at most (1–2: extraction competes with the event loop for the same cores). */
const MAX_THREADS = Math.max(1, Math.min(2, os.availableParallelism() - 1));

/** Extra time a job may wait for a worker (queue, first start) before its own limit begins. */
const QUEUE_GRACE_MS = 60_000;

let pool: Piscina | null = null;

function getPool(): Piscina {
  if (pool) return pool;
  // From TypeScript sources (tests, `npm run dev`) the worker is the .ts file, loaded through tsx;
  // from the build it is the compiled .js beside this file.
  const fromSource = import.meta.url.endsWith('.ts');
  const filename = fileURLToPath(new URL(fromSource ? './extract-worker.ts' : './extract-worker.js', import.meta.url));
  pool = new Piscina({
    filename,
    minThreads: 0,
    maxThreads: MAX_THREADS,
    idleTimeout: 30_000,
    // Lower the workers' CPU priority (nice +10, via piscina's optional @napi-rs/nice) so that on a
    // busy machine a long conversion does not take CPU time from the event loop's thread.
    niceIncrement: 10,
    execArgv: fromSource ? ['--import', 'tsx'] : [],
  });
  return pool;
}

export interface ExtractOptions {
  /** Time limit of the conversion, ms (WEB_EXTRACT_TIMEOUT_MS). */
  timeoutMs: number;
  /** Aborting it (the call was cancelled) stops the conversion and rejects with the abort reason. */
  signal?: AbortSignal;
}

/**
 * Convert a response body to readable text in a worker thread.
 * @throws UnsupportedContentError for non-text types; the signal's reason when aborted.
 */
export async function extractOffThread(body: Buffer, contentType: string, pageUrl: string, o: ExtractOptions): Promise<ExtractedContent> {
  const kind = contentKind(contentType, body);
  // The limit counts from when a worker starts the job (a worker's first start loads the HTML
  // libraries, which can take seconds on a busy machine); waiting for a worker has a looser bound.
  const limit = new AbortController();
  const { port1, port2 } = new MessageChannel();
  let timer = setTimeout(() => limit.abort(), o.timeoutMs + QUEUE_GRACE_MS);
  port1.once('message', () => {
    clearTimeout(timer);
    timer = setTimeout(() => limit.abort(), o.timeoutMs);
  });
  const signal = o.signal ? AbortSignal.any([o.signal, limit.signal]) : limit.signal;
  const task: ExtractTask = { body: new Uint8Array(body), contentType, pageUrl, started: port2 };
  let reply: ExtractReply;
  try {
    reply = (await getPool().run(task, { signal, transferList: [port2] })) as ExtractReply;
  } catch (err) {
    if (o.signal?.aborted) throw o.signal.reason ?? err;
    if (!limit.signal.aborted) throw err;
    const seconds = (o.timeoutMs / 1000).toLocaleString('en-US');
    if (kind !== 'html') return { kind, title: null, text: body.toString('utf8'), plainTextReason: `converting it took longer than ${seconds} s` };
    return { kind, title: null, text: htmlToPlainText(decodeHtml(body, contentType)), plainTextReason: `converting it took longer than ${seconds} s (WEB_EXTRACT_TIMEOUT_MS)` };
  } finally {
    clearTimeout(timer);
    port1.close();
  }
  if (reply.ok) return reply.content;
  if (reply.unsupported !== undefined) throw new UnsupportedContentError(reply.unsupported);
  throw new Error(reply.message);
}

/** Stop the pool's workers (service shutdown); a later extraction starts a new pool. */
export async function closeExtractPool(): Promise<void> {
  const p = pool;
  pool = null;
  await p?.destroy();
}
