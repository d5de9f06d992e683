/**
 * Configuration: environment variables → typed, validated {@link Config}, read once at start.
 * Every variable is listed in README.md ("Configuration"); keep the two in step.
 * Invalid values throw {@link ConfigError} with one line per bad variable.
 */
import path from 'node:path';
import { z } from 'zod';
import { CHAT_FEATURE_NAMES, type ChatFeatureName } from './model/chat-request.js';
import { parseApprovalPolicy } from './turns/approvals/policy.js';
import { credentialParamValues } from './url-credentials.js';
import { hostListProblems, hostUnresolvedProblem, isLoopbackHost, type HostEntryRules } from './host-entries.js';
import { MAX_QUOTED_CHARS, quoteForDisplay, settingForDisplay } from './unsafe-chars.js';
import { MODEL_VARIABLE_RULE } from './model/model-name.js';
import { nameCheck } from './name-check.js';

export { hostLookupFailure, hostUnresolvedProblem, isLoopbackHost } from './host-entries.js';

const csv = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean));

/**
 * Why `entry` of CORS_ORIGINS is not a bare http(s) origin (`https://app.example.com`,
 * `http://localhost:5173`: scheme, host and port only), or undefined when it is. A wildcard is
 * named as such: CORS_ORIGINS lists origins one by one, `*` is not supported.
 */
export function corsOriginProblem(entry: string): string | undefined {
  const example = 'an origin like https://app.example.com or http://localhost:5173 (scheme, host and port only)';
  if (entry.includes('*')) return `${quoteForDisplay(entry)} is a wildcard: CORS_ORIGINS lists each allowed origin, as ${example}; wildcards are not supported`;
  let url: URL | undefined;
  try {
    url = new URL(entry);
  } catch {
    url = undefined;
  }
  const bare = url && (url.protocol === 'http:' || url.protocol === 'https:') && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  return bare ? undefined : `${quoteForDisplay(entry)} is not ${example}`;
}

/**
 * An integer variable from `min` to `max` (default `def`), written in plain decimal digits with
 * an optional `-`: `1000`, not `1e3`, `0x3e8`, `1000.0` or `+1000` (refused in words, although
 * they are numbers). Digits beyond the range (however many) are refused by the range.
 */
/**
 * A comma-separated host list (src/host-entries.ts): entries trimmed; unset → `[]`. Empty or
 * malformed entries are refused in one problem line (each entry quoted, `; ` between them).
 */
const hostList = (rules: HostEntryRules) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return [];
      const problems = hostListProblems(v, rules);
      if (problems.length === 0) return v.split(',').map((e) => e.trim());
      ctx.addIssue({ code: 'custom', message: problems.join('; ') });
      return z.NEVER;
    });

const int = (def: number, min: number, max: number) => {
  const range = `must be an integer from ${min} to ${max}`;
  return z
    .string()
    .transform((v, ctx) => {
      if (/^-?\d+$/.test(v)) return Number(v);
      const numeric = v !== '' && Number.isFinite(Number(v));
      ctx.addIssue({ code: 'custom', message: numeric ? `${range}, written in plain decimal digits (no exponent, +, decimal point or hex)` : range });
      return z.NEVER;
    })
    .pipe(z.number().min(min, { error: range }).max(max, { error: range }))
    .default(def);
};

const onOff = (def: 'on' | 'off') => z.enum(['on', 'off']).default(def);

/** What a URL setting must be. */
const ABSOLUTE_URL = 'must be an absolute URL such as https://example.com/v1';
/** Characters no URL setting holds: white space and control characters (a key pasted after the URL, a line break). */
const NOT_IN_URL = /[\u0000-\u0020\u007F-\u009F]/;
/**
 * `host:port[/path]` whose host is `localhost`, an IPv4 address or a dotted name: a URL whose
 * `http://` was left out (a key does not look like this), which a refusal may repeat.
 */
