/**
 * The `webhook` field of a turn, schedule or workflow request: `{url, events?}`. `events` picks
 * which events are delivered (default: all of the subject — for turns and the turns a schedule
 * fires the three `turn.*` terminal events and `job.waiting_on_user` / `job.waiting_on_approval` of
 * the background jobs they create; `workflow.*` for a workflow); each kind accepts only its own. The URL must be an absolute http(s) URL without credentials
 * or a `#fragment` whose host passes the webhook address policy (./sender.ts) — checked at creation so a bad
 * target is a 400 naming the reason, not a delivery that can never succeed.
 */
import { z } from 'zod';
import { hideFragment, redactUserinfo, webhookUrlProblem } from '../config.js';
import { HttpError } from '../http/errors.js';
import { addressPhrase } from '../tools/web/address-policy.js';
import { checkTarget, FetchTargetError, systemResolver, type HostResolver } from '../tools/web/target-guard.js';

/**
 * Event types a webhook can receive: a turn's terminal events, a background job's waits for a
 * person (./job-webhooks.ts; sent to the webhook of the turn that created the job), and a
 * workflow's terminal events.
 */
export const WEBHOOK_EVENT_TYPES = ['turn.completed', 'turn.failed', 'turn.cancelled', 'job.waiting_on_user', 'job.waiting_on_approval', 'workflow.completed', 'workflow.failed', 'workflow.cancelled'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
/** A background job's waits for a person: an answer (`waiting_on_user`) or approvals (`waiting_on_approval`). */
export const JOB_WEBHOOK_EVENTS: readonly WebhookEventType[] = ['job.waiting_on_user', 'job.waiting_on_approval'];
const TURN_EVENTS = ['turn.completed', 'turn.failed', 'turn.cancelled', 'job.waiting_on_user', 'job.waiting_on_approval'] as const satisfies readonly WebhookEventType[];
const WORKFLOW_EVENTS = ['workflow.completed', 'workflow.failed', 'workflow.cancelled'] as const satisfies readonly WebhookEventType[];
/** The events a turn's webhook (also a schedule's, for the turns it fires) can be sent: its terminal events and those of the jobs it creates that wait for a person. */
export const TURN_WEBHOOK_EVENTS: readonly WebhookEventType[] = TURN_EVENTS;
/** The events a workflow's webhook can be sent. */
export const WORKFLOW_WEBHOOK_EVENTS: readonly WebhookEventType[] = WORKFLOW_EVENTS;

/**
 * `{url, events?}` for a subject whose terminal events are `events`: any other type in `events`
 * (one that can never fire for this subject, e.g. `workflow.completed` on a turn) is a 400
 * `invalid_request` whose message names the types this kind of webhook can have.
 */
function webhookSpecSchema<E extends readonly [WebhookEventType, ...WebhookEventType[]]>(events: E, subject: string) {
  const accepted = events.join('|');
  return z.strictObject({
    url: z.string().min(1).max(2048),
    events: z
      .array(z.enum(events, { error: (iss) => `must be one of ${accepted} (the events a ${subject} webhook can have), got ${JSON.stringify(iss.input)}` }))
      .min(1)
      .refine((a) => new Set(a).size === a.length, { error: (iss) => `must not repeat a type, got ${repeated(iss.input as string[])} more than once` })
      .optional(),
  });
}

/** The first type `events` lists twice, as JSON (`"turn.failed"`). */
function repeated(events: string[]): string {
  return JSON.stringify(events.find((e, i) => events.indexOf(e) !== i));
}

/** The `webhook` field of a turn or schedule request: `turn.*` events and `job.waiting_on_*`. */
export const TurnWebhookSpecSchema = webhookSpecSchema(TURN_EVENTS, 'turn');
/** The `webhook` field of a workflow request: only `workflow.*` events. */
export const WorkflowWebhookSpecSchema = webhookSpecSchema(WORKFLOW_EVENTS, 'workflow');

/** A stored webhook subscription (either kind). */
export interface WebhookSpec {
  url: string;
  events?: WebhookEventType[];
}

/** The address policy of webhook targets from the config (WEBHOOK_SECRET, WEBHOOK_ALLOW_HOSTS, system DNS). */
export function webhookPolicy(config: { WEBHOOK_SECRET?: string; WEBHOOK_ALLOW_HOSTS: readonly string[] }) {
  return { secret: config.WEBHOOK_SECRET, allowHosts: config.WEBHOOK_ALLOW_HOSTS, resolver: systemResolver };
}

/**
 * Why the service-wide WEBHOOK_URL can never be delivered to, for the start-up check: its host is
 * (or resolves to) a private, loopback, link-local or metadata address and is not listed in
 * `allowHosts` (WEBHOOK_ALLOW_HOSTS as given; entries are trimmed and compared without case).
 * @returns one config report line naming the host, the address, the reason and WEBHOOK_ALLOW_HOSTS
 *   (`WEBHOOK_URL: 127.0.0.1 is a loopback address — webhooks only reach public addresses: add
 *   127.0.0.1 to WEBHOOK_ALLOW_HOSTS to deliver to it, or use a public URL`), or null when it may
 *   be delivered to, when `url` is not an http(s) URL (the config reports that itself) or when the
 *   host does not resolve now (a receiver that is not up yet; each delivery checks again).
 */
export async function webhookUrlRefusal(url: string | undefined, allowHosts: readonly string[], resolver: HostResolver = systemResolver): Promise<string | null> {
  if (url === undefined || url.trim() === '' || webhookUrlProblem(url.trim()) !== null) return null;
  const target = new URL(url.trim());
  try {
    await checkTarget(target, resolver, allowHosts);
    return null;
  } catch (err) {
    if (!(err instanceof FetchTargetError) || !err.message.startsWith('refused')) return null;
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const said = err.blocked ? `${err.blocked.shown} is ${addressPhrase(err.blocked.reason, true)}` : err.message;
    return `WEBHOOK_URL: ${said} — webhooks only reach public addresses: add ${host} to WEBHOOK_ALLOW_HOSTS to deliver to it, or use a public URL`;
  }
}

/**
 * Check a webhook target before anything is stored.
 * @throws HttpError 503 `webhooks_not_configured` (no WEBHOOK_SECRET to sign with; details
 *   `{field: "webhook", missing: ["WEBHOOK_SECRET"]}`), 400
 *   `invalid_webhook_url` naming the reason (not absolute, not http(s), credentials, a `#fragment`
 *   — say to remove the `#…` part —, refused or unresolvable host); the URL in the message and
 *   `details.url` has its userinfo redacted (`https://***@host/…`) and a fragment shown as `#…`.
 */
export async function assertWebhookTarget(url: string, opts: { secret: string | undefined; allowHosts: readonly string[]; resolver: HostResolver }): Promise<void> {
  if (!opts.secret) throw new HttpError(503, 'webhooks_not_configured', 'this service has no WEBHOOK_SECRET to sign deliveries with: ask its operator to set WEBHOOK_SECRET, or send the request without `webhook`', { field: 'webhook', missing: ['WEBHOOK_SECRET'] });
  const problem = webhookUrlProblem(url);
  if (problem) throw new HttpError(400, 'invalid_webhook_url', `webhook.url: ${problem}`, { url: hideFragment(redactUserinfo(url)) });
  try {
    await checkTarget(new URL(url), opts.resolver, opts.allowHosts);
  } catch (err) {
    if (!(err instanceof FetchTargetError)) throw err;
    const reason = err.message.replace('refused to fetch', 'refused').replace(' — web_fetch only reaches public internet addresses', '');
    throw new HttpError(400, 'invalid_webhook_url', `webhook.url: ${reason} — webhooks only reach public addresses unless the host is listed in WEBHOOK_ALLOW_HOSTS`, { url: redactUserinfo(url) });
  }
}
