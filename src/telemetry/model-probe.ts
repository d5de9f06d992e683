/**
 * Reachability probe of the model endpoint for GET /readyz: `GET <base URL>/models` on the model
 * clients' HTTP stack (src/model/model-fetch.ts), with the API key as turns send it. An answer
 * means reachable (also 404: some servers have no /models; also 403: a key restricted to some
 * endpoints, such as an OpenAI restricted key without the Models permission, gets it on /models
 * while its turns run), except 401 (`rejected`: the key is refused, so every turn would fail; the
 * reason names the endpoint and the status and says to check OPENAI_API_KEY, never showing the key), a 2xx HTML page (`not_api`: a web site,
 * not the API; the reason says to check OPENAI_BASE_URL, adding that it usually ends in /v1 when
 * its path does not: {@link baseUrlHint}) and a 403 HTML
 * page (`not_api` too: a firewall's or proxy's block page, or a web site — the API answers its 403
 * in JSON; the reason also says to check that this host is let through). A 2xx or 403 HTML page is
 * one sent as an HTML type (provider-text.ts `isHtmlMediaType`: text/html, application/xhtml+xml),
 * or one sent as another type that is not JSON (text/plain, none…) whose
 * first KiB starts as an HTML page does (`<!doctype html`, `<html`, `<title>`… after white space
 * and comments: provider-text.ts `looksLikeHtml`, as provider error pages are told); the reason
 * then names the type it came as. A connection
 * failure, a timeout or a proxy's 407 (Proxy Authentication Required, RFC 9110 §15.5.8: the
 * request never reached the endpoint) means `unreachable`. The
 * result is cached for `ttlMs` (concurrent checks share one request), so readiness polling never
 * floods the provider. The reason of an unreachable endpoint names it and the cause, and says what
 * to check (OPENAI_BASE_URL, whether the model server runs); one that accepts the connection and
 * closes it before answering is said to do so (model-error.ts `closedBeforeAnswering`), and one that
 * answers in another protocol than HTTP too (`answeredNotHttp`).
 */
import { answeredNotHttp, basePathEndsInV1, CLOSED_HINT, closedBeforeAnswering, CONNECTION_HINT, connectionCause, endpointForDisplay, NOT_HTTP_HINT } from '../model/model-error.js';
import { discardBody, modelFetch } from '../model/model-fetch.js';
import { isHtmlMediaType, looksLikeHtml } from '../model/provider-text.js';

/** A JSON content type (`application/json`, `…+json`): an API's answer, never sniffed. */
const JSON_TYPE = /^\s*[\w.+-]+\/([\w.-]+\+)?json\b/i;

/** Bytes of a body read to sniff it (the rest is dropped unread). */
const SNIFF_BYTES = 1024;

/**
 * The first `max` bytes of `res`'s body as UTF-8 (fewer when it ends, breaks off or the request's
 * signal fires: what came is kept), then the rest is dropped unread: an undici Node stream (what
 * modelFetch gives a GET) is paused and handed to {@link discardBody}, a web stream is cancelled.
 */
async function bodyStart(res: Response, max: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const body = res.body as unknown as (ReadableStream<Uint8Array> & NodeJS.ReadableStream) | null;
  if (body === null) return '';
  if (typeof body.getReader === 'function') {
    const reader = body.getReader();
    try {
      while (size < max) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        size += value.byteLength;
      }
    } catch {
      // a body that breaks off or times out: sniff what came
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  } else {
    // Listened to throughout (an undici body's unheard error would end the process), then drained by discardBody.
    await new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.byteLength;
        if (size >= max) stop();
      };
      const stop = () => {
        body.pause();
        body.off('data', onData).off('end', stop).off('error', stop);
        resolve();
      };
      body.on('data', onData).once('end', stop).once('error', stop);
    });
    await discardBody(res);
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

/** Why a probe found the endpoint not ready: the value of `checks.model` in /readyz's 503. */
export type ProbeFailure = 'unreachable' | 'rejected' | 'not_api';

export type ProbeResult = { reachable: true } | { reachable: false; check: ProbeFailure; reason: string };

export interface ModelProbe {
  readonly baseURL: string;
  check(): Promise<ProbeResult>;
}

/**
 * `GET /models` of the endpoint at `baseURL`: `/models` added to its path, its query (an Azure-style
 * `?api-version=…` or `?api-key=…`) kept after it, as the openai SDK adds a request's path to a
 * base URL that has one.
 */
