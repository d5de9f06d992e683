/**
 * A real SSE client for tests: fetch + eventsource-parser (the WHATWG parsing rules), reading a
 * `text/event-stream` response until the server closes it, a predicate says stop, or a timeout.
 */
import { createParser } from 'eventsource-parser';

export interface SseEvent {
  id: string | undefined;
  event: string | undefined;
  data: string;
  /** JSON.parse(data) */
  json: any;
}

export interface SseResult {
  status: number;
  headers: Headers;
  events: SseEvent[];
  comments: string[];
  /** Body text when the response was not an event stream. */
  body?: any;
  /** True when the server ended the stream (vs. we stopped reading). */
  serverClosed: boolean;
}

export interface ReadSseOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** Stop (disconnect) once this returns true for a received event. */
  stopWhen?: (ev: SseEvent, all: SseEvent[]) => boolean;
  /** Give up after this many ms (disconnect). Default 20 s. */
  timeoutMs?: number;
  /** Called for each event as it arrives. */
  onEvent?: (ev: SseEvent) => void;
}

export async function readSse(url: string, opts: ReadSseOptions = {}): Promise<SseResult> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error('readSse timeout')), opts.timeoutMs ?? 20_000);
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let stopped = false;
  try {
    const res = await fetch(url, {
      method: opts.method ?? 'GET',
      headers: {
        accept: 'text/event-stream',
        ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...opts.headers,
      },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
      signal: ac.signal,
    });
    if (!(res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep text
      }
      return { status: res.status, headers: res.headers, events, comments, body, serverClosed: true };
    }
    const parser = createParser({
      onEvent: (m) => {
        if (stopped) return;
        let json: unknown;
        try {
          json = JSON.parse(m.data);
        } catch {
          json = undefined;
        }
        const ev: SseEvent = { id: m.id, event: m.event, data: m.data, json };
        events.push(ev);
        opts.onEvent?.(ev);
        if (opts.stopWhen?.(ev, events)) stopped = true;
      },
      onComment: (c) => comments.push(c),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let serverClosed = false;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          serverClosed = true;
          break;
        }
        parser.feed(decoder.decode(value, { stream: true }));
        if (stopped) break;
      }
    } catch (err) {
      if (!ac.signal.aborted) throw err;
    } finally {
      if (!serverClosed) await reader.cancel().catch(() => {});
    }
    return { status: res.status, headers: res.headers, events, comments, serverClosed };
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}
