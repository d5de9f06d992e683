/**
 * One webhook delivery attempt, per Standard Webhooks (https://www.standardwebhooks.com/): a POST
 * of the JSON payload with `webhook-id` (the message id, the same on every retry),
 * `webhook-timestamp` (seconds, this attempt) and `webhook-signature: v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">` made with WEBHOOK_SECRET by the reference `standardwebhooks` library,
 * so a receiver verifies with the same library (and a second one made with WEBHOOK_SECRET_PREVIOUS
 * when set, space-separated).
 *
 * The target passes the same address policy as web_fetch (src/tools/web/target-guard.ts: private,
 * loopback, link-local, metadata… refused unless the host is in WEBHOOK_ALLOW_HOSTS), checked again
 * at every attempt, and the socket connects to the checked address (no second DNS answer can
 * redirect it). Redirects are not followed: a 3xx is a failure whose reason names the Location
 * and says to configure the final URL. 2xx is success; HTTP 410 Gone (RFC 9110 §15.5.11: gone
 * for good) is a permanent failure, never retried; anything else, a timeout or a connection error
 * is a failure with a reason, retried.
 */
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { checkTarget, type CheckedTarget, type HostResolver } from '../tools/web/target-guard.js';
import { redactUserinfo } from '../config.js';
import { quoteForDisplayClipped } from '../unsafe-chars.js';

export interface SendOptions {
  secret: string;
  /** A second secret to sign with while receivers switch (WEBHOOK_SECRET_PREVIOUS). */
  previousSecret?: string;
  allowHosts: readonly string[];
  resolver: HostResolver;
  timeoutMs: number;
  /** Aborts the attempt (service shutdown); it is then a failure, retried after the restart. */
  signal?: AbortSignal;
}

export interface SendResult {
  status: number | null;
  /** Null on success. */
  error: string | null;
  /** The receiver refused for good (HTTP 410 Gone): no further attempt. */
  permanent?: boolean;
}

const USER_AGENT = 'turn-service-webhooks/0.1';

function pinnedLookup(target: CheckedTarget): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

/**
 * The three Standard Webhooks headers for one attempt. With `previousSecret` (WEBHOOK_SECRET_PREVIOUS,
 * during a rotation) `webhook-signature` carries one `v1,` signature per secret, space-separated
 * (current first), as the specification allows: a receiver verifies with either secret.
 */
export function signedHeaders(secret: string, messageId: string, at: Date, body: string, previousSecret?: string): Record<string, string> {
  const secrets = previousSecret && previousSecret !== secret ? [secret, previousSecret] : [secret];
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(messageId, at, body)).join(' '),
  };
}

/** Send one attempt. Never throws. */
export async function sendWebhook(url: string, messageId: string, body: string, opts: SendOptions): Promise<SendResult> {
  let target: CheckedTarget;
  try {
    target = await checkTarget(new URL(url), opts.resolver, opts.allowHosts);
  } catch (err) {
    // A refused address names the way out, as the 400 at creation does.
    return {
      status: null,
      error: (err as Error).message
        .replace('refused to fetch', 'refused to deliver to')
        .replace('web_fetch only reaches public internet addresses', 'webhooks only reach public internet addresses unless the host is listed in WEBHOOK_ALLOW_HOSTS'),
    };
  }
  const agent = new Agent({ connect: { lookup: pinnedLookup(target), timeout: opts.timeoutMs } });
  try {
    const res = await request(url, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signedHeaders(opts.secret, messageId, new Date(), body, opts.previousSecret) },
      body,
      signal: opts.signal ? AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]) : AbortSignal.timeout(opts.timeoutMs),
    });
    await res.body.dump().catch(() => undefined);
    if (res.statusCode >= 200 && res.statusCode < 300) return { status: res.statusCode, error: null };
    if (res.statusCode === 410) {
      return { status: 410, error: 'the receiver answered HTTP 410 Gone: the URL no longer takes deliveries; not retried', permanent: true };
    }
    if (res.statusCode >= 300 && res.statusCode < 400) {
      const location = typeof res.headers.location === 'string' ? res.headers.location : undefined;
      const to = location === undefined ? '' : ` to ${quoteForDisplayClipped(redactUserinfo(location), 200)}`;
      return { status: res.statusCode, error: `the receiver answered HTTP ${res.statusCode} (a redirect${to}): redirects are not followed — configure the final URL as the webhook URL` };
    }
    return { status: res.statusCode, error: `the receiver answered HTTP ${res.statusCode}` };
  } catch (err) {
    const e = err as Error & { code?: string };
    if (opts.signal?.aborted) return { status: null, error: 'the service shut down during the attempt' };
    if (e.name === 'TimeoutError' || e.code === 'UND_ERR_CONNECT_TIMEOUT') return { status: null, error: `no answer within ${opts.timeoutMs} ms` };
    const cause = (e.cause as { code?: string } | undefined)?.code ?? e.code;
    return { status: null, error: `could not deliver: ${cause ? `${cause} ` : ''}${e.message}`.trim() };
  } finally {
    void agent.close();
  }
}
