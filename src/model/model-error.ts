/**
 * ModelError: the one error type the runtime sees from a {@link ModelPort} (src/model/port.ts).
 * It carries the provider's error `code` (e.g. `insufficient_quota`, `rate_limit_exceeded`) or a
 * runtime code:
 * - `http_<status>` when the provider returned an HTTP error without a code;
 * - `connection_error` when the request could not reach the provider, or the provider closed the
 *   connection before answering;
 * - `stream_interrupted` when the stream ended or broke before a terminal event;
 * - `response_failed` for a failed response without an error code;
 * - `not_event_stream` when a 2xx answer is not `text/event-stream` (src/model/event-stream-check.ts).
 * Adapters convert their SDK's errors (e.g. src/model/responses-errors.ts). Every message of an
 * error that comes from the endpoint names it as {@link endpointForDisplay} shows it (no
 * credentials): {@link httpErrorMessage}, {@link streamErrorMessage}, {@link streamBroke},
 * {@link connectionError}, and the phrases {@link endpointPhrase} / {@link streamPhrase} that
 * stream-timeouts.ts, chat-stream-end.ts and the runtime use.
 */
import { redactUserinfo } from '../config.js';
import { redactUrl } from '../http/stream-token.js';

export class ModelError extends Error {
  constructor(
    /** Provider or runtime error code (never empty). */
    public readonly code: string,
    message: string,
    /** HTTP status when the provider answered with one. */
    public readonly status?: number,
  ) {
    super(message);
    this.name = 'ModelError';
  }

  /**
   * True when the provider had answered (the response headers had arrived) before this error:
   * the request was accepted and may have spent tokens that are never reported, so the response's
   * usage is unknown (src/runtime/model-response.ts). Set by the transports through {@link afterResponse}.
   */
  responseStarted = false;
}

/** `err`, marked as raised after the response headers arrived ({@link ModelError.responseStarted}). */
export function afterResponse(err: ModelError): ModelError {
  err.responseStarted = true;
  return err;
}

/**
 * The system-level reason of a connection failure, from the first errno-style or undici error in
 * the `cause` chain (fetch wraps it): e.g. `ECONNREFUSED 127.0.0.1:4999`, `ENOTFOUND api.example`,
 * `UND_ERR_SOCKET: other side closed`, `UND_ERR_CONNECT_TIMEOUT: Connect Timeout Error (…)` (undici's
 * error codes: https://undici.nodejs.org/#/docs/api/Errors); without any code, the innermost
 * cause's message (e.g. `bad port` from a WHATWG fetch, which refuses ports the Fetch standard
 * blocks, such as 1).
 * Undefined when the error has no cause.
 */
export function connectionCause(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e; depth++) {
    const c = e as { code?: unknown; message?: unknown; address?: unknown; port?: unknown; hostname?: unknown; errors?: unknown[]; cause?: unknown };
    if (typeof c.code === 'string' && /^UND_ERR_[A-Z_]+$/.test(c.code)) {
      return typeof c.message === 'string' && c.message ? `${c.code}: ${c.message.slice(0, 200)}` : c.code;
    }
    if (typeof c.code === 'string' && /^E[A-Z]+$/.test(c.code)) {
      const host = typeof c.address === 'string' ? c.address : typeof c.hostname === 'string' ? c.hostname : undefined;
      return `${c.code}${host ? ` ${host}${typeof c.port === 'number' ? `:${c.port}` : ''}` : ''}`;
    }
    // Happy eyeballs: an AggregateError of one failure per address.
    const next = c.cause ?? (Array.isArray(c.errors) ? c.errors[0] : undefined);
    // No code anywhere (e.g. a fetch refusing a port the Fetch standard calls bad): the innermost message.
    if (!next && depth > 0 && typeof c.message === 'string' && c.message) return c.message.slice(0, 200);
    e = next;
  }
  return undefined;
}