export function modelsURL(baseURL: string): string {
  try {
    const u = new URL(baseURL);
    u.pathname = `${u.pathname.replace(/\/+$/, '')}/models`;
    return u.href;
  } catch {
    return `${baseURL.replace(/\/+$/, '')}/models`; // not a URL: the fetch says so
  }
}

/**
 * What a `not_api` reason says of OPENAI_BASE_URL `baseURL`: `check OPENAI_BASE_URL`, plus `, which
 * usually ends in /v1` when its path does not end in `/v1` (a trailing slash ignored).
 */
export function baseUrlHint(baseURL: string): string {
  return basePathEndsInV1(baseURL) ? 'check OPENAI_BASE_URL' : 'check OPENAI_BASE_URL, which usually ends in /v1';
}

/**
 * The probe of the model endpoint at `baseURL`, sending `apiKey` (when set) as a bearer token.
 * See the file's comment for what each answer means.
 */
export function createModelProbe(baseURL: string, opts: { ttlMs?: number; timeoutMs?: number; apiKey?: string } = {}): ModelProbe {
  const ttl = opts.ttlMs ?? 15_000;
  const timeout = opts.timeoutMs ?? 3_000;
  let cached: { at: number; result: Promise<ProbeResult> } | undefined;
  const probe = async (): Promise<ProbeResult> => {
    try {
      // The model clients' own HTTP stack (model-fetch.ts), so readiness sees what turns see.
      const res = await modelFetch(modelsURL(baseURL), {
        signal: AbortSignal.timeout(timeout),
        ...(opts.apiKey ? { headers: { authorization: `Bearer ${opts.apiKey}` } } : {}),
      });
      const type = res.headers.get('content-type') ?? '';
      // Only the status, the content type and, of a 2xx or 403 not declared HTML or JSON, the start of the body matter.
      const html = isHtmlMediaType(type);
      const sniff = (res.ok || res.status === 403) && !html && !JSON_TYPE.test(type);
      const sniffed = sniff && looksLikeHtml(await bodyStart(res, SNIFF_BYTES));
      if (!sniff) await discardBody(res);
      const where = `the model endpoint ${endpointForDisplay(baseURL)}`;
      if (res.status === 401) {
        const why = opts.apiKey ? 'it refuses the API key, so every turn would fail; check OPENAI_API_KEY' : 'it needs an API key and OPENAI_API_KEY is not set, so every turn would fail; set OPENAI_API_KEY';
        return { reachable: false, check: 'rejected', reason: `${where} answered HTTP ${res.status} to GET /models: ${why}` };
      }
      if (res.status === 407) {
        const reason = `a proxy between this host and ${where} answered HTTP 407 (Proxy Authentication Required) to GET /models: no turn would reach the model; let this host through the proxy, or give it the proxy's credentials`;
        return { reachable: false, check: 'unreachable', reason };
      }
      if ((res.ok || res.status === 403) && (html || sniffed)) {
        const declared = type.split(';')[0].trim();
        const sent = html ? declared.toLowerCase() : declared ? `an HTML page sent as ${declared}` : 'an HTML page sent without a content type';
        const page = `${where} answers GET /models with a web page (HTTP ${res.status}, ${sent}), not the API`;
        const reason = res.ok
          ? `${page}: ${baseUrlHint(baseURL)}`
          : `${page} — a firewall's or proxy's block page, or a web site: ${baseUrlHint(baseURL)}, and that this host is let through to it`;
        return { reachable: false, check: 'not_api', reason };
      }
      return { reachable: true };
    } catch (err) {
      const e = err as Error;
      const cause = e.name === 'TimeoutError' ? `no answer within ${timeout} ms` : (connectionCause(err) ?? e.message);
      const where = `the model endpoint ${endpointForDisplay(baseURL)}`;
      if (answeredNotHttp(err)) return { reachable: false, check: 'unreachable', reason: `${where} answered with something that is not HTTP (${cause}): ${NOT_HTTP_HINT}` };
      if (closedBeforeAnswering(cause)) return { reachable: false, check: 'unreachable', reason: `${where} accepted the connection and closed it before answering (${cause}): ${CLOSED_HINT}` };
      return { reachable: false, check: 'unreachable', reason: `cannot reach ${where} (${cause}): ${CONNECTION_HINT}` };
    }
  };
  return {
    baseURL,
    check() {
      if (!cached || Date.now() - cached.at > ttl) cached = { at: Date.now(), result: probe() };
      return cached.result;
    },
  };
}
