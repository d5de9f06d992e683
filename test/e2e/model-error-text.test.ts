/**
 * A model provider's error text becomes the turn's error only without the service's secrets and
 * bounded in size: an upstream message that echoes OPENAI_API_KEY (or another configured secret),
 * whole, masked, percent-encoded, JSON-escaped or base64-encoded, reads `[redacted:<VARIABLE>]` in `turn.failed` (event log, SSE), on the turn
 * record, in the webhook delivery and in log lines; a huge message is cut with a marker; an HTML
 * error page is summarized. Both wire protocols, through the real service and scripted servers on
 * loopback (HTTP error bodies, errors inside the stream, a failed response, a 2xx JSON error body
 * and a whole failed response object from a server that ignored `stream: true`).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64Prefixes } from '../../src/model/provider-text.js';
import { startScriptedChatServer, type ScriptedChatServer } from '../support/scripted-chat-server.js';
import { startScriptedResponsesServer, type ScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { startReceiver, type Receiver } from '../webhooks/receiver.js';
import { api, startTestService, type TestService } from './support/service.js';
import { readSse } from './support/sse-client.js';

const KEY = 'sk-test-key-0123456789abcdef';
/** A secret with /, + and = in its first characters, which a URL encodes (so the echo does not start with them). */
const STREAM_TOKEN_SECRET = 'a/b+c=stream-token-secret-0123';
const METRICS_TOKEN = 'metrics-token-0123456789';
const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`;

let chat: ScriptedChatServer;
let responses: ScriptedResponsesServer;
let receiver: Receiver;
let chatSvc: TestService;
let responsesSvc: TestService;
const logLines: string[] = [];
let turns = 0;

beforeAll(async () => {
  chat = await startScriptedChatServer();
  responses = await startScriptedResponsesServer();
  receiver = await startReceiver(WEBHOOK_SECRET);
  const env = { OPENAI_API_KEY: KEY, METRICS_TOKEN, STREAM_TOKEN_SECRET, WEBHOOK_URL: receiver.url, WEBHOOK_SECRET, WEBHOOK_ALLOW_HOSTS: '127.0.0.1', LOG_LEVEL: 'info' };
  const logDestination = { write: (line: string) => void logLines.push(line) };
  chatSvc = await startTestService({ modelBaseURL: chat.baseURL, env: { ...env, MODEL_API: 'chat' }, logDestination });
  responsesSvc = await startTestService({ modelBaseURL: responses.baseURL, env, logDestination });
});
afterAll(async () => {
  await chatSvc?.close();
  await responsesSvc?.close();
  await chat?.close();
  await responses?.close();
  await receiver?.close();
});

/** Run a turn that fails; its error as the record, the SSE `turn.failed` and the stored event say it (all equal). */
async function failedTurn(svc: TestService): Promise<{ code: string; message: string }> {
  turns++;
  const created = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
  expect(created.body.status).toBe('failed');
  const record = await api(svc.url, 'GET', `/v1/turns/${created.body.id}`);
  const sse = await readSse(`${svc.url}/v1/turns/${created.body.id}/events`);
  expect(sse.events.at(-1)).toMatchObject({ event: 'turn.failed', json: { error: record.body.error } });
  expect(created.body.error).toEqual(record.body.error);
  return record.body.error;
}

const chunk = (delta: Record<string, unknown>) => ({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: null }] });
const keyEcho = (message: string) => ({ httpError: { status: 401, body: { error: { message, type: 'invalid_request_error', code: 'invalid_api_key', param: null } } } });
const INCORRECT = `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`;
const INCORRECT_REDACTED = 'Incorrect API key provided: [redacted:OPENAI_API_KEY]. You can find your API key at https://platform.openai.com/account/api-keys.';

describe('secrets in a provider error', () => {
  it('Chat Completions: an HTTP 401 body echoing the key, whole or masked', async () => {
    chat.push(keyEcho(INCORRECT));
    expect(await failedTurn(chatSvc)).toEqual({
      code: 'invalid_api_key',
      message: `the model endpoint ${chat.baseURL} answered HTTP 401 (check OPENAI_API_KEY): ${INCORRECT_REDACTED}`,
    });
    chat.push(keyEcho('Incorrect API key provided: sk-tes*****-key.'));
    expect((await failedTurn(chatSvc)).message).toMatch(/: Incorrect API key provided: \[redacted:OPENAI_API_KEY\]\.$/);
  });

  it('Chat Completions: an error inside the stream; another configured secret (METRICS_TOKEN) too', async () => {
    chat.push({ data: [chunk({ role: 'assistant', content: 'x' }), { error: { message: `key ${KEY} is revoked`, type: 'auth', code: 401 } }] });
    expect(await failedTurn(chatSvc)).toEqual({ code: 'http_401', message: `the model endpoint ${chat.baseURL} sent an error in its stream: key [redacted:OPENAI_API_KEY] is revoked` });
    chat.push({ httpError: { status: 400, body: { error: { message: `token ${METRICS_TOKEN} is not a model key`, type: 'invalid_request_error', code: null } } } });
    expect(await failedTurn(chatSvc)).toEqual({ code: 'http_400', message: `the model endpoint ${chat.baseURL} answered HTTP 400: token [redacted:METRICS_TOKEN] is not a model key` });
  });

  it('Responses: an HTTP 401 body, an error event inside the stream, and a failed response', async () => {
    responses.push(keyEcho(INCORRECT));
    expect(await failedTurn(responsesSvc)).toEqual({
      code: 'invalid_api_key',
      message: `the model endpoint ${responses.baseURL} answered HTTP 401 (check OPENAI_API_KEY): ${INCORRECT_REDACTED}`,
    });
    responses.push({ streamError: { code: 'server_error', message: `key ${KEY} is revoked` } });
    expect(await failedTurn(responsesSvc)).toEqual({ code: 'server_error', message: `the model endpoint ${responses.baseURL} sent an error in its stream: key [redacted:OPENAI_API_KEY] is revoked` });
    const response = { id: 'resp_1', object: 'response', status: 'failed', output: [], error: { code: 'server_error', message: `bad key ${KEY} (${WEBHOOK_SECRET})` } };
    responses.push({ events: [{ type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', error: null } }, { type: 'response.failed', sequence_number: 1, response }] });
    expect(await failedTurn(responsesSvc)).toEqual({ code: 'server_error', message: `the model endpoint ${responses.baseURL} sent an error in its stream: bad key [redacted:OPENAI_API_KEY] ([redacted:WEBHOOK_SECRET])` });
  });

  it('a proxy echoing the key base64-encoded (Basic user:key, Bearer base64url(key)), on both protocols', async () => {
    const basic = Buffer.from(`user:${KEY}`).toString('base64');
    const bearer = Buffer.from(KEY).toString('base64url');
    const echo = { httpError: { status: 401, body: { error: { message: `proxy refused Authorization: Basic ${basic}; upstream said Bearer ${bearer}`, type: 'auth', code: null } } } };
    const redacted = 'proxy refused Authorization: Basic [redacted:OPENAI_API_KEY]; upstream said Bearer [redacted:OPENAI_API_KEY]';
    chat.push(echo);
    expect((await failedTurn(chatSvc)).message).toBe(`the model endpoint ${chat.baseURL} answered HTTP 401 (check OPENAI_API_KEY): ${redacted}`);
    responses.push(echo);
    expect((await failedTurn(responsesSvc)).message).toBe(`the model endpoint ${responses.baseURL} answered HTTP 401 (check OPENAI_API_KEY): ${redacted}`);
  });

  it('a proxy echoing the key base64-encoded but cut short, or wrapped across JSON-escaped lines, on both protocols', async () => {
    const basic = `Basic ${Buffer.from(`user:${KEY}`).toString('base64')}`;
    const cut = { httpError: { status: 401, body: { error: { message: `proxy saw Authorization: ${basic.slice(0, 40)}… and refused`, type: 'auth', code: null } } } };
    // A text body quoting a JSON log line: its line breaks are the two characters \n.
    const wrapped = `Basic ${basic.slice(6).match(/.{1,20}/g)!.join('\\n')}`;
    const logged = { httpError: { status: 400, body: `upstream log: {"authorization":"${wrapped}","status":401}`, headers: { 'content-type': 'text/plain' } } };
    for (const [server, svc] of [[chat, chatSvc], [responses, responsesSvc]] as const) {
      server.push(cut);
      expect((await failedTurn(svc)).message).toBe(`the model endpoint ${server.baseURL} answered HTTP 401 (check OPENAI_API_KEY): proxy saw Authorization: Basic [redacted:OPENAI_API_KEY]… and refused`);
      server.push(logged);
      expect((await failedTurn(svc)).message).toBe(`the model endpoint ${server.baseURL} answered HTTP 400: upstream log: {"authorization":"Basic [redacted:OPENAI_API_KEY]","status":401}`);
    }
  });

  it('a proxy echoing its request URL with a secret percent-encoded (%2F, %2b, %3D), on both protocols', async () => {
    const encoded = encodeURIComponent(STREAM_TOKEN_SECRET).replace(/%2B/g, '%2b');
    expect(encoded).toMatch(/^a%2Fb%2bc%3D/);
    const echo = { httpError: { status: 403, body: { error: { message: `proxy refused GET https://upstream.example/v1/models?key=${encoded}&x=1`, type: 'auth', code: null } } } };
    for (const [server, svc] of [[chat, chatSvc], [responses, responsesSvc]] as const) {
      server.push(echo);
      expect((await failedTurn(svc)).message).toMatch(/: proxy refused GET https:\/\/upstream\.example\/v1\/models\?key=\[redacted:STREAM_TOKEN_SECRET\]&x=1$/);
    }
  });

  it('a key JSON-escaped (sk\\u002d…, every character \\uXXXX, a\\/b), whole or in a masked echo, on both protocols', async () => {
    // A text body quoting a JSON log line (the escapes are its characters).
    const escapedKey = KEY.replace(/-/g, '\\u002d');
    const allEscaped = [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const escapedSecret = STREAM_TOKEN_SECRET.replace(/\//g, '\\/');
    const logged = { httpError: { status: 400, body: `upstream log: {"key":"${escapedKey}","all":"${allEscaped}","token":"${escapedSecret}","masked":"sk\\u002dtes****cdef"}`, headers: { 'content-type': 'text/plain' } } };
    for (const [server, svc] of [[chat, chatSvc], [responses, responsesSvc]] as const) {
      server.push(logged);
      expect((await failedTurn(svc)).message).toBe(
        `the model endpoint ${server.baseURL} answered HTTP 400: upstream log: {"key":"[redacted:OPENAI_API_KEY]","all":"[redacted:OPENAI_API_KEY]","token":"[redacted:STREAM_TOKEN_SECRET]","masked":"[redacted:OPENAI_API_KEY]"}`,
      );
    }
  });

  it('a masked echo percent-encoded (a%2Fb%2Bc%3Dst****0123), on both protocols', async () => {
    const maskedEncoded = `${encodeURIComponent(STREAM_TOKEN_SECRET.slice(0, 8))}****0123`;
    expect(maskedEncoded).toBe('a%2Fb%2Bc%3Dst****0123');
    const quoted = { httpError: { status: 401, body: { error: { message: `proxy saw token=${maskedEncoded}.`, type: 'auth', code: null } } } };
    for (const [server, svc] of [[chat, chatSvc], [responses, responsesSvc]] as const) {
      server.push(quoted);
      expect((await failedTurn(svc)).message).toBe(`the model endpoint ${server.baseURL} answered HTTP 401 (check OPENAI_API_KEY): proxy saw token=[redacted:STREAM_TOKEN_SECRET].`);
    }
  });

  it('a 200 JSON error body on a streaming request (a server that ignored stream: true) gives the provider\'s message and code, the key redacted, on both protocols', async () => {
    const errorBody = { httpError: { status: 200, body: { error: { message: `key ${KEY} may not use this model`, type: 'invalid_request_error', code: 'model_not_found', param: null } } } };
    for (const [server, svc] of [[chat, chatSvc], [responses, responsesSvc]] as const) {
      server.push(errorBody);
      expect(await failedTurn(svc)).toEqual({
        code: 'model_not_found',
        message: `the model endpoint ${server.baseURL} answered with an error as a whole JSON answer (not a stream): key [redacted:OPENAI_API_KEY] may not use this model`,
      });
    }
    // vLLM's shape, with a numeric code; a bare error object without a message gives its type.
    chat.push({ httpError: { status: 200, body: { object: 'error', message: `bad key ${KEY}`, type: 'BadRequestError', param: null, code: 400 } } });
    expect(await failedTurn(chatSvc)).toEqual({ code: 'http_400', message: `the model endpoint ${chat.baseURL} answered with an error as a whole JSON answer (not a stream): bad key [redacted:OPENAI_API_KEY]` });
    chat.push({ httpError: { status: 200, body: { error: { type: 'overloaded' } } } });
    expect(await failedTurn(chatSvc)).toEqual({ code: 'overloaded', message: `the model endpoint ${chat.baseURL} answered with an error as a whole JSON answer (not a stream): the error came without message text` });
  });

  it('a 200 JSON error body whose message is not a string shows it as JSON (bounded, the key redacted), never the code as the message, on both protocols', async () => {
    const objectMessage = { httpError: { status: 200, body: { error: { message: { text: `quota for ${KEY} used up`, retry: false }, code: 'x' } } } };
    const huge = { httpError: { status: 200, body: { error: { message: { lines: Array.from({ length: 500 }, (_, i) => `line ${i}`) }, code: 'x' } } } };
    const without = { httpError: { status: 200, body: { error: { message: null, code: 'x' } } } };
    for (const [server, svc] of [[chat, chatSvc], [responses, responsesSvc]] as const) {
      const says = `the model endpoint ${server.baseURL} answered with an error as a whole JSON answer (not a stream): `;
      server.push(objectMessage);
      expect(await failedTurn(svc)).toEqual({ code: 'x', message: `${says}{"text":"quota for [redacted:OPENAI_API_KEY] used up","retry":false}` });
      server.push(huge);
      const cut = await failedTurn(svc);
      expect(cut.code).toBe('x');
      expect(cut.message).toMatch(new RegExp(`^${says.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\{"lines":\\["line 0","line 1",.*… \\[truncated \\d+ characters\\]$`));
      expect(cut.message.length).toBeLessThan(says.length + 4100);
      // A key that straddles where a cut before the redaction would have fallen is redacted whole.
      server.push({ httpError: { status: 200, body: { error: { message: { k: `${'x'.repeat(987)}${KEY}${'y'.repeat(50)}` }, code: 'x' } } } });
      const straddling = await failedTurn(svc);
      expect(straddling.message).toBe(`${says}{"k":"${'x'.repeat(987)}[redacted:OPENAI_API_KEY]${'y'.repeat(50)}"}`);
      server.push(without);
      expect(await failedTurn(svc)).toEqual({ code: 'x', message: `${says}the error came without message text` });
    }
    // Responses: a failed response object, whole or streamed, whose error message is an object.
    const failed = { id: 'resp_obj', object: 'response', status: 'failed', output: [], error: { code: 'server_error', message: { detail: `bad key ${KEY}` } } };
    responses.push({ httpError: { status: 200, body: failed } });
    expect(await failedTurn(responsesSvc)).toEqual({
      code: 'server_error',
      message: `the model endpoint ${responses.baseURL} answered with an error as a whole JSON answer (not a stream): {"detail":"bad key [redacted:OPENAI_API_KEY]"}`,
    });
    responses.push({ events: [{ type: 'response.created', response: { ...failed, status: 'in_progress', error: null } }, { type: 'response.failed', response: failed }] });
    expect(await failedTurn(responsesSvc)).toEqual({
      code: 'server_error',
      message: `the model endpoint ${responses.baseURL} sent an error in its stream: {"detail":"bad key [redacted:OPENAI_API_KEY]"}`,
    });
  });

  it('Responses: a whole JSON response object with status failed says the endpoint answered it whole, the key redacted', async () => {
    responses.push({ httpError: { status: 200, body: { id: 'resp_9', object: 'response', status: 'failed', output: [], error: { code: 'server_error', message: `bad key ${KEY}` } } } });
    expect(await failedTurn(responsesSvc)).toEqual({
      code: 'server_error',
      message: `the model endpoint ${responses.baseURL} answered with an error as a whole JSON answer (not a stream): bad key [redacted:OPENAI_API_KEY]`,
    });
  });

  it('reaches no log line and no webhook delivery either', async () => {
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(turns);
    const deliveries = receiver.received.map((d) => d.body).join('\n');
    expect(deliveries).toContain('[redacted:OPENAI_API_KEY]');
    const logs = logLines.join('');
    expect(logs).toContain('"msg":"turn finished"');
    expect(logs).toContain('[redacted:OPENAI_API_KEY]');
    for (const text of [deliveries, logs]) {
      expect(text).not.toContain(KEY);
      expect(text.toLowerCase()).not.toContain(encodeURIComponent(STREAM_TOKEN_SECRET).toLowerCase());
      expect(text).not.toContain('sk-tes*');
      expect(text).not.toContain('u002dtes');
      expect(text).not.toContain('\\\\u0073\\\\u006b'); // the all-escaped key, as JSON writes it
      expect(text).not.toContain('a%2Fb%2Bc%3Dst');
      expect(text).not.toContain(METRICS_TOKEN);
      expect(text).not.toContain(WEBHOOK_SECRET.slice(6));
      for (const core of base64Prefixes(KEY)) expect(text).not.toContain(core);
    }
  });
});