/** What to do about a `connection_error` (as /readyz says it: src/telemetry/model-probe.ts). */
export const CONNECTION_HINT = 'check OPENAI_BASE_URL and that the model server is running and reachable from this host';

/**
 * The model endpoint `baseURL` (OPENAI_BASE_URL) as every message shows it — turn errors and
 * GET /readyz, which needs no token: its userinfo as `***@` (redactUserinfo) and credential-looking
 * query parameters (`?api-key=…`) as `[redacted]` (redactUrl, as in logs and spans).
 */
export function endpointForDisplay(baseURL: string): string {
  return redactUrl(redactUserinfo(baseURL));
}

/**
 * What to do about a connection the model endpoint accepted and then closed or reset before it
 * sent any HTTP answer ({@link closedBeforeAnswering}).
 */
export const CLOSED_HINT =
  "the model server may have crashed or dropped the request (its logs say why), or OPENAI_BASE_URL names a port that does not speak plain HTTP (e.g. http:// to a TLS port): check OPENAI_BASE_URL and the model server's logs";

/**
 * True when `cause` ({@link connectionCause}) says the endpoint accepted the TCP connection and then
 * closed or reset it before any HTTP answer: undici's `UND_ERR_SOCKET` (`other side closed`),
 * `ECONNRESET` or `EPIPE`. A refused connection (`ECONNREFUSED`), a failed DNS lookup (`ENOTFOUND`,
 * `EAI_AGAIN`) or a connect timeout (`UND_ERR_CONNECT_TIMEOUT`, `ETIMEDOUT`) is not.
 */
export function closedBeforeAnswering(cause: string | undefined): boolean {
  return cause !== undefined && /^(?:UND_ERR_SOCKET|ECONNRESET|EPIPE)\b/.test(cause);
}

/**
 * What to do about an endpoint that answered with something that is not HTTP/1.1
 * ({@link answeredNotHttp}).
 */
export const NOT_HTTP_HINT =
  "OPENAI_BASE_URL must name the model server's HTTP API — its scheme, host and port (https:// for a TLS port) — not another service's port";

/**
 * True when `err`'s cause chain holds undici's `HTTPParserError` (its name, or an llhttp `HPE_*`
 * code): the endpoint answered, but not in HTTP/1.1 (`Response does not match the HTTP/1.1
 * protocol (Expected HTTP/, …)`) — an SSH or database port, or a server speaking another protocol.
 */
export function answeredNotHttp(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 6 && e; depth++) {
    const c = e as { name?: unknown; code?: unknown; cause?: unknown };
    if (c.name === 'HTTPParserError' || (typeof c.code === 'string' && c.code.startsWith('HPE_'))) return true;
    e = c.cause;
  }
  return false;
}

/**
 * The `connection_error` for a request that got no answer from the model: names the endpoint
 * (when known) and the cause, then what to check. A connection the endpoint accepted and closed
 * before answering ({@link closedBeforeAnswering}) says so, e.g. `the model endpoint
 * http://127.0.0.1:8000/v1 accepted the connection and closed it before answering (UND_ERR_SOCKET:
 * other side closed): <`{@link CLOSED_HINT}`>`; any other failure is `could not connect to the model
 * endpoint http://127.0.0.1:4999/v1 (ECONNREFUSED 127.0.0.1:4999): check OPENAI_BASE_URL and that
 * the model server is running and reachable from this host`. One that answered in another protocol
 * ({@link answeredNotHttp}) says that: `the model endpoint … answered with something that is not
 * HTTP (Response does not match the HTTP/1.1 protocol (…)): <`{@link NOT_HTTP_HINT}`>`.
 */
