/**
 * The one place a provider's error text is made fit to become a turn's error: a {@link ModelPort}
 * decorator (src/services.ts wraps every model client in it, before the telemetry decorator logs
 * or traces anything) that rewrites every error the port reports — a thrown error, an `error`
 * event, a failed `response.done` — so that its message and code hold no secret value of the
 * service (`[redacted:<VARIABLE>]` instead), no control or bidi character (written `\uXXXX`; line
 * breaks and tabs kept), and are bounded in size (provider-text.ts). Everything
 * downstream — the turn's `turn.failed` event and record, SSE, webhooks, the `turn finished` log
 * line, spans — only ever sees the cleaned text. A request's own `secrets` option (the values a
 * turn has seen, port.ts ModelStreamOptions) is removed too. Events without an error pass through
 * untouched; the stream options (`onActivity`, `secrets`) are passed on.
 */
import { ModelError, streamBroke } from './model-error.js';
import type { ModelPort, ModelStreamEvent } from './port.js';
import { boundText, PROVIDER_TEXT_MAX_CHARS, SCAN_WINDOW_CHARS, scanWindow, scrubSecrets, type SecretValue } from './provider-text.js';
import { clip } from '../runtime/text-cut.js';
import { escapeUnsafeChars } from '../unsafe-chars.js';

/** The secret values to remove, read when an error is cleaned (so a secrets file may change). */
export type SecretSource = () => Promise<readonly SecretValue[]>;

/** Most characters of an error code kept (a provider's code is free text too). */
const MAX_CODE_CHARS = 200;

/**
 * `{code, message}` without secrets, the message bounded ({@link boundText}; only its start is
 * scanned, {@link scanWindow}), the code clipped.
 */
export async function cleanErrorText(error: { code: string; message: string }, secrets: SecretSource): Promise<{ code: string; message: string }> {
  const values = await secrets().catch(() => []);
  const { head, cut } = scanWindow(error.message);
  return {
    code: clip(displayable(scrubSecrets(clip(error.code, SCAN_WINDOW_CHARS, ''), values)), MAX_CODE_CHARS),
    message: boundText(displayable(scrubSecrets(head, values)), PROVIDER_TEXT_MAX_CHARS, cut),
  };
}

/**
 * `text` with control, separator, invisible and bidi characters written as `\uXXXX`
 * (src/unsafe-chars.ts) — a provider's U+202E or terminal escape (`\u001B[31m`) must not act on
 * whoever reads the turn's error in a console, a log viewer or a terminal — except line breaks
 * and tabs, which a multi-line provider message keeps.
 */
function displayable(text: string): string {
  return text.replace(/[^\n\t]+/g, escapeUnsafeChars);
}

/**
 * What a port threw, as a cleaned {@link ModelError}: a ModelError keeps its code, status and
 * `responseStarted`; anything else becomes `stream_interrupted` `the stream from the model endpoint
 * <endpoint> broke: <message>` (model-error.ts `streamBroke`), as the runtime would read it
 * (src/runtime/model-response.ts).
 */
async function cleanThrown(err: unknown, secrets: SecretSource, endpoint?: string): Promise<ModelError> {
  const e = err instanceof ModelError ? err : streamBroke((err as Error)?.message ?? String(err), endpoint);
  const clean = await cleanErrorText({ code: e.code, message: e.message }, secrets);
  const out = new ModelError(clean.code, clean.message, e.status);
  out.responseStarted = e.responseStarted;
  return out;
}

async function cleanEvent(event: ModelStreamEvent, secrets: SecretSource): Promise<ModelStreamEvent> {
  if (event.type === 'error') return { ...event, ...(await cleanErrorText(event, secrets)) };
  if (event.type === 'response.done' && event.error) return { ...event, error: await cleanErrorText(event.error, secrets) };
  return event;
}

/** The values of a request's `secrets` option; none when it throws (the service's own are still removed). */
function extraValues(more: () => readonly SecretValue[]): readonly SecretValue[] {
  try {
    return more();
  } catch {
    return [];
  }
}

/**
 * `port` whose reported errors hold no secret of `secrets` nor of the request's
 * `options.secrets`, and are bounded in size (see the module doc). A stream aborted through its
 * signal rethrows what it threw, unchanged.
 */
export function withCleanErrors(port: ModelPort, secrets: SecretSource): ModelPort {
  return {
    endpoint: port.endpoint,
    stream(request, signal, options) {
      const inner = port.stream(request, signal, options);
      const more = options?.secrets;
      // The service's values, and those of the request's turn (ModelStreamOptions.secrets).
      const all: SecretSource = more ? async () => [...(await secrets().catch(() => [])), ...extraValues(more)] : secrets;
      return {
        [Symbol.asyncIterator](): AsyncIterator<ModelStreamEvent> {
          const it = inner[Symbol.asyncIterator]();
          return {
            async next() {
              let r: IteratorResult<ModelStreamEvent>;
              try {
                r = await it.next();
              } catch (err) {
                if (signal.aborted) throw err;
                throw await cleanThrown(err, all, port.endpoint);
              }
              if (r.done || (r.value.type !== 'error' && !(r.value.type === 'response.done' && r.value.error))) return r;
              return { done: false, value: await cleanEvent(r.value, all) };
            },
            async return(value?: unknown) {
              return (await it.return?.(value)) ?? { done: true, value: undefined };
            },
          };
        },
      };
    },
  };
}
