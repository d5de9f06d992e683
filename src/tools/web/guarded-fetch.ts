/**
 * One guarded HTTP GET for web_fetch, with undici:
 * - every hop (the URL and each redirect target) passes the SSRF guard (./target-guard.ts), and the
 *   socket connects to the address that was checked: an undici `Agent` whose `connect.lookup`
 *   answers with the pre-validated address, so no second DNS lookup happens;
 * - at most {@link MAX_REDIRECTS} redirects (301/302/303/307/308), http(s) targets only;
 * - connect timeout and a total timeout (both `timeoutMs`, covering all hops and the body);
 * - the body is streamed (and decompressed: gzip, deflate, br) and cut at `maxBytes` decoded bytes.
 */
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { Agent, request } from 'undici';
import { checkTarget, FetchTargetError, type CheckedTarget, type HostResolver } from './target-guard.js';

export const MAX_REDIRECTS = 5;

/** Options for {@link guardedFetch}. */
export interface GuardedFetchOptions {
  resolver: HostResolver;
  /** WEB_FETCH_ALLOW_HOSTS entries. */
  allowHosts: readonly string[];
  /** Connect timeout and total timeout, ms. */
  timeoutMs: number;
  /** Max decoded body bytes kept; the rest is not read. */
  maxBytes: number;
  /** The call's signal (tool timeout, turn cancel). */
  signal: AbortSignal;
  /** Extra trusted CA certificates (PEM) for HTTPS; default: Node's bundled roots only. */
  ca?: string | string[];
}

/** A completed fetch (any HTTP status). */
export interface FetchedBody {
  /** URL after redirects. */
  finalUrl: string;
  status: number;
  /** Content-Type header value, '' when absent. */
  contentType: string;
  body: Buffer;
  /** True when the body was cut at `maxBytes`. */
  truncated: boolean;
  /** Redirect targets followed, in order. */
  redirects: string[];
}

/** A model-facing fetch failure (timeout, too many redirects, network error, refusal). */
export class FetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchError';
  }
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'Mozilla/5.0 (compatible; turn-service-web-fetch/0.1)';

function pinnedLookup(target: CheckedTarget): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/** Parse and check the scheme of a URL given by the model or a Location header. */
export function parseHttpUrl(raw: string, base?: string): URL {
  let url: URL;
  try {
    url = base === undefined ? new URL(raw) : new URL(raw, base);
  } catch {
    throw new FetchError(`not a valid URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError(`only http and https URLs can be fetched (got ${url.protocol.replace(/:$/, '')})`);
  }
  return url;
}

function decoder(encoding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  const e = encoding.trim().toLowerCase();
  if (e === 'gzip' || e === 'x-gzip') return zlib.createGunzip();
  if (e === 'deflate') return zlib.createInflate();
  if (e === 'br') return zlib.createBrotliDecompress();
  return null;
}

async function readCapped(stream: Readable, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  for await (const chunk of stream) {
    const buf = chunk as Buffer;
    if (size + buf.length > maxBytes) {
      chunks.push(buf.subarray(0, maxBytes - size));
      size = maxBytes;
      truncated = true;
      break;
    }
    chunks.push(buf);
    size += buf.length;
  }
  if (truncated) stream.destroy();
  return { body: Buffer.concat(chunks, size), truncated };
}

/** `promise`, or a rejection as soon as `signal` aborts (DNS lookups cannot be cancelled, only abandoned). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function describeNetworkError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e.cause?.code ?? e.code;
  const msg = e.cause?.message ?? e.message ?? String(err);
  return code ? `${code}: ${msg}` : msg;
}

/**
 * GET `rawUrl` under the rules above.
 * @throws FetchError / FetchTargetError with a model-facing message; rethrows the signal's reason
 *   when `options.signal` (the call's own signal) aborted.
 */
export async function guardedFetch(rawUrl: string, options: GuardedFetchOptions): Promise<FetchedBody> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.signal, deadline]);
  const redirects: string[] = [];
  let url = parseHttpUrl(rawUrl);
  for (;;) {
    const target = await untilAborted(checkTarget(url, options.resolver, options.allowHosts), signal).catch((err: unknown) => {
      if (options.signal.aborted) throw options.signal.reason;
      if (deadline.aborted) throw new FetchError(`timed out after ${options.timeoutMs / 1000} s (resolving ${url.hostname})`);
      throw err;
    });
    const agent = new Agent({
      connect: { lookup: pinnedLookup(target), timeout: options.timeoutMs, ...(options.ca ? { ca: options.ca } : {}) },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    try {
      const res = await request(url, {
        method: 'GET',
        dispatcher: agent,
        signal,
        headers: {
          'user-agent': USER_AGENT,
          accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
      });
      const location = res.headers.location;
      if (REDIRECT.has(res.statusCode) && location !== undefined) {
        await res.body.dump();
        if (redirects.length >= MAX_REDIRECTS) {
          throw new FetchError(`too many redirects (more than ${MAX_REDIRECTS}); last target ${String(location)}`);
        }
        url = parseHttpUrl(Array.isArray(location) ? location[0] : location, url.href);
        redirects.push(url.href);
        continue;
      }
      const contentType = String(res.headers['content-type'] ?? '');
      const encoding = String(res.headers['content-encoding'] ?? '');
      const unzip = decoder(encoding);
      const stream: Readable = unzip ? res.body.pipe(unzip) : res.body;
      if (unzip) res.body.on('error', (err) => unzip.destroy(err));
      const { body, truncated } = await readCapped(stream, options.maxBytes);
      if (truncated) res.body.destroy();
      return { finalUrl: url.href, status: res.statusCode, contentType, body, truncated, redirects };
    } catch (err) {
      if (err instanceof FetchError || err instanceof FetchTargetError) throw err;
      if (options.signal.aborted) throw options.signal.reason;
      if (deadline.aborted) throw new FetchError(`timed out after ${options.timeoutMs / 1000} s`);
      const text = describeNetworkError(err);
      if (/timeout/i.test(text)) throw new FetchError(`timed out after ${options.timeoutMs / 1000} s (${text})`);
      throw new FetchError(`request failed: ${text}`);
    } finally {
      agent.destroy().catch(() => undefined);
    }
  }
}