export function connectionError(err: unknown, baseURL?: string): ModelError {
  const cause = connectionCause(err);
  const where = baseURL ? `the model endpoint ${endpointForDisplay(baseURL)}` : 'the model provider';
  if (answeredNotHttp(err)) return new ModelError('connection_error', `${where} answered with something that is not HTTP${cause ? ` (${cause})` : ''}: ${NOT_HTTP_HINT}`);
  if (closedBeforeAnswering(cause)) return new ModelError('connection_error', `${where} accepted the connection and closed it before answering (${cause}): ${CLOSED_HINT}`);
  const fallback = (err as Error)?.message;
  return new ModelError('connection_error', `could not connect to ${where}${cause ? ` (${cause})` : fallback ? ` (${fallback})` : ''}: ${CONNECTION_HINT}`);
}

/**
 * How messages name the model endpoint: `the model endpoint <endpoint>`, or `the model endpoint`
 * when it is not known.
 * @param endpoint the endpoint as {@link endpointForDisplay} shows it (no credentials).
 */
export function endpointPhrase(endpoint?: string): string {
  return endpoint ? `the model endpoint ${endpoint}` : 'the model endpoint';
}

/**
 * How messages name a model response's stream: `the stream from the model endpoint <endpoint>`,
 * or `the model stream` when the endpoint is not known (a port without one, such as an in-process
 * model).
 * @param endpoint the endpoint as {@link endpointForDisplay} shows it (no credentials).
 */
export function streamPhrase(endpoint?: string): string {
  return endpoint ? `the stream from ${endpointPhrase(endpoint)}` : 'the model stream';
}

/**
 * The `stream_interrupted` error of a stream that broke while it was read (a reset connection,
 * a frame that is not JSON): `the stream from the model endpoint <endpoint> broke: <cause>`, or
 * `model stream broke: <cause>` without an endpoint.
 * @param cause what broke it (an error's message).
 * @param endpoint the endpoint as {@link endpointForDisplay} shows it.
 */
export function streamBroke(cause: string, endpoint?: string): ModelError {
  return new ModelError('stream_interrupted', endpoint ? `${streamPhrase(endpoint)} broke: ${cause}` : `model stream broke: ${cause}`);
}

/**
 * The message of an error the endpoint sent inside its stream (an `error` event or frame, a failed
 * response): `the model endpoint <endpoint> sent an error in its stream: <text>`; without an
 * endpoint the text as it is.
 * @param text the provider's message.
 * @param endpoint the endpoint as {@link endpointForDisplay} shows it.
 */
export function streamErrorMessage(text: string, endpoint?: string): string {
  return endpoint ? `${endpointPhrase(endpoint)} sent an error in its stream: ${text}` : text;
}

/**
 * The message of an error the endpoint answered at once, as one JSON document, to a request for a
 * stream (a server that ignored `stream: true`: a 2xx `{"error": …}` body, a whole response object
 * whose `status` is `failed`): `the model endpoint <endpoint> answered with an error as a whole
 * JSON answer (not a stream): <text>`.
 * @param text the provider's message.
 * @param endpoint the endpoint as {@link endpointForDisplay} shows it.
 */
export function wholeAnswerErrorMessage(text: string, endpoint?: string): string {
  return `${endpointPhrase(endpoint)} answered with an error as a whole JSON answer (not a stream): ${text}`;
}

/**
 * Whether the path of `baseURL` (OPENAI_BASE_URL) ends in `/v1`, a trailing slash ignored — then
 * hints do not add that it usually does. A value that is no URL is looked at up to its `?` or `#`.
 */