const HOST_PORT = /^(localhost|\d{1,3}(\.\d{1,3}){3}|[a-z0-9-]+(\.[a-z0-9-]+)+):\d{1,5}(\/[^?#]*)?$/i;

/**
 * Whether a URL setting's value `v` (trimmed) may be shown in a refusal (through `urlForReport`,
 * credentials hidden): an absolute URL written with `scheme://` and nothing a URL does not hold
 * ({@link NOT_IN_URL}), or a {@link HOST_PORT} its scheme was left out of. Anything else — no URL,
 * `https:sk-…`, `team:sk-…`, a URL with a key pasted after a space — may be a key put in the
 * wrong variable, and is named by its length only ({@link notAUrlShown}).
 */
export function urlValueShowable(v: string): boolean {
  if (NOT_IN_URL.test(v)) return false;
  if (HOST_PORT.test(v)) return true;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(v) && URL.canParse(v);
}

/**
 * An absolute http(s) URL (WHATWG parse; every URL setting is reached over HTTP: the model, search,
 * OTLP endpoints), refused in plain words rather than zod's `Invalid URL` ({@link urlSettingProblem}).
 * A `#fragment` is refused in every one: it is never sent in a request. With `base`, the URL is one
 * the service appends a path to, and the refusal says the path would go after the `#`.
 */
const url = (options: { base?: boolean } = {}) =>
  z
    .string()
    .url({ error: ABSOLUTE_URL })
    .superRefine((v, ctx) => {
      const problem = urlSettingProblem(v, options.base === true);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    });

/**
 * Why `v` (a URL setting's value, trimmed) cannot be used beyond not being a URL at all (zod's
 * `.url()` reports that one), or undefined; the URL is parsed once.
 * - Not http(s): `must be an http:// or https:// URL, got ftp://…`, or for `localhost:8000/v1`
 *   (parsed as scheme `localhost:`) `… the scheme is missing (did you mean http://localhost:8000/v1?)`.
 * - A `#fragment` — even an empty one, a bare `#` — which is never sent (WHATWG URL standard).
 *   With `base` (OPENAI_BASE_URL gets `/responses` or `/chat/completions`, WEB_SEARCH_URL the
 *   provider's search path, OTEL_EXPORTER_OTLP_ENDPOINT `/v1/traces`) the path would land after
 *   it and every request would go to the bare base path (a 404): `must not have a #fragment
 *   (found "#" and 1 character after it): the path the service appends would go after it and
 *   never be sent; remove the #… part, as in http://127.0.0.1:9/v1`; without (the full
 *   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) `…: it is never sent in a request; remove the #… part, as
 *   in …` ({@link fragmentProblem}). A query string stays allowed (Azure OpenAI needs
 *   `?api-version=`).
 */
function urlSettingProblem(v: string, base: boolean): string | undefined {
  // `https://api.example/v1 sk-…`: the URL parser would take the space into the path (as %20).
  if (NOT_IN_URL.test(v)) return 'must be one URL, without spaces or control characters: a key or token goes in its own variable (e.g. OPENAI_API_KEY)';
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return undefined;
  }
  const slashes = v.slice(v.indexOf(':') + 1).startsWith('//');
  if (!/^https?:$/.test(u.protocol)) {
    // `localhost:8000/v1` parses as scheme `localhost:`: the scheme was left out. Suggested only
    // for a host and port (`team:sk-…` parses alike, and is no URL to repeat).
    if (!slashes) return HOST_PORT.test(v) ? `must be an http:// or https:// URL: the scheme is missing (did you mean http://${v}?)` : ABSOLUTE_URL;
    return `must be an http:// or https:// URL, got ${u.protocol}//…`;
  }
  // `https:sk-…` parses with `sk-…` as its host: a URL setting is written with its `//`.
  if (!slashes) return `${ABSOLUTE_URL} (written with // after the scheme)`;
  return fragmentProblem(v, base ? 'the path the service appends would go after it and never be sent' : 'it is never sent in a request', urlForReport);
}

/**
 * Why http(s) URL `url` must not have its `#fragment`, or undefined when it has none: `must not
 * have a #fragment (found "#" and 3 characters after it): <why>; remove the #… part, as in
 * <url without it>`. The fragment itself is never shown — it may hold a credential (`#api-key=…`)
 * in a form no redaction knows — and the URL before it is shown through `show` (one that hides
 * userinfo and credential parameters).
 */
export function fragmentProblem(url: string, why: string, show: (url: string) => string): string | undefined {
  const at = url.indexOf('#');
  if (at < 0) return undefined;
  const n = url.length - at - 1;
  return `must not have a #fragment (found "#" and ${n} character${n === 1 ? '' : 's'} after it): ${why}; remove the #… part, as in ${show(url.slice(0, at))}`;
}

/** Fewest characters of a bearer token or shared secret (AUTH_TOKENS entries, METRICS_TOKEN, STREAM_TOKEN_SECRET). */
const MIN_TOKEN_CHARS = 16;

/** A shared secret of 16+ characters; the refusal never repeats it (the variable is in SECRET_VARS). */
const secret16 = () => z.string().min(MIN_TOKEN_CHARS, { error: `must be at least ${MIN_TOKEN_CHARS} characters (a random string; the value is not shown)` });

/** RFC 6750 §2.1 b64token: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Why `token` (one bearer token of AUTH_TOKENS or METRICS_TOKEN, trimmed) cannot be sent by a
 * client as `Authorization: Bearer <token>`, as a phrase to follow the token's name (`token 2 of
 * 3`, `the token`), or undefined when it can. A bearer token must be an RFC 6750 §2.1 b64token
 * (`1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`): a control character makes
 * the request a 400, a non-ASCII one cannot be written in a header by most clients, and quotes an
 * env file left around it are not part of what clients are given. The phrase names the kind of
 * character (control, non-ASCII, space, quote or other), the characters allowed and how to make a
 * token; a token starting or ending with a quote gets the hint to remove the quotes. It never holds
 * the token or any character of it.
 */
export function bearerTokenProblem(token: string): string | undefined {
  if (B64TOKEN.test(token)) return undefined;
  const allowed = 'a bearer token may hold only letters A-Z and a-z, digits and - . _ ~ + /, with = only at the end (an RFC 6750 §2.1 b64token); make one with openssl rand -hex 32 (the value is not shown)';
  if (/^["']|["']$/.test(token)) return `starts or ends with a quote, which an env file read without a shell keeps: remove the quotes (${allowed})`;
  const bad = [...token].find((c) => !/[A-Za-z0-9\-._~+/=]/.test(c));
  const what =
    bad === undefined
      ? /^=+$/.test(token)
        ? 'is nothing but ='
        : 'has an = before its end'
      : /[\u0000-\u001F\u007F]/.test(bad)
        ? 'has a control character'
        : bad.codePointAt(0)! > 0x7f
          ? 'has a non-ASCII character'
          : bad === ' '
            ? 'has a space'
            : bad === '"' || bad === "'"
              ? 'has a quote'
              : 'has a punctuation character other than - . _ ~ + / =';
  return `${what}: ${allowed}`;
}

/** Bearer-token problems of `tokens` as one line each, naming a token by position (`token 2 of 3`, `the token` when alone): {@link bearerTokenProblem}, else shorter than {@link MIN_TOKEN_CHARS}. */
function bearerTokensProblems(tokens: string[]): string[] {
  const out: string[] = [];
  tokens.forEach((t, i) => {
    const which = tokens.length === 1 ? 'the token' : `token ${i + 1} of ${tokens.length}`;
    const problem = bearerTokenProblem(t);
    if (problem !== undefined) out.push(`${which} ${problem}`);
    else if (t.length < MIN_TOKEN_CHARS) out.push(`${which} is shorter than ${MIN_TOKEN_CHARS} characters: use random strings of ${MIN_TOKEN_CHARS}+ characters each (e.g. openssl rand -hex 32; the value is not shown)`);
  });
  return out;
}

/** Wire protocols a model endpoint can be spoken to in (README "Model endpoints"). */
export const MODEL_APIS = ['responses', 'chat'] as const;
export type ModelApi = (typeof MODEL_APIS)[number];

/**
 * What each WEB_SEARCH_PROVIDER needs besides its name (README "Web tools"), and the hint of the
 * start-up refusal when it is missing: brave and tavily a key (their APIs have a default base
 * URL), searxng the base URL of the instance (there is no public default).
 */
export const WEB_SEARCH_NEEDS = {
  brave: { variable: 'WEB_SEARCH_API_KEY', hint: 'set it to your Brave Search API key' },
  tavily: { variable: 'WEB_SEARCH_API_KEY', hint: 'set it to your Tavily API key' },
  searxng: { variable: 'WEB_SEARCH_URL', hint: 'set it to the base URL of your SearXNG instance (with the json format enabled)' },
} as const satisfies Record<string, { variable: 'WEB_SEARCH_API_KEY' | 'WEB_SEARCH_URL'; hint: string }>;

export const TOOL_FAMILIES = ['todo', 'computer', 'web', 'schedule', 'workflow', 'clarify', 'jobs'] as const;
export type ToolFamily = (typeof TOOL_FAMILIES)[number];

/** The port the service listens on when PORT is unset (README "Configuration"). */
export const DEFAULT_PORT = 8787;
/** The address the service binds when HOST is unset: loopback only (README "Configuration"). */
export const DEFAULT_HOST = '127.0.0.1';

/**
 * The OTEL_TRACES_SAMPLER values this service takes: the SDK environment variable spec's built-in
 * samplers (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/#general-sdk-configuration)
 * but `jaeger_remote`, `parentbased_jaeger_remote` and `xray`, which need components it does not have.
 */
export const TRACES_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TracesSampler = (typeof TRACES_SAMPLERS)[number];

/** The OTLP transports this service sends (OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL); the first is its default. */
export const OTLP_PROTOCOLS = ['http/json', 'http/protobuf'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/**
 * Why an OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL value cannot be used, or undefined for `http/json`
 * and `http/protobuf`. The spec's values are `grpc`, `http/protobuf` and `http/json`
 * (https://opentelemetry.io/docs/specs/otel/protocol/exporter/#specify-protocol); this service
 * sends OTLP over HTTP only (`@opentelemetry/exporter-trace-otlp-http` for JSON bodies,
 * `@opentelemetry/exporter-trace-otlp-proto` for protobuf bodies), which every OTLP/HTTP receiver
 * (port 4318) takes. Sending it to a gRPC port (4317) loses every span, so `grpc` is refused
 * rather than ignored.
 */
export function otlpProtocolProblem(value: string): string | undefined {
  if ((OTLP_PROTOCOLS as readonly string[]).includes(value)) return undefined;
  return `${value === 'grpc' ? 'grpc is not supported' : 'is not an OTLP protocol (grpc, http/protobuf, http/json)'}: this service sends OTLP over HTTP only (http/json or http/protobuf, to an OTLP/HTTP receiver such as a collector's port 4318); set one of them or leave it unset (http/json)`;
}

const otlpProtocol = () =>
  z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      const problem = v === undefined ? undefined : otlpProtocolProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

/** How to make a Standard Webhooks secret, for the refusals of a bad one. */
const MAKE_WEBHOOK_SECRET = 'make one with whsec_$(openssl rand -base64 32)';

/**
 * What is wrong with a Standard Webhooks secret `v` (`whsec_<base64 of 24..64 random bytes>`), as
 * one phrase saying how to make a good one; undefined when it is good. Never holds the value.
 */
export function webhookSecretProblem(v: string): string | undefined {
  if (!v.startsWith('whsec_')) return `must be whsec_ followed by the base64 of 24..64 random bytes (a Standard Webhooks secret); ${MAKE_WEBHOOK_SECRET}`;
  const key = v.slice(6);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) return `the part after whsec_ must be base64 (A-Z, a-z, 0-9, + and /, = padding at the end) of 24..64 random bytes; ${MAKE_WEBHOOK_SECRET}`;
  const n = Buffer.from(key, 'base64').length;
  if (n < 24 || n > 64) return `the base64 part after whsec_ decodes to ${n} byte${n === 1 ? '' : 's'}; it must decode to 24..64 bytes (${n < 24 ? 'too short to be a safe key' : 'longer than Standard Webhooks allows'}); ${MAKE_WEBHOOK_SECRET}`;
  return undefined;
}

/** A Standard Webhooks signing secret variable, `whsec_<base64 of 24..64 random bytes>`, optional; one problem line when bad ({@link webhookSecretProblem}). */
function webhookSecret() {
  return z
    .string()
    .superRefine((v, ctx) => {
      const problem = webhookSecretProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional();
}

const EnvSchema = z.object({
  // --- server ---
  PORT: int(DEFAULT_PORT, 0, 65535),
  /** An IPv6 address may be written in brackets as in a URL (`[::1]`); it is bound without them. */
  HOST: z.string().min(1).default(DEFAULT_HOST).transform((h) => h.replace(/^\[(.*)\]$/, '$1')),
  DATA_DIR: z.string().min(1).default('./data'),
  /** In any case (`INFO`, `Debug`): read in lower case, pino's level names. */
  LOG_LEVEL: z
    .string()
    .default('info')
    .transform((v) => v.toLowerCase())
    .pipe(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])),
  /**
   * Set to something, it must hold a token: `, ,` would leave the API open while looking protected.
   * Each token has 16+ characters, like METRICS_TOKEN and STREAM_TOKEN_SECRET (a short one is guessable),
   * and is an RFC 6750 §2.1 b64token, like METRICS_TOKEN ({@link bearerTokenProblem}).
   */
  AUTH_TOKENS: z
    .string()
    .optional()
    .refine((v) => v === undefined || v.split(',').some((t) => t.trim() !== ''), { error: 'holds no token (only commas and spaces): give comma-separated bearer tokens, or unset AUTH_TOKENS' })
    .transform((v) => (v ?? '').split(',').map((t) => t.trim()).filter(Boolean))
    .superRefine((tokens, ctx) => {
      for (const message of bearerTokensProblems(tokens)) ctx.addIssue({ code: 'custom', message });
    }),
  /** Host names (besides loopback ones) a request may be addressed to when AUTH_TOKENS is empty. */
  ALLOWED_HOSTS: hostList({ wildcards: false, bracketedIPv6: true }),
  BODY_LIMIT_BYTES: int(1024 * 1024, 1024, 64 * 1024 * 1024),
  /** Ms a client has to send a whole request (headers and body); 408 after (slow or stalled senders). */
  REQUEST_TIMEOUT_MS: int(60_000, 500, 3_600_000),
  MAX_CONCURRENT_TURNS: int(8, 1, 1024),
  /** Ms a runner's claim on a turn lasts without a heartbeat; a turn whose owner died resumes after it. */
  TURN_LEASE_MS: int(30_000, 1000, 3_600_000),
  /** A turn whose same step was cut by this many crashes fails with `crash_loop` instead of resuming. */
  TURN_MAX_CRASHES: int(3, 1, 100),
  SSE_HEARTBEAT_MS: int(15_000, 100, 600_000),
  /** Max events buffered for one slow SSE subscriber before its stream is closed (client resumes). */
  SSE_MAX_BUFFERED_EVENTS: int(10_000, 10, 1_000_000),
  /** Ms an SSE write may wait for a client that stopped reading before its stream is closed. */
  SSE_WRITE_TIMEOUT_MS: int(60_000, 100, 3_600_000),
  // --- model ---
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: url({ base: true }).optional(),
  /** Trimmed like every variable, then checked as a request's `model` is (src/model/model-name.ts). */
  MODEL: z.string().min(1).check(nameCheck('model name', MODEL_VARIABLE_RULE)).optional(),
  MODEL_MAX_RETRIES: int(2, 0, 10),
  /** Max ms without a model stream event (before the first one too); then the request is aborted. */
  MODEL_IDLE_TIMEOUT_MS: int(60_000, 50, 3_600_000),
  /** Max ms for one whole model request. */
  MODEL_REQUEST_TIMEOUT_MS: int(600_000, 100, 86_400_000),
  /** `responses` (POST /responses) or `chat` (POST /chat/completions); a request's `model_api` wins. */
  MODEL_API: z.enum(MODEL_APIS).default('responses'),
  /** What a Chat Completions server accepts beyond the core (src/model/chat-request.ts). */
  MODEL_CHAT_FEATURES: csv.pipe(z.array(z.enum(Object.keys(CHAT_FEATURE_NAMES) as [ChatFeatureName, ...ChatFeatureName[]]))),
  /** Default families assembled when a request names none. */
  DEFAULT_TOOLS: csv.pipe(z.array(z.enum(TOOL_FAMILIES))).optional(),
  MAX_STEPS: int(20, 1, 500),
  /** Events stored per turn after which text deltas are dropped (message.completed keeps the text). */
  MAX_EVENTS_PER_TURN: int(20_000, 100, 10_000_000),
  TOOL_TIMEOUT_MS: int(120_000, 100, 3_600_000),
  PARALLEL_TOOL_LIMIT: int(4, 1, 64),
  MAX_TOOL_CALLS_PER_RESPONSE: int(64, 1, 10_000),
  /** Characters of output one tool call gives the model at most (every tool; see README). */
  TOOL_OUTPUT_MAX_CHARS: int(50_000, 1_000, 10_000_000),
  TOOL_SEARCH_MODE: z.enum(['client', 'hosted']).default('client'),
  CONVERSATION_MODE: z.enum(['stateless', 'previous_response_id']).default('stateless'),
  // --- tool approvals (README "Tool approvals") ---
  /** Server default when a request has no `approvals`: `none`, `destructive`, or `<tool>=always|never,…`. */
  APPROVAL_POLICY: z
    .string()
    .default('none')
    .transform((v, ctx) => {
      const r = parseApprovalPolicy(v);
      if (!r.ok) {
        ctx.addIssue({ code: 'custom', message: r.message });
        return z.NEVER;
      }
      return r.policy;
    }),
  /** Seconds a call waits for a decision; then it is rejected with reason `timed out`. */
  APPROVAL_TIMEOUT_S: int(86_400, 1, 31_536_000),
  // --- computer family ---
  COMPUTER_SANDBOX: z.enum(['bwrap', 'none']).default('bwrap'),
  /** Host user (name or uid) that runs the sandbox when the service runs as root; ignored otherwise. */
  COMPUTER_SANDBOX_USER: z.string().min(1).default('turnsandbox'),
  COMPUTER_NETWORK: onOff('off'),
  COMPUTER_MAX_TIMEOUT_S: int(600, 1, 86_400),
  /** Per-process data memory limit of a command (RLIMIT_DATA), MiB; 0 = none. */
  COMPUTER_MEMORY_LIMIT_MB: int(2048, 0, 1_048_576),
  /** Size of each of the sandbox's private /tmp and /var/tmp (RAM-backed tmpfs), MiB; 0 = unbounded. */
  COMPUTER_TMP_MAX_MB: int(512, 0, 1_048_576),
  /** Disk budget of one agent home, MiB (measured every second during a command, and after it); 0 = none. */
  COMPUTER_HOME_MAX_MB: int(10_240, 0, 16_777_216),
  // --- skills ---
  /** Folder of read-only built-in skills (one Agent Skills folder per skill), read at start. */
  SKILLS_DIR: z.string().min(1).optional(),
  /** dotenv-format file (`NAME=value` lines) with the secrets MCP servers of skills may use. */
  SKILL_SECRETS: z.string().min(1).optional(),
  // --- web family ---
  WEB_FETCH_ALLOW_HOSTS: hostList({ wildcards: true, bracketedIPv6: false }),
  WEB_FETCH_TIMEOUT_MS: int(15_000, 100, 300_000),
  /** Time limit for turning one fetched page into text (worker thread), ms; then plain text. */
  WEB_EXTRACT_TIMEOUT_MS: int(10_000, 100, 600_000),
  WEB_FETCH_MAX_BYTES: int(5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
  WEB_SEARCH_PROVIDER: z.enum(Object.keys(WEB_SEARCH_NEEDS) as [keyof typeof WEB_SEARCH_NEEDS, ...(keyof typeof WEB_SEARCH_NEEDS)[]]).optional(),
  WEB_SEARCH_API_KEY: z.string().optional(),
  WEB_SEARCH_URL: url({ base: true }).optional(),
  // --- schedules ---
  SCHEDULE_MIN_INTERVAL_S: int(60, 1, 86_400),
  SCHEDULE_MAX_PER_AGENT: int(100, 1, 100_000),
  SCHEDULER_TICK_MS: int(1000, 10, 60_000),
  // --- workflows ---
  WORKFLOW_MAX_TASKS: int(64, 1, 1024),
  WORKFLOW_MAX_RUNNING_TASKS_PER_AGENT: int(8, 1, 1024),
  /** Backoff before retrying a failed task attempt: this × 2^(attempt-1) ms (0 in tests). */
  WORKFLOW_RETRY_BASE_MS: int(1000, 0, 600_000),
  // --- background jobs ---
  /** Max model requests with tool calls per background job turn (then it is asked for its answer). */
  BACKGROUND_JOB_MAX_STEPS: int(200, 1, 10_000),
  /** Questions (`clarify`) one background job may ask; the next one fails it `too_many_questions`. */
  BACKGROUND_JOB_MAX_QUESTIONS: int(10, 0, 1000),
  /** Background jobs running at once per agent; more wait as queued. */
  BACKGROUND_JOBS_MAX_RUNNING_PER_AGENT: int(3, 1, 1000),
  // --- database ---
  /** `postgres://…` (or `postgresql://…`): the Postgres engine; unset: embedded SQLite in DATA_DIR. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL (leave unset for the embedded SQLite database)')
    .refine((v) => !/^postgres(ql)?:\/\//.test(v) || databaseUrlProblem(v) === undefined, { error: (i) => databaseUrlProblem(String(i.input)) })
    .optional(),
  /** Connections in the Postgres pool of this instance. */
  DATABASE_POOL_MAX: int(10, 1, 1000),
  /**
   * Ms one Postgres statement may take: the server cancels it past this, the client gives up 5 s
   * later (as long again when shorter) when no answer came (a stopped server, a dead connection); either fails as
   * `database_unavailable`. Migrations are exempt.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: int(30_000, 100, 3_600_000),
  // --- browser clients ---
  /** Bare http(s) origins ({@link corsOriginProblem}); each bad entry is one line of the start-up report. */
  CORS_ORIGINS: csv.superRefine((entries, ctx) => {
    for (const entry of entries) {
      const problem = corsOriginProblem(entry);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }
  }),
  STREAM_TOKEN_SECRET: secret16().optional(),
  STREAM_TOKEN_TTL_S: int(900, 10, 86_400),
  // --- operations: logs, metrics, traces, webhooks (README "Operations") ---
  /** `pretty` (pino-pretty, colored lines) or `json`; default pretty when stdout is a terminal. */
  LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  /** Bearer token that may read GET /metrics (besides AUTH_TOKENS). */
  METRICS_TOKEN: z
    .string()
    .superRefine((t, ctx) => {
      const problem = bearerTokenProblem(t) ?? (t.length < MIN_TOKEN_CHARS ? `must be at least ${MIN_TOKEN_CHARS} characters (a random string; the value is not shown)` : undefined);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  /** Turn tracing on (OTLP over HTTP); the exporter also reads the other OTEL_EXPORTER_OTLP_* variables. */
  OTEL_EXPORTER_OTLP_ENDPOINT: url({ base: true }).optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url().optional(),
  /** `otlp` (OTLP/HTTP JSON), `console` or `none`; setting it turns tracing on. */
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'console', 'none']).optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('turn-service'),
  /** The sampler ({@link TRACES_SAMPLERS}); unset: `parentbased_always_on`. */
  OTEL_TRACES_SAMPLER: z.enum(TRACES_SAMPLERS).optional(),
  /** The ratio of `traceidratio` / `parentbased_traceidratio`, a number from 0 to 1; unset: 1. */
  OTEL_TRACES_SAMPLER_ARG: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (/^[0-9.eE+-]+$/.test(v) && Number.isFinite(n) && n >= 0 && n <= 1) return n;
      ctx.addIssue({ code: 'custom', message: 'must be a number from 0 to 1 (the share of traces sampled by traceidratio and parentbased_traceidratio), e.g. 0.25' });
      return z.NEVER;
    }),
  /** The OTLP transport: `http/json` (default) or `http/protobuf` ({@link otlpProtocolProblem}); the TRACES_ one wins. */
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol(),
  /** Record prompts, tool arguments and outputs in spans (off: only sizes, ids and outcomes). */
  OTEL_RECORD_CONTENT: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
  /** Server-wide webhook receiving every turn's terminal event. */
  WEBHOOK_URL: z.string().optional(),
  /** Standard Webhooks signing secret, `whsec_<base64 of 24..64 random bytes>`. */
  WEBHOOK_SECRET: webhookSecret(),
  /**
   * The secret being replaced, while receivers move to WEBHOOK_SECRET: every delivery is signed
   * with both (two space-separated `v1,` signatures in `webhook-signature`, as Standard Webhooks
   * allows), so each receiver verifies with either. Same format as WEBHOOK_SECRET; needs it.
   */
  WEBHOOK_SECRET_PREVIOUS: webhookSecret(),
  /** First retry delay of a failed delivery, ms; doubles per attempt, capped at 1 h. */
  WEBHOOK_RETRY_BASE_MS: int(10_000, 1, 3_600_000),
  /** Hosts webhooks may reach although private/loopback (same syntax as WEB_FETCH_ALLOW_HOSTS). */
  WEBHOOK_ALLOW_HOSTS: hostList({ wildcards: true, bracketedIPv6: false }),
  /** How long one delivery attempt may take, ms. */
  WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000),
});

export type Env = z.infer<typeof EnvSchema>;

/**
 * Why `url` (DATABASE_URL) cannot be parsed as the Postgres driver parses it, or undefined when
 * it can: a port out of range, a malformed host, characters that need percent-encoding. Never
 * repeats the user name or password.
 */
export function databaseUrlProblem(url: string): string | undefined {
  // As pg-connection-string does: spaces and stray `%` are encoded first; an empty host (`@/db`) is allowed.
  const str = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url) ? encodeURI(url).replace(/%25(\d\d)/g, '%$1') : url;
  if (URL.canParse(str, 'postgres://base') || URL.canParse(str.replace('@/', '@___DUMMY___/'), 'postgres://base')) return undefined;
  const rest = url.slice(url.indexOf('://') + 3);
  const authority = rest.split(/[/?#]/)[0];
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const port = /:(\d+)$/.exec(hostPort)?.[1];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return `is not a valid URL: port ${port} is out of range (1–65535)`;
  if (hostPort.startsWith('[') && !/^\[[0-9a-fA-F:.]+\](:\d*)?$/.test(hostPort)) {
    return `is not a valid URL: the host ${JSON.stringify(hostPort.replace(/:\d*$/, ''))} is not a bracketed IPv6 address such as [::1] (check the host part after the @)`;
  }
  return 'is not a valid URL: check the host and port, and percent-encode special characters (@ : / ? # [ ] %) in the user name and password';
}

/** Variables whose values are never repeated in an error message (keys, tokens, URLs with passwords). */
const SECRET_VARS = new Set(['AUTH_TOKENS', 'OPENAI_API_KEY', 'WEB_SEARCH_API_KEY', 'STREAM_TOKEN_SECRET', 'DATABASE_URL', 'WEBHOOK_SECRET', 'WEBHOOK_SECRET_PREVIOUS', 'METRICS_TOKEN']);

/** Typed configuration. Paths are absolute. */
export interface Config extends Omit<Env, 'DATA_DIR' | 'DEFAULT_TOOLS'> {
  DATA_DIR: string;
  DEFAULT_TOOLS: ToolFamily[];
  /** True when HOST names a loopback address (localhost, 127.0.0.0/8 in any form the resolver reads, ::1, ::ffff:127.x.x.x: `isLoopbackHost` in ./host-entries.ts). */
  isLoopback: boolean;
  /**
   * True when traces are exported: OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
   * or OTEL_TRACES_EXPORTER (other than `none`) is set.
   */
  tracing: boolean;
}

/** Bad configuration: `problems` holds one line per bad variable; the message is one line for one problem. */
export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(problems.length === 1 ? problems[0] : `invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * `url` with its userinfo (`user:password@`) replaced by `***@`, for reporting a URL anywhere
 * (error messages and details, logs, listings): `https://***@host/path`. A URL without userinfo is
 * returned as given. A string that is not an absolute URL with a host loses everything up to its
 * last `@` (after `scheme://`, if any), so a password is never echoed even when the URL cannot be
 * parsed.
 */
export function redactUserinfo(url: string): string {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (u && (u.username || u.password)) return `${u.protocol}//***@${u.host}${u.pathname}${u.search}${u.hash}`;
  if (u && u.host !== '') return url;
  // Not a URL, or one without a host (`alice:pw@host/x` parses as scheme `alice`): cut by text.
  const m = /^([a-z][a-z0-9+.-]*:\/\/)?[^]*@/i.exec(url);
  return m ? `${m[1] ?? ''}***@${url.slice(m[0].length)}` : url;
}

/** A secret value of the configuration, named by its variable. */
export interface ConfigSecret {
  name: string;
  value: string;
}

/** The password in `url`'s userinfo, as written and percent-decoded (none when it has none or is no URL). */
function urlPasswords(url: string | undefined): string[] {
  if (!url) return [];
  try {
    const { password } = new URL(url);
    if (!password) return [];
    let decoded = password;
    try {
      decoded = decodeURIComponent(password);
    } catch {
      // not valid percent-encoding: the text as written is the password
    }
    return decoded === password ? [password] : [password, decoded];
  } catch {
    return [];
  }
}

/**
 * Every secret value of `config`, for removing from text that came from outside (a model
 * provider's error message, src/model/clean-errors.ts): the values of `OPENAI_API_KEY`,
 * `WEB_SEARCH_API_KEY`, each `AUTH_TOKENS` entry, `STREAM_TOKEN_SECRET`, `METRICS_TOKEN`,
 * `WEBHOOK_SECRET` and `WEBHOOK_SECRET_PREVIOUS` (whole, and the base64 key after `whsec_`), and the password in the userinfo
 * of `DATABASE_URL`, `OPENAI_BASE_URL`, `WEB_SEARCH_URL` and the `OTEL_EXPORTER_OTLP_*` endpoints
 * (as written and percent-decoded), and the values of credential query parameters of
 * `OPENAI_BASE_URL` and `WEB_SEARCH_URL` (`?api-key=…`, src/url-credentials.ts). Empty values are left out; a value may appear under one name only.
 * @returns `{name, value}` pairs, `name` the variable (e.g. `OPENAI_API_KEY`).
 */
export function configSecrets(config: Config): ConfigSecret[] {
  const out: ConfigSecret[] = [];
  const seen = new Set<string>();
  const add = (name: string, values: (string | undefined)[]) => {
    for (const value of values) {
      if (!value || seen.has(value)) continue;
      seen.add(value);
      out.push({ name, value });
    }
  };
  add('OPENAI_API_KEY', [config.OPENAI_API_KEY]);
  add('WEB_SEARCH_API_KEY', [config.WEB_SEARCH_API_KEY]);
  add('AUTH_TOKENS', config.AUTH_TOKENS);
  add('STREAM_TOKEN_SECRET', [config.STREAM_TOKEN_SECRET]);
  add('METRICS_TOKEN', [config.METRICS_TOKEN]);
  add('WEBHOOK_SECRET', [config.WEBHOOK_SECRET, config.WEBHOOK_SECRET?.replace(/^whsec_/, '')]);
  add('WEBHOOK_SECRET_PREVIOUS', [config.WEBHOOK_SECRET_PREVIOUS, config.WEBHOOK_SECRET_PREVIOUS?.replace(/^whsec_/, '')]);
  add('DATABASE_URL', urlPasswords(config.DATABASE_URL));
  add('OPENAI_BASE_URL', [...urlPasswords(config.OPENAI_BASE_URL), ...credentialParamValues(config.OPENAI_BASE_URL)]);
  add('WEB_SEARCH_URL', [...urlPasswords(config.WEB_SEARCH_URL), ...credentialParamValues(config.WEB_SEARCH_URL)]);
  add('OTEL_EXPORTER_OTLP_ENDPOINT', urlPasswords(config.OTEL_EXPORTER_OTLP_ENDPOINT));
  add('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', urlPasswords(config.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT));
  return out;
}

/** What a webhook URL that is no absolute URL should have been. */
const WEBHOOK_URL_EXPECTED = 'is not an absolute URL (expected e.g. https://example.com/hooks/turns)';

/**
 * Why `url` cannot be a webhook target by its form alone (absolute http(s) URL without
 * credentials and without a `#fragment`, which a delivery never sends: {@link fragmentProblem}), or null.
 * The address policy (private hosts) is checked separately, with DNS.
 * The reason never contains the URL's userinfo ({@link redactUserinfo}) nor its fragment.
 */
export function webhookUrlProblem(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return `${JSON.stringify(redactUserinfo(url))} ${WEBHOOK_URL_EXPECTED}`;
  }
  // `alice:pw@host/x` parses as scheme `alice` without a host: naming that "scheme" would echo the user.
  if (u.host === '' && url.includes('@')) return `${JSON.stringify(redactUserinfo(url))} ${WEBHOOK_URL_EXPECTED}`;
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `scheme ${u.protocol.replace(':', '')} is not allowed (use http or https)`;
  if (u.username || u.password) return 'user:password in the URL is not allowed (deliveries are signed with WEBHOOK_SECRET)';
  return fragmentProblem(url, 'it is never sent in a delivery, so the receiver would not see it', urlForReport) ?? null;
}


/**
 * One report line for a zod issue of the environment: `NAME=<value given>: <what is wrong>` (no
 * value for secrets; for a URL setting whose value is no URL, its length only: {@link notAUrlShown};
 * else the value as {@link settingForDisplay} shows it, clipped to
 * {@link MAX_QUOTED_CHARS} characters when quoted: `MODEL="gpt\u202E5": …`). A value outside an enumerated variable's set (zod `invalid_value`) is
 * worded plainly with the accepted values instead of zod's `Invalid option: expected one of
 * "a"|"b"`: `LOG_LEVEL=loud: must be one of fatal, error, …`, `(or leave it unset)` added for a
 * variable without a default; a bad item of a comma-separated list is named by its value:
 * `DEFAULT_TOOLS=todo,bogus: "bogus" is not one of todo, computer, … (a comma-separated list of them)`.
 */
function issueLine(i: z.core.$ZodIssue, cleaned: Record<string, string>): string {
  const name = i.path.length > 0 ? String(i.path[0]) : '';
  if (!name) return `(env): ${i.message}`;
  // Say what was given (PORT=abc), not what it became (NaN) — except for secrets.
  if (SECRET_VARS.has(name)) return `${name}: ${i.message}`;
  // A bad item of a comma-separated list is named by its value.
  const item = typeof i.path[1] === 'number' && name in cleaned ? cleaned[name].split(',').map((x) => x.trim()).filter(Boolean)[i.path[1]] : undefined;
  let what: string;
  if (i.code === 'invalid_value') {
    const accepted = i.values.map(String).join(', ');
    what = item !== undefined ? `"${item}" is not one of ${accepted} (a comma-separated list of them)` : `must be one of ${accepted}${mayBeUnset(name) ? ' (or leave it unset)' : ''}`;
  } else {
    what = item !== undefined ? `"${item}": ${i.message}` : i.message;
  }
  if (!(name in cleaned)) return `${name}: ${what}`;
  if (URL_VARS.has(name) && !urlValueShowable(cleaned[name])) return `${notAUrlShown(name, cleaned[name])}: ${what}`;
  return `${name}=${settingForDisplay(URL_VARS.has(name) ? urlForReport(cleaned[name]) : cleaned[name], { clip: MAX_QUOTED_CHARS })}: ${what}`;
}

/**
 * How a report line names a URL setting whose value `value` (trimmed) does not parse as a URL
 * (WHATWG `URL.canParse`): by its length only, `OPENAI_BASE_URL (a value of 30 characters, not
 * shown: it is no URL and may be a key)` — a key pasted into the wrong variable is never printed.
 * Characters are counted as code points. A value that parses as a URL is shown instead, through
 * {@link urlForReport} (userinfo, credential parameters and fragment hidden).
 */
export function notAUrlShown(name: string, value: string): string {
  const n = [...value].length;
  return `${name} (a value of ${n} character${n === 1 ? '' : 's'}, not shown: it is no URL and may be a key)`;
}

/** The URL variables whose values a report line shows through {@link urlForReport} (DATABASE_URL is never shown: SECRET_VARS). */
const URL_VARS = new Set(['OPENAI_BASE_URL', 'WEB_SEARCH_URL', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']);

/**
 * `url` with what follows its first `#` shown as `…` (`https://host/h#…`; a bare `#` stays), for
 * echoing a URL: a fragment may hold a credential in a form no redaction knows (`#api-key=…`). A
 * URL without `#` is returned as given.
 */
export function hideFragment(url: string): string {
  const at = url.indexOf('#');
  return at < 0 || at === url.length - 1 ? url : `${url.slice(0, at)}#…`;
}

/**
 * A URL as a configuration report shows it: its userinfo as `***@` ({@link redactUserinfo}) and
 * the value of each credential query parameter (src/url-credentials.ts: `?api-key=…`, `?code=…`)
 * as `[redacted]`, and a `#fragment` as `#…` — `https://***@host/v1?api-key=[redacted]` — so
 * refusing a URL never prints the key in it, as logs and /readyz do not.
 */
export function urlForReport(url: string): string {
  let out = hideFragment(redactUserinfo(url));
  for (const value of credentialParamValues(url)) out = out.split(`=${value}`).join('=[redacted]');
  return out;
}

/** Whether the variable `name` may be left unset with nothing in its place (optional, no default). */
function mayBeUnset(name: string): boolean {
  const field = (EnvSchema.shape as Record<string, z.ZodType | undefined>)[name];
  const r = field?.safeParse(undefined);
  return r !== undefined && r.success && r.data === undefined;
}

/** What was learned about the environment outside it, for {@link loadConfig}. */
export interface EnvFacts {
  /** HOST is a name that does not resolve: the lookup's error code (`hostLookupFailure` in ./host-entries.ts). */
  hostUnresolved?: string | null;
  /**
   * WEBHOOK_URL's host is a private, loopback, link-local or metadata address not listed in
   * WEBHOOK_ALLOW_HOSTS, so no delivery could ever succeed: the report line
   * (`webhookUrlRefusal` in ./webhooks/webhook-spec.ts).
   */
  webhookUrlRefused?: string | null;
}

/** The variables a check across variables reads (as the schema gives them, or as given when another variable is bad). */
type CrossView = Pick<
  Env,
  'HOST' | 'AUTH_TOKENS' | 'DATABASE_URL' | 'STREAM_TOKEN_SECRET' | 'WEBHOOK_URL' | 'WEBHOOK_SECRET' | 'WEBHOOK_SECRET_PREVIOUS' | 'WEBHOOK_ALLOW_HOSTS' | 'WEB_SEARCH_PROVIDER' | 'WEB_SEARCH_API_KEY' | 'WEB_SEARCH_URL'
>;

/** Whether two (valid) webhook secrets are the same key: the same bytes after `whsec_`, however padded. */
function sameWebhookKey(a: string, b: string): boolean {
  return Buffer.from(a.slice(6), 'base64').equals(Buffer.from(b.slice(6), 'base64'));
}

/** Rules across variables: each reports its problems (one line each) from the variables `vars`. */
const CROSS_CHECKS: { vars: (keyof CrossView)[]; problems: (e: CrossView, facts: EnvFacts) => string[] }[] = [
  {
    // A HOST that does not resolve is said to be so (it would not listen at all), and then not
    // also called "beyond loopback"; a public server without auth is refused.
    vars: ['HOST', 'AUTH_TOKENS'],
    problems: (e, facts) =>
      facts.hostUnresolved
        ? [hostUnresolvedProblem(e.HOST, facts.hostUnresolved)]
        : !isLoopbackHost(e.HOST) && e.AUTH_TOKENS.length === 0
          ? [`HOST=${e.HOST} is beyond loopback but AUTH_TOKENS is empty: set AUTH_TOKENS (comma-separated bearer tokens) or bind 127.0.0.1`]
          : [],
  },
  {
    vars: ['DATABASE_URL', 'STREAM_TOKEN_SECRET'],
    problems: (e) =>
      e.DATABASE_URL !== undefined && e.STREAM_TOKEN_SECRET === undefined
        ? ['STREAM_TOKEN_SECRET is required when DATABASE_URL is set: every instance must verify the stream tokens the others issue (set the same random string of 16+ characters on each)']
        : [],
  },
  {
    vars: ['WEBHOOK_URL'],
    problems: (e) => {
      const url = e.WEBHOOK_URL;
      if (url === undefined) return [];
      // A key pasted after the URL (a space, a line break): the parser would take it into the path.
      if (NOT_IN_URL.test(url)) return [`${notAUrlShown('WEBHOOK_URL', url)}: must be one URL, without spaces or control characters (expected e.g. https://example.com/hooks/turns)`];
      // `https:sk-…` parses with the key as its host: a URL setting is written with its `//`.
      if (URL.canParse(url) && !urlValueShowable(url)) return [`${notAUrlShown('WEBHOOK_URL', url)}: ${WEBHOOK_URL_EXPECTED}`];
      const reason = webhookUrlProblem(url);
      if (!reason) return [];
      // A value that is no URL at all may be a key put in the wrong variable: named by its length only.
      return urlValueShowable(url) ? [`WEBHOOK_URL: ${reason}`] : [`${notAUrlShown('WEBHOOK_URL', url)}: ${WEBHOOK_URL_EXPECTED}`];
    },
  },
  {
    // A private target not in WEBHOOK_ALLOW_HOSTS would fail every delivery for 24 h: refused now.
    vars: ['WEBHOOK_URL', 'WEBHOOK_ALLOW_HOSTS'],
    problems: (_e, facts) => (facts.webhookUrlRefused ? [facts.webhookUrlRefused] : []),
  },
  {
    vars: ['WEBHOOK_URL', 'WEBHOOK_SECRET'],
    problems: (e) => (e.WEBHOOK_URL !== undefined && !e.WEBHOOK_SECRET ? ['WEBHOOK_URL is set but WEBHOOK_SECRET is not: set WEBHOOK_SECRET=whsec_<base64> to sign deliveries'] : []),
  },
  {
    vars: ['WEBHOOK_SECRET_PREVIOUS', 'WEBHOOK_SECRET'],
    problems: (e) =>
      e.WEBHOOK_SECRET_PREVIOUS !== undefined && !e.WEBHOOK_SECRET
        ? ['WEBHOOK_SECRET_PREVIOUS is set but WEBHOOK_SECRET is not: set WEBHOOK_SECRET to the new secret (deliveries are signed with both while receivers switch), or unset WEBHOOK_SECRET_PREVIOUS']
        : e.WEBHOOK_SECRET_PREVIOUS !== undefined && e.WEBHOOK_SECRET !== undefined && sameWebhookKey(e.WEBHOOK_SECRET_PREVIOUS, e.WEBHOOK_SECRET)
          ? ['WEBHOOK_SECRET_PREVIOUS is the same secret as WEBHOOK_SECRET: it must be the old secret, the one being replaced (set WEBHOOK_SECRET to the new one), or unset WEBHOOK_SECRET_PREVIOUS when no rotation is under way']
          : [],
  },
  {
    // A provider that is named is meant to be used: one that could never search is refused, not left out.
    vars: ['WEB_SEARCH_PROVIDER', 'WEB_SEARCH_API_KEY', 'WEB_SEARCH_URL'],
    problems: (e) => {
      const needs = e.WEB_SEARCH_PROVIDER === undefined ? undefined : WEB_SEARCH_NEEDS[e.WEB_SEARCH_PROVIDER];
      return needs && e[needs.variable] === undefined
        ? [`WEB_SEARCH_PROVIDER=${e.WEB_SEARCH_PROVIDER} needs ${needs.variable}: ${needs.hint}, or unset WEB_SEARCH_PROVIDER (the web family then has no web_search)`]
        : [];
    },
  },
];

/**
 * Parse and validate `env` (default `process.env`). Values are trimmed (white space an env file or
 * a shell left at either end is not part of a value: `MODEL=" gpt-x "` is `gpt-x`); empty or blank
 * ones count as unset.
 * @throws ConfigError listing every bad variable in one report, the rules across variables
 *   included (HOST beyond loopback with AUTH_TOKENS empty, DATABASE_URL without
 *   STREAM_TOKEN_SECRET, WEBHOOK_URL without WEBHOOK_SECRET, a WEB_SEARCH_PROVIDER without the
 *   key or URL it needs: {@link WEB_SEARCH_NEEDS}); with `facts.hostUnresolved`, a HOST that
 *   does not resolve (`hostUnresolvedProblem`) instead of the loopback rule; with
 *   `facts.webhookUrlRefused`, a WEBHOOK_URL on a private address not in WEBHOOK_ALLOW_HOSTS.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, facts: EnvFacts = {}): Config {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v.trim() !== '') cleaned[k] = v.trim();
  const parsed = EnvSchema.safeParse(cleaned);
  const issues = parsed.success ? [] : parsed.error.issues;
  const problems = issues.map((i) => issueLine(i, cleaned));
  // The checks across variables run beside the per-variable ones (all problems in one report),
  // each only when the variables it reads are valid on their own.
  const bad = new Set(issues.map((i) => String(i.path[0] ?? '')));
  const view: CrossView = parsed.success
    ? parsed.data
    : {
        HOST: cleaned.HOST ?? DEFAULT_HOST,
        AUTH_TOKENS: (cleaned.AUTH_TOKENS ?? '').split(',').map((t) => t.trim()).filter(Boolean),
        DATABASE_URL: cleaned.DATABASE_URL,
        STREAM_TOKEN_SECRET: cleaned.STREAM_TOKEN_SECRET,
        WEBHOOK_URL: cleaned.WEBHOOK_URL,
        WEBHOOK_SECRET: cleaned.WEBHOOK_SECRET,
        WEBHOOK_SECRET_PREVIOUS: cleaned.WEBHOOK_SECRET_PREVIOUS,
        WEBHOOK_ALLOW_HOSTS: (cleaned.WEBHOOK_ALLOW_HOSTS ?? '').split(',').map((h) => h.trim()).filter(Boolean),
        WEB_SEARCH_PROVIDER: cleaned.WEB_SEARCH_PROVIDER as CrossView['WEB_SEARCH_PROVIDER'],
        WEB_SEARCH_API_KEY: cleaned.WEB_SEARCH_API_KEY,
        WEB_SEARCH_URL: cleaned.WEB_SEARCH_URL,
      };
  for (const check of CROSS_CHECKS) if (!check.vars.some((v) => bad.has(v))) problems.push(...check.problems(view, facts));
  if (!parsed.success || problems.length > 0) throw new ConfigError(problems);
  const e = parsed.data;
  const isLoopback = isLoopbackHost(e.HOST);
  return {
    ...e,
    DATA_DIR: path.resolve(e.DATA_DIR),
    SKILLS_DIR: e.SKILLS_DIR === undefined ? undefined : path.resolve(e.SKILLS_DIR),
    SKILL_SECRETS: e.SKILL_SECRETS === undefined ? undefined : path.resolve(e.SKILL_SECRETS),
    tracing:
      e.OTEL_TRACES_EXPORTER !== undefined
        ? e.OTEL_TRACES_EXPORTER !== 'none'
        : e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined,
    DEFAULT_TOOLS: e.DEFAULT_TOOLS ?? ['todo', 'clarify'],
    isLoopback,
  };
}
