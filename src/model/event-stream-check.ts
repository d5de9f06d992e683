/**
 * The one check of a model answer's media type: both transports ask for a stream, and a 2xx answer
 * that is no event stream — an HTML page or a JSON document from a wrong OPENAI_BASE_URL (a web
 * server, a proxy's landing page, an API without `/v1`) — would otherwise read as an empty stream
 * and fail the turn with `stream_interrupted` ("ended before the response completed"), which
 * points nowhere. A server that ignores `stream: true` and answers with the whole answer as JSON
 * is no mistake of OPENAI_BASE_URL: that answer is handed back to be read as a stream of one
 * answer; and when such a server fails the request with a 2xx JSON error body, that is the
 * provider's error (its message and code), not a wrong OPENAI_BASE_URL. Checked once per response,
 * on its headers, before the first event is read: nothing per event.
 */
import { discardBody } from './model-fetch.js';
import { afterResponse, endpointForDisplay, ModelError, wholeAnswerErrorMessage } from './model-error.js';
import { messageFieldText, NO_MESSAGE_TEXT, providerErrorText } from './provider-text.js';

/**
 * The JSON object a server that ignored `stream: true` answers with, by protocol: a Chat
 * Completions `chat.completion` (https://platform.openai.com/docs/api-reference/chat/object: an
 * `object` of `chat.completion`, or a `choices` list whose first entry has a `message`), or a
 * Responses `response` (https://platform.openai.com/docs/api-reference/responses/object: `object`
 * `response` with an `output` list).
 */
export type WholeAnswerShape = 'chat.completion' | 'response';

/** The most of a JSON answer read to see whether it is a whole answer, bytes (a Content-Length above it is not read). */
const MAX_WHOLE_ANSWER_BYTES = 32 * 1024 * 1024;

function isWholeAnswer(body: unknown, shape: WholeAnswerShape): body is Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return false;
  const o = body as Record<string, unknown>;
  if (shape === 'response') return o.object === 'response' && Array.isArray(o.output);
  const first = Array.isArray(o.choices) ? (o.choices[0] as Record<string, unknown> | undefined) : undefined;
  return (o.object === 'chat.completion' || o.object === undefined) && first !== undefined && first !== null && typeof first.message === 'object' && first.message !== null;
}

/**
 * What a JSON answer holds of an error, when it is one: the `error` of `{"error": {"message": …,
 * "code": …}}` (OpenAI's error envelope) or `{"error": "…"}` (Hugging Face TGI), or the whole of
 * vLLM's `{"object": "error", "message": …, "code": 400}`. Undefined for anything else.
 */
function errorOf(body: unknown): { error: unknown; fields: Record<string, unknown> } | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const o = body as Record<string, unknown>;
  if (o.error !== null && typeof o.error === 'object' && !Array.isArray(o.error)) return { error: o.error, fields: o.error as Record<string, unknown> };
  if (typeof o.error === 'string' && o.error !== '') return { error: o.error, fields: o };
  if (o.object === 'error' && typeof o.message === 'string') return { error: o, fields: o };
  return undefined;
}

/**
 * The {@link ModelError} of a 2xx JSON answer that is an error ({@link errorOf}), with the codes
 * the adapters give an error without an HTTP status (chat-errors.ts, responses-errors.ts): its
 * string `code`, else `http_<code>` for a numeric one, else its `type`, else `model_error`; the
 * message {@link wholeAnswerErrorMessage} with the provider's text (provider-text.ts
 * `providerErrorText`; src/model/clean-errors.ts removes secrets from it like from any provider
 * text): a `message` that is not a string as its JSON, at most 1000 characters (provider-text.ts
 * `messageFieldText`), and without a message `the error came without message text` — never the
 * code, which the error carries already.
 */
function wholeAnswerError(found: { error: unknown; fields: Record<string, unknown> }, endpoint: string | undefined): ModelError {
  const { code, type } = found.fields;
  const name =
    (typeof code === 'string' && code !== '' ? code : undefined) ??
    (typeof code === 'number' ? `http_${code}` : undefined) ??
    (typeof type === 'string' && type !== '' ? type : undefined) ??
    'model_error';
  const text = providerErrorText({ message: '', error: found.error }) || messageFieldText(found.fields.message) || NO_MESSAGE_TEXT;
  return new ModelError(name, wholeAnswerErrorMessage(text, endpoint));
}

/**
 * Refuse a model response whose `Content-Type` is set and is not `text/event-stream` (parameters
 * such as `; charset=utf-8` ignored; an answer without the header passes, as some servers send
 * none). Its body is dropped unread — except, with `whole`, a JSON answer (`application/json` or
 * `…+json`) that is the whole answer of that protocol ({@link WholeAnswerShape}): a server that
 * ignored `stream: true` (it does not stream, or streaming is turned off) and answered at once.
 * That object is returned, for the caller to read as a stream of one answer; undefined for an
 * event stream. With `whole`, a JSON answer that is an error (`{"error": {"message": …}}`, a
 * server that ignored `stream: true` failing the request with a 2xx) is thrown as that error.
 * @param response the 2xx response the SDK returned for a streaming request.
 * @param endpoint how the error of such an answer names the endpoint (as {@link endpointForDisplay}
 *   shows it; the port's `endpoint`), undefined: the response's URL.
 * @throws ModelError with the provider's code and message for a JSON error answer ({@link wholeAnswerError}).
 * @throws ModelError `not_event_stream`, marked {@link afterResponse} (the endpoint answered; a
 *   server that ignored `stream: true` may have spent tokens), message e.g. `the model endpoint
 *   answered http://127.0.0.1:8000/responses with Content-Type "text/html" instead of an event
 *   stream (text/event-stream): check OPENAI_BASE_URL — it must be the API's base URL, such as
 *   https://api.openai.com/v1 or http://127.0.0.1:8000/v1`.
 */
export async function assertEventStream(response: Response, whole?: WholeAnswerShape, endpoint?: string): Promise<Record<string, unknown> | undefined> {
  const type = response.headers.get('content-type');
  if (type === null) return undefined;
  const media = type.split(';')[0].trim().toLowerCase();
  if (media === 'text/event-stream') return undefined;
  const where = response.url ? ` ${endpointForDisplay(response.url.split('?')[0])}` : ''; // never its credentials
  const length = Number(response.headers.get('content-length') ?? 0);
  if (whole && (media === 'application/json' || media.endsWith('+json')) && !(length > MAX_WHOLE_ANSWER_BYTES)) {
    let body: unknown;
    try {
      body = JSON.parse(await response.text());
    } catch {
      body = undefined;
    }
    if (isWholeAnswer(body, whole)) return body;
    const error = errorOf(body);
    if (error) throw wholeAnswerError(error, endpoint ?? (where.trim() || undefined));
  } else {
    await discardBody(response);
  }
  throw afterResponse(
    new ModelError(
      'not_event_stream',
      `the model endpoint answered${where} with Content-Type ${JSON.stringify(media.slice(0, 100))} instead of an event stream (text/event-stream): check OPENAI_BASE_URL — it must be the API's base URL, such as https://api.openai.com/v1 or http://127.0.0.1:8000/v1`,
    ),
  );
}
