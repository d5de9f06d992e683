/**
 * Worker-thread entry of the extraction pool (extract-pool.ts): runs {@link extractContent} on
 * one body. Never throws: an unsupported type or any other failure comes back as a value, since
 * only plain data crosses the thread boundary.
 */
import type { MessagePort } from 'node:worker_threads';
import { extractContent, UnsupportedContentError, type ExtractedContent } from './extract.js';

/** One extraction job. */
export interface ExtractTask {
  body: Uint8Array;
  contentType: string;
  pageUrl: string;
  /** Told `started` when the worker begins this job (the time limit counts from then). */
  started: MessagePort;
}

/** What the worker answers. */
export type ExtractReply = { ok: true; content: ExtractedContent } | { ok: false; unsupported?: string; message: string };

export default function extract(task: ExtractTask): ExtractReply {
  task.started.postMessage('started');
  task.started.close();
  try {
    const body = Buffer.from(task.body.buffer, task.body.byteOffset, task.body.byteLength);
    return { ok: true, content: extractContent(body, task.contentType, task.pageUrl) };
  } catch (err) {
    if (err instanceof UnsupportedContentError) return { ok: false, unsupported: err.contentType, message: err.message };
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  }
}
