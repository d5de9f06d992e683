/**
 * Time limits around any {@link ModelPort} (a decorator both adapters are wrapped in, see
 * model-clients.ts), so a model that stalls cannot keep a turn `running` and a
 * MAX_CONCURRENT_TURNS slot forever:
 * - idle: nothing received from the provider for `idleMs` (MODEL_IDLE_TIMEOUT_MS, default 60 s) —
 *   before the response headers, before the first event or in the middle of the stream. Every
 *   event the provider sends counts, also the ones the adapter does not pass on (reported through
 *   `onActivity`, `ModelStreamOptions` in port.ts): `response.in_progress`,
 *   `function_call_arguments.delta`, Chat Completions tool-call chunks, …, and so does every SSE
 *   comment line (keep-alives such as OpenRouter's `: OPENROUTER PROCESSING`; the request limit
 *   still bounds a stream of nothing but comments); the clock stops while the consumer handles a
 *   yielded event;
 * - request: one request longer than `requestMs` in total (MODEL_REQUEST_TIMEOUT_MS, default 10 min).
 * Either aborts the request (through its own controller, linked to the turn's signal and unlinked
 * afterwards). A request that timed out before anything of its response was passed on is sent
 * again, up to `retries` times (MODEL_MAX_RETRIES): no response headers yet, no event yet, or only
 * `response.started` (Responses: `response.created`, `response.in_progress` — nothing a client
 * sees). To keep that retry free of duplicates, a first `response.started` is held back until the
 * response yields something else or ends (or fails without being sent again), so a retried
 * request's consumer sees one `response.started`, the retry's. One that already passed on part of
 * a response (a delta, an item, a warning) is not sent again (its deltas were delivered). Then the
 * stream throws ModelError `model_timeout`, which fails the turn with that code.
 */
import { endpointPhrase, ModelError } from './model-error.js';
import type { ModelPort, ModelRequest, ModelStreamEvent, ModelStreamOptions } from './port.js';

export interface StreamTimeouts {
  /** Max ms between two events received from the provider (and before the first). */
  idleMs: number;
  /** Max ms for one whole request. */
  requestMs: number;
  /** How many times a request that timed out before passing on anything but `response.started` is sent again. */
  retries: number;
}

class Timeout extends Error {
  constructor(readonly kind: 'idle' | 'request') {
    super(kind);
  }
}

/**
 * The `model_timeout` message, naming the endpoint when known (`endpoint`: as messages show it),
 * e.g. `the model endpoint http://127.0.0.1:8000/v1 sent nothing for 60 s (MODEL_IDLE_TIMEOUT_MS)`,
 * `the request to the model endpoint … took longer than 600 s (MODEL_REQUEST_TIMEOUT_MS) on each
 * of 3 attempts`; without one `the model sent nothing …` / `the model request took longer …`.
 */
function describe(kind: 'idle' | 'request', t: StreamTimeouts, attempts: number, endpoint?: string): string {
  const what = kind === 'idle'
    ? `${endpoint ? endpointPhrase(endpoint) : 'the model'} sent nothing for ${t.idleMs / 1000} s (MODEL_IDLE_TIMEOUT_MS)`
    : `${endpoint ? `the request to ${endpointPhrase(endpoint)}` : 'the model request'} took longer than ${t.requestMs / 1000} s (MODEL_REQUEST_TIMEOUT_MS)`;
  return `${what}${attempts > 1 ? ` on each of ${attempts} attempts` : ''}`;
}

/** `port` with idle and request time limits (see the module doc). */
export function withStreamTimeouts(port: ModelPort, t: StreamTimeouts): ModelPort {
  return {
    endpoint: port.endpoint,
    async *stream(request: ModelRequest, signal: AbortSignal, hooks?: ModelStreamOptions): AsyncGenerator<ModelStreamEvent> {
      for (let attempt = 1; ; attempt++) {
        const controller = new AbortController();
        const onAbort = () => controller.abort(signal.reason);
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
        // The first limit that passed; it fails the wait for the next event at once (`fail`, set
        // while that wait is on) or the next wait when none is on.
        let timedOut: Timeout | undefined;
        let fail: ((e: Timeout) => void) | undefined;
        const expire = (kind: 'idle' | 'request') => () => {
          timedOut ??= new Timeout(kind);
          fail?.(timedOut);
          controller.abort(new Timeout(kind));
        };
        const requestTimer = setTimeout(expire('request'), t.requestMs);
        let waiting = true; // the idle clock runs only while the adapter is asked for the next event
        // The idle clock restarts at every event (a dozen a model round): it is a time stamp, not a
        // re-armed timer (`refresh` re-links a timer list, several times the cost of reading the
        // clock). One timer checks the stamp when it fires and, while events came, waits again for
        // the rest of the limit; one that fires while the consumer holds an event (not waiting)
        // looks again a whole limit later (the clock restarts when the consumer asks again).
        let since = performance.now();
        const onIdle = expire('idle');
        let idleTimer: NodeJS.Timeout;
        const checkIdle = () => {
          const left = waiting ? t.idleMs - (performance.now() - since) : t.idleMs;
          if (left <= 0) onIdle();
          else idleTimer = setTimeout(checkIdle, Math.ceil(left));
        };
        idleTimer = setTimeout(checkIdle, t.idleMs);
        const onActivity = () => {
          if (waiting) since = performance.now();
          hooks?.onActivity?.();
        };
        const it = port.stream(request, controller.signal, { onActivity })[Symbol.asyncIterator]();
        let yielded = 0;
        // The response's first event when it is `response.started`, not passed on yet (module doc).
        let started: ModelStreamEvent | undefined;
        try {
          for (;;) {
            if (timedOut) throw timedOut;
            const next = it.next();
            const r = await new Promise<IteratorResult<ModelStreamEvent>>((resolve, reject) => {
              fail = reject;
              next.then(resolve, reject);
            });
            fail = undefined;
            waiting = false;
            if (r.done) {
              if (started) yield started;
              return;
            }
            if (yielded === 0 && !started && r.value.type === 'response.started') {
              started = r.value;
              waiting = true; // nothing was handed to the consumer: the idle clock just goes on
              continue;
            }
            if (started) {
              yielded++;
              yield started;
              started = undefined;
            }
            yielded++;
            yield r.value;
            since = performance.now();
            waiting = true;
          }
        } catch (err) {
          const timeout = err instanceof Timeout && !signal.aborted;
          if (timeout) void it.return?.(undefined)?.catch(() => {});
          const again = timeout && yielded === 0 && attempt <= t.retries;
          if (started && !again) {
            // Not sent again: the consumer gets what it would have had without the hold-back.
            waiting = false;
            yield started;
          }
          if (!timeout) throw err;
          if (!again) throw new ModelError('model_timeout', describe((err as Timeout).kind, t, attempt, port.endpoint));
        } finally {
          clearTimeout(requestTimer);
          clearTimeout(idleTimer);
          signal.removeEventListener('abort', onAbort);
        }
      }
    },
  };
}
