/**
 * The one check of a model answer's media type: both transports ask for a stream, and a 2xx answer
 * that is no event stream — an HTML page or a JSON document from a wrong OPENAI_BASE_URL (a web
 * server, a proxy's landing page, an API without `/v1`), or a server that ignores `stream: true` —
 * would otherwise read as an empty stream and fail the turn with `stream_interrupted` ("ended
 * before the response completed"), which points nowhere. Checked once per response, on its
 * headers, before the first event is read: nothing per event.
 */
import { discardBody } from './model-fetch.js';
import { afterResponse, endpointForDisplay, ModelError } from './model-error.js';

/**
 * Refuse a model response whose `Content-Type` is set and is not `text/event-stream` (parameters
 * such as `; charset=utf-8` ignored; an answer without the header passes, as some servers send
 * none). Its body is dropped unread.
 * @param response the 2xx response the SDK returned for a streaming request.
 * @throws ModelError `not_event_stream`, marked {@link afterResponse} (the endpoint answered; a
 *   server that ignored `stream: true` may have spent tokens), message e.g. `the model endpoint
 *   answered http://127.0.0.1:8000/responses with Content-Type "text/html" instead of an event
 *   stream (text/event-stream): check OPENAI_BASE_URL — it must be the API's base URL, such as
 *   https://api.openai.com/v1 or http://127.0.0.1:8000/v1`.
 */
export async function assertEventStream(response: Response): Promise<void> {
  const type = response.headers.get('content-type');
  if (type === null) return;
  const media = type.split(';')[0].trim().toLowerCase();
  if (media === 'text/event-stream') return;
  await discardBody(response);
  const where = response.url ? ` ${endpointForDisplay(response.url.split('?')[0])}` : ''; // never its credentials
  throw afterResponse(
    new ModelError(
      'not_event_stream',
      `the model endpoint answered${where} with Content-Type ${JSON.stringify(media.slice(0, 100))} instead of an event stream (text/event-stream): check OPENAI_BASE_URL — it must be the API's base URL, such as https://api.openai.com/v1 or http://127.0.0.1:8000/v1`,
    ),
  );
}
