/**
 * The `fetch` the model clients hand to the `openai` SDK: undici 7's `request` API over a
 * dispatcher of its own, answered as a Response whose `body` is undici's Node stream.
 *
 * Why not a WHATWG `fetch`: the SDK reads every streamed response through the body; with fetch
 * that body is a web ReadableStream fed from undici's Node stream, and the two stream machineries
 * plus fetch's own request/response objects cost more CPU than everything else of a request on a
 * fast model endpoint (`npm run bench:dispatcher`, README "Performance": the raw SDK loop takes
 * about 0.8× the CPU a turn on this stack that it takes on Node's fetch). The SDK takes any body that
 * is an async iterable of bytes (it is what it reads from node-fetch's Node streams: see
 * `ReadableStreamToAsyncIterable` and `CancelReadableStream` in openai/internal/shims), and
 * undici's body stream also has `text()`, `json()`, `arrayBuffer()` and `blob()`, which the SDK
 * uses for error bodies.
 *
 * Why not the global `fetch` either: importing the npm `undici` package (the web tools and
 * webhooks build guarded Agents with it) installs an undici 7 Agent as the process's global
 * dispatcher when none exists yet, so the stack of model traffic would depend on what else was
 * imported. Here it is fixed, and the guarded Agents of the web tools never see model traffic.
 *
 * Kept from fetch: redirects are followed (at most 20, as fetch does; `Authorization` is dropped
 * on a redirect to another origin by undici's redirect handler), the signal aborts the request and
 * its body, connection errors reject (the SDK reports them as connection errors). A request whose
 * body is not text or bytes (a web stream, form data, a Blob: uploads, which the model port never
 * makes) or whose input is a `Request` goes through Node's own `fetch`.
 *
 * No time limit of its own while waiting for the response headers or for more of the body: undici's
 * defaults (`headersTimeout`, `bodyTimeout`: 300 s) would cut a request the configuration allows
 * to wait longer (MODEL_IDLE_TIMEOUT_MS up to 1 h, MODEL_REQUEST_TIMEOUT_MS up to a day), with
 * undici's error instead of `model_timeout`. Every caller bounds its requests through the signal
 * instead: stream-timeouts.ts (idle and whole-request limits, around every model stream), the SDK's
 * own `timeout` (MODEL_REQUEST_TIMEOUT_MS, until the response headers) and the readiness probe's
 * `AbortSignal.timeout`. Connecting keeps undici's limit (10 s; the SDK reports a connection error).
 *
 * Retries: the SDK retries every 5xx (MODEL_MAX_RETRIES), but HTTP 501 (Not Implemented, RFC 9110
 * §15.6.2: the server does not support the method — a static file server's answer to a POST) does
 * not pass, nor does 505 (HTTP Version Not Supported), so such an answer reaches the SDK with `x-should-retry: false`, the header its retry decision
 * obeys, unless the server sent that header itself ({@link NOT_RETRIED}).
 */
import { Agent, interceptors, request, type Dispatcher } from 'undici';

/**
 * Keep-alive connections of the model clients, following redirects like fetch; undici's header
 * and body time limits off (0), see the module doc.
 */
const dispatcher: Dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 }).compose(interceptors.redirect({ maxRedirections: 20 }));

type FetchInit = NonNullable<Parameters<typeof fetch>[1]>;

/**
 * Error statuses that do not pass with time, which the SDK's retries would send again in vain:
 * 501 Not Implemented and 505 HTTP Version Not Supported (RFC 9110 §15.6.2, §15.6.6).
 */
const NOT_RETRIED = new Set([501, 505]);

/** `init.body` as undici's `request` takes it, or undefined when only fetch can send it. */
function plainBody(body: FetchInit['body']): string | Uint8Array | null | undefined {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  return undefined;
}

/**
 * Request headers as a flat name/value list (repeated names kept). The SDK passes a `Headers`,
 * read as it is; anything else goes through the `Headers` constructor (its validation included).
 */
function headerList(headers: FetchInit['headers']): string[] {
  const out: string[] = [];
  const h = headers instanceof Headers ? headers : new Headers(headers);
  h.forEach((value, name) => out.push(name, value));
  return out;
}

/** Response headers (undici's record: lowercase names, repeated ones as arrays) as `Headers`. */
function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const name in raw) {
    const value = raw[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.append(name, value);
  }
  return headers;
}

/**
 * `fetch` for model requests: `(url, init) → Response` where `body` is a Node Readable of the
 * response bytes (async iterable; `text()`/`json()`/`arrayBuffer()`/`blob()`); a 501 or 505 carries
 * `x-should-retry: false` unless the server set that header (see the module doc). Rejects as undici
 * does: the signal's reason (or an AbortError) when aborted, a connection error otherwise.
 */
export const modelFetch: typeof fetch = async (input, init = {}) => {
  const body = plainBody(init.body);
  if (typeof input !== 'string' && !(input instanceof URL)) return viaFetch(input, init);
  if (body === undefined) return viaFetch(input, init);
  const res = await request(input, {
    dispatcher,
    method: (init.method ?? 'GET').toUpperCase() as Dispatcher.HttpMethod,
    headers: headerList(init.headers),
    body,
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const status = res.statusCode;
  const headers = responseHeaders(res.headers);
  if (NOT_RETRIED.has(status) && !headers.has('x-should-retry')) headers.set('x-should-retry', 'false');
  return {
    ok: status >= 200 && status < 300,
    status,
    statusText: '',
    headers,
    url: String(input),
    redirected: false,
    type: 'basic',
    body: res.body,
    get bodyUsed() {
      return res.body.bodyUsed;
    },
    text: () => res.body.text(),
    json: () => res.body.json(),
    arrayBuffer: () => res.body.arrayBuffer(),
    blob: () => res.body.blob(),
  } as unknown as Response;
};

/**
 * Node's own `fetch` for what `request` cannot send: its FormData, Blob and web streams are the
 * global classes the SDK builds (npm undici's fetch would not recognize Node's FormData).
 */
function viaFetch(input: Parameters<typeof fetch>[0], init: FetchInit): Promise<Response> {
  return globalThis.fetch(input, init);
}

/**
 * Drop a response's body without reading it, on either kind of body: undici's Node stream is
 * drained by its `dump()` (up to 128 KiB, then closed; the connection stays reusable), a web
 * stream is cancelled. Never rejects. Do not `destroy()` an undici body nobody listens to: it
 * emits an `error` (RequestAbortedError) that, unheard, ends the process.
 */
export async function discardBody(res: Response): Promise<void> {
  const body = res.body as unknown as { dump?: () => Promise<void>; cancel?: () => Promise<void> } | null;
  try {
    if (typeof body?.dump === 'function') await body.dump();
    else if (typeof body?.cancel === 'function') await body.cancel();
  } catch {
    // nothing to keep from a body being dropped
  }
}