describe('the size and form of a provider error', () => {
  const huge = { httpError: { status: 400, body: { error: { message: 'E'.repeat(200_000), type: 'x', code: 400 } } } };
  const page = `<html><body><h1>500 Internal Server Error</h1>${'x'.repeat(5000)}</body></html>`;
  const htmlError = { httpError: { status: 500, body: page, headers: { 'content-type': 'text/html' } } };
  /** The start of a message of an HTTP error answer of the endpoint `baseURL`. */
  const answered = (baseURL: string, status: number) => `the model endpoint ${baseURL} answered HTTP ${status}: `;
  /** The huge message cut to 4000 characters, endpoint included, with the marker. */
  const cut = (baseURL: string) => {
    const whole = `${answered(baseURL, 400)}${'E'.repeat(200_000)}`;
    return `${whole.slice(0, 4000)}… [truncated ${whole.length - 4000} characters]`;
  };
  const summary = (baseURL: string) => `${answered(baseURL, 500)}an HTML page of ${page.length} bytes: "500 Internal Server Error"`;

  it('Chat Completions: a 200,000-character message is cut with a marker; an HTML page is summarized', async () => {
    chat.push(huge);
    expect(await failedTurn(chatSvc)).toEqual({ code: 'http_400', message: cut(chat.baseURL) });
    chat.push(htmlError);
    expect(await failedTurn(chatSvc)).toEqual({ code: 'http_500', message: summary(chat.baseURL) });
  });

  it('Responses: the same', async () => {
    responses.push(huge);
    expect(await failedTurn(responsesSvc)).toEqual({ code: 'http_400', message: cut(responses.baseURL) });
    responses.push(htmlError);
    expect(await failedTurn(responsesSvc)).toEqual({ code: 'http_500', message: summary(responses.baseURL) });
  });

  // nginx's own error page has no <html> when served bare; a proxy may send a page after a byte order mark, or HTML that starts with text.
  const nginx = '\uFEFF\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n';
  const bareHtml = [
    { step: { httpError: { status: 502, body: nginx, headers: { 'content-type': 'text/plain' } } }, message: `an HTML page of ${Buffer.byteLength(nginx) - 3} bytes: "502 Bad Gateway"` }, // the SDK decodes the body without its byte order mark (3 bytes)
    { step: { httpError: { status: 503, body: '  <title>Service Unavailable</title><p>Try later</p>', headers: { 'content-type': 'application/octet-stream' } } }, message: 'an HTML page of 52 bytes, titled "Service Unavailable"' },
    { step: { httpError: { status: 504, body: 'Upstream <b>timed out</b> after 60 s', headers: { 'content-type': 'text/html; charset=utf-8' } } }, message: 'an HTML page of 36 bytes: "Upstream timed out after 60 s"' },
  ];

  it('Chat Completions and Responses: an HTML page without <html> (a leading <center> or <title>, or Content-Type text/html) is summarized too', async () => {
    for (const [server, svc] of [[chat, chatSvc], [responses, responsesSvc]] as const) {
      for (const { step, message } of bareHtml) {
        server.push(step);
        expect(await failedTurn(svc)).toEqual({ code: `http_${step.httpError.status}`, message: `${answered(server.baseURL, step.httpError.status)}${message}` });
      }
    }
  });

  // OpenAI-compatible servers that answer errors in their own shapes (no `error` object).
  const nonStandard = [
    { step: { httpError: { status: 400, body: { object: 'error', message: 'max_tokens must be at most 4096', type: 'BadRequestError', param: null, code: 400 } } }, code: 'http_400', text: 'max_tokens must be at most 4096' }, // vLLM
    { step: { httpError: { status: 404, body: { object: 'error', message: 'The model `m` does not exist.', type: 'NotFoundError', param: null, code: 'model_not_found' } } }, code: 'model_not_found', text: 'The model `m` does not exist.' }, // vLLM, a string code
    { step: { httpError: { status: 422, body: { error: 'Input validation error: `inputs` must have less than 4096 tokens', error_type: 'validation' } } }, code: 'http_422', text: 'Input validation error: `inputs` must have less than 4096 tokens' }, // Hugging Face TGI
    { step: { httpError: { status: 405, body: { detail: 'Method Not Allowed' } } }, code: 'http_405', text: 'Method Not Allowed' }, // FastAPI
    {
      // FastAPI's validation error (pydantic v1 and v2 entries)
      step: { httpError: { status: 422, body: { detail: [{ loc: ['body', 'messages', 0, 'content'], msg: 'field required', type: 'value_error.missing' }, { type: 'missing', loc: ['body', 'model'], msg: 'Field required', input: { secret: 'not shown' } }] } } },
      code: 'http_422',
      text: 'body.messages.0.content: field required; body.model: Field required',
    },
  ];

  it('Chat Completions and Responses: the message of an error body in a server\'s own shape (vLLM, TGI, FastAPI, FastAPI\'s validation list)', async () => {
    for (const [server, svc] of [[chat, chatSvc], [responses, responsesSvc]] as const) {
      for (const { step, code, text } of nonStandard) {
        server.push(step);
        const status = step.httpError.status;
        // The scripted servers' base URLs end in /v1: the hint does not add that they usually do.
        const hint =
          status === 404 ? " (check OPENAI_BASE_URL and the model name (MODEL, or the turn's `model`))"
          : status === 405 || status === 501 ? ' (the address takes no POST of a model request, so it is likely no model API: check OPENAI_BASE_URL)'
          : '';
        expect(await failedTurn(svc)).toEqual({ code, message: `the model endpoint ${server.baseURL} answered HTTP ${step.httpError.status}${hint}: ${text}` });
      }
    }
  });

  it('Chat Completions and Responses: OPENAI_BASE_URL without /v1 (its 404) says the base URL usually ends in /v1; one ending in /v1 is not told so', async () => {
    for (const [server, api_] of [[chat, 'chat'], [responses, 'responses']] as const) {
      const bare = server.baseURL.replace(/\/v1$/, '');
      const svc = await startTestService({ modelBaseURL: bare, env: { OPENAI_API_KEY: KEY, MODEL_API: api_ } });
      try {
        const path = api_ === 'chat' ? '/chat/completions' : '/responses';
        // Not through failedTurn: this service sends no webhooks, which the last test counts.
        const created = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hi' });
        expect(created.body.status).toBe('failed');
        expect(created.body.error).toEqual({
          code: 'not_found',
          message: `the model endpoint ${bare} answered HTTP 404 (check OPENAI_BASE_URL — the API's base URL, usually ending in /v1 — and the model name (MODEL, or the turn's \`model\`)): no route POST ${path}`,
        });
      } finally {
        await svc.close();
      }
    }
  });

  it('Chat Completions and Responses: an old vLLM error object ({"object":"error", …}) inside a 200 stream gives its message and code', async () => {
    const vllm = JSON.stringify({ object: 'error', message: 'max_tokens must be at most 4096', type: 'BadRequestError', param: null, code: 400 });
    chat.push({ data: [chunk({ role: 'assistant', content: 'x' }), vllm] });
    responses.push({ events: [{ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', object: 'response', status: 'in_progress', output: [] } }, vllm] });
    for (const [server, svc] of [[chat, chatSvc], [responses, responsesSvc]] as const) {
      expect(await failedTurn(svc)).toEqual({ code: 'http_400', message: `the model endpoint ${server.baseURL} sent an error in its stream: max_tokens must be at most 4096` });
    }
  });

  it('keeps log lines and webhook deliveries small', async () => {
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(turns);
    for (const d of receiver.received) expect(d.body.length).toBeLessThan(20_000);
    for (const line of logLines) {
      expect(line.length).toBeLessThan(20_000);
      expect(line).not.toContain('<h1>');
      expect(line).not.toContain('<center>');
      expect(line).not.toContain('<title>');
    }
  });
});