export function basePathEndsInV1(baseURL: string): boolean {
  let pathname: string;
  try {
    pathname = new URL(baseURL).pathname;
  } catch {
    pathname = baseURL.split(/[?#]/)[0];
  }
  return /\/v1\/*$/i.test(pathname);
}

/**
 * The message of a provider's HTTP error answer (any status): says that the model endpoint
 * answered — which one (not this service: a provider's `not_found` reads like the service's own
 * otherwise) — and, for 401, 403, 404, 405 and 501, which setting to check, followed by the provider's own
 * text. Without a status (the SDK's error for an error frame inside a stream) it is
 * {@link streamErrorMessage}.
 * @param status the HTTP status of the provider's answer.
 * @param text the provider's message, or what its body says (provider-text.ts `providerErrorText`); empty
 *   for an answer without a body.
 * @param baseURL the endpoint (OPENAI_BASE_URL), when known; shown by {@link endpointForDisplay}.
 * @returns e.g. `the model endpoint http://127.0.0.1:8000 answered HTTP 404 (check OPENAI_BASE_URL
 *   — the API's base URL, usually ending in /v1 — and the model name (MODEL, or the turn's
 *   `model`)): no route POST /responses` (the middle part only when the URL does not end in /v1
 *   already: {@link basePathEndsInV1}), `the model endpoint https://api.example/v1 answered
 *   HTTP 502: an HTML page of 552 bytes, titled "502 Bad Gateway"`, `… answered HTTP 400 without a body`.
 */
export function httpErrorMessage(status: number | undefined, text: string, baseURL?: string): string {
  if (status === undefined) return streamErrorMessage(text, baseURL ? endpointForDisplay(baseURL) : undefined);
  // Said only of a base URL that does not end in /v1 already (or is unknown).
  const usually = baseURL !== undefined && basePathEndsInV1(baseURL) ? '' : ' — the API\'s base URL, usually ending in /v1';
  const hint =
    status === 401 ? 'check OPENAI_API_KEY'
    : status === 403 ? 'the key has no access to this model, or not from this region: check OPENAI_API_KEY and the model name (MODEL, or the turn\'s `model`)'
    : status === 404 ? `check OPENAI_BASE_URL${usually}${usually ? ' —' : ''} and the model name (MODEL, or the turn's \`model\`)`
    // What a web server that is no model API answers to a POST (a static file server: 501; many others: 405).
    : status === 405 || status === 501 ? `the address takes no POST of a model request, so it is likely no model API: check OPENAI_BASE_URL${usually}`
    : undefined;
  const answered = `${endpointPhrase(baseURL ? endpointForDisplay(baseURL) : undefined)} answered HTTP ${status}${hint ? ` (${hint})` : ''}`;
  return text ? `${answered}: ${text}` : `${answered} without a body`;
}

/**
 * Provider codes of a model that cannot serve this service as configured — the provider answered
 * HTTP 401 (bad or missing key), 403 (no access to the model or the region) or 404 (unknown model,
 * deployment or URL). Adapters turn such an answer into the provider's string code when it sent
 * one (OpenAI and Groq: `invalid_api_key`, `model_not_found`, `unsupported_country_region_territory`,
 * `unknown_url`; Azure: `DeploymentNotFound`, or the status itself as `"401"`; Anthropic-style
 * types `authentication_error`, `permission_error`, `not_found_error`), else `http_<status>`.
 */
const MODEL_ACCESS_CODES = new Set([
  'invalid_api_key',
  'invalid_authentication',
  'invalid_authentication_error',
  'authentication_error',
  'permission_error',
  'permission_denied',
  'not_found_error',
  'model_not_found',
  'unknown_url',
  'unsupported_country_region_territory',
  'DeploymentNotFound',
  // Generic codes some servers send with their 401/403/404 (their messages say the model endpoint answered: accessMessage).
  'not_found',
  'unauthorized',
  'forbidden',
  // A 2xx answer that is no event stream: OPENAI_BASE_URL points at something else (event-stream-check.ts).
  'not_event_stream',
]);

/**
 * True when a turn's error `code` says the model endpoint refused this service's key or does not
 * know its model (HTTP 401/403/404 as mapped above), or is no model API at all (`not_event_stream`;
 * HTTP 405 or 501: the address takes no POST, as a web server that is no model API answers):
 * an operator must fix the configuration, so it is logged like a model endpoint in trouble. E.g. `http_401`, `"404"`, `model_not_found` → true;
 * `rate_limit_exceeded`, `http_400` → false.
 */
export function isModelAccessError(code: string): boolean {
  return /^(http_)?(40[1345]|501)$/.test(code) || MODEL_ACCESS_CODES.has(code);
}
