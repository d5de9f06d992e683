/**
 * Logs people can read: JSON lines with ISO times and level names, request lines only at debug,
 * a start-up line with the links, and a model connection failure that names the endpoint and the
 * cause — in the turn's error, in the log and in /readyz.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { api, startTestService } from '../e2e/support/service.js';
import { escapeRegExp } from '../../src/regexp-escape.js';
import { freePort, spawnService, waitHealthy } from '../e2e/support/child.js';
import { functionCall, message, startScriptedResponsesServer } from '../support/scripted-responses-server.js';
import { startScriptedChatServer } from '../support/scripted-chat-server.js';

function capture() {
  const lines: string[] = [];
  return { lines, json: () => lines.map((l) => JSON.parse(l)), write: (l: string) => void lines.push(...l.split('\n').filter(Boolean)) };
}

describe('log lines', () => {
  it('at info: no per-request lines; every line has an ISO time and a level name', async () => {
    const out = capture();
    const svc = await startTestService({ env: { LOG_LEVEL: 'info' }, logDestination: out });
    try {
      for (let i = 0; i < 5; i++) await api(svc.url, 'GET', '/v1/turns');
      await api(svc.url, 'GET', '/v1/turns/nope');
    } finally {
      await svc.close();
    }
    const lines = out.json();
    expect(lines.filter((l) => /request/.test(l.msg ?? '') && l.req)).toEqual([]);
    for (const l of lines) {
      expect(l.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(['fatal', 'error', 'warn', 'info']).toContain(l.level);
    }
  });

  it('at debug: one line per request with method, URL, status and response time', async () => {
    const out = capture();
    const svc = await startTestService({ env: { LOG_LEVEL: 'debug' }, logDestination: out });
    try {
      await api(svc.url, 'GET', '/v1/turns?limit=3');
      await api(svc.url, 'GET', '/v1/turns/nope');
    } finally {
      await svc.close();
    }
    const requests = out.json().filter((l) => l.msg === 'request completed');
    expect(requests.map((l) => [l.level, l.req.method, l.req.url, l.res.statusCode])).toEqual([
      ['debug', 'GET', '/v1/turns?limit=3', 200],
      ['debug', 'GET', '/v1/turns/nope', 404],
    ]);
    expect(typeof requests[0].responseTime).toBe('number');
  });
});

describe('turn lifecycle lines', () => {
  it('logs `turn started` and `turn finished` (status, stop reason, steps, usage, duration) at info', async () => {
    const model = await startScriptedResponsesServer();
    model.push({ output: [message('Hi there.')] });
    const out = capture();
    const svc = await startTestService({ modelBaseURL: model.baseURL, env: { LOG_LEVEL: 'info' }, logDestination: out });
    try {
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello', agent_id: 'logger' });
      expect(turn.body.status).toBe('completed');
      await expect.poll(() => out.json().some((l) => l.msg === 'turn finished')).toBe(true);
      const mine = out.json().filter((l) => l.turn_id === turn.body.id);
      expect(mine.find((l) => l.msg === 'turn started')).toMatchObject({ level: 'info', agent_id: 'logger', kind: 'main', previous_run: 'none' });
      const finished = mine.find((l) => l.msg === 'turn finished');
      expect(finished).toMatchObject({ level: 'info', status: 'completed', stop_reason: 'stop', steps: 1, usage: turn.body.usage });
      expect(finished.duration_ms).toBeGreaterThanOrEqual(0);
    } finally {
      await svc.close();
      await model.close();
    }
  });
});

describe('turn started / turn resumed', () => {
  it('logs `turn resumed` (not a second `turn started`) when a turn goes on after an approval', async () => {
    const model = await startScriptedResponsesServer([
      { output: [functionCall('todo', { todos: [{ id: '1', content: 'x', status: 'pending' }] }, { callId: 'call_a' })] },
      { output: [message('approved and done')] },
    ]);
    const out = capture();
    const svc = await startTestService({ modelBaseURL: model.baseURL, env: { LOG_LEVEL: 'info' }, logDestination: out });
    try {
      const created = await api(svc.url, 'POST', '/v1/turns', { input: 'plan', tools: ['todo'], approvals: { todo: 'always' } });
      const id = created.body.id as string;
      await expect.poll(async () => (await api(svc.url, 'GET', `/v1/turns/${id}`)).body.status).toBe('waiting');
      expect((await api(svc.url, 'POST', `/v1/turns/${id}/approvals`, { call_id: 'call_a', decision: 'approve' })).status).toBe(200);
      await expect.poll(async () => (await api(svc.url, 'GET', `/v1/turns/${id}`)).body.status).toBe('completed');
      const lines = out.json().filter((l) => l.turn_id === id && (l.msg === 'turn started' || l.msg === 'turn resumed')).map((l) => l.msg);
      expect(lines).toEqual(['turn started', 'turn resumed']);
    } finally {
      await svc.close();
      await model.close();
    }
  });
});

describe('a model that refuses the key or does not know the model', () => {
  const openaiError = (message: string, code: string | null) => ({ error: { message, type: 'invalid_request_error', param: null, code } });
  /** Each failing turn's `turn finished` line as [level, error code] (`messages` gets the turns' error messages). */
  async function finishedLines(api_: 'responses' | 'chat', answers: { status: number; body: unknown; headers?: Record<string, string> }[], messages: string[] = []) {
    const model = api_ === 'chat' ? await startScriptedChatServer() : await startScriptedResponsesServer();
    const out = capture();
    const svc = await startTestService({ modelBaseURL: model.baseURL, env: { LOG_LEVEL: 'info', MODEL_API: api_ }, logDestination: out });
    try {
      const lines: [string, string][] = [];
      for (const answer of answers) {
        model.push({ httpError: answer });
        const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello' });
        expect(turn.body.status).toBe('failed');
        await expect.poll(() => out.json().some((l) => l.msg === 'turn finished' && l.turn_id === turn.body.id)).toBe(true);
        const line = out.json().find((l) => l.msg === 'turn finished' && l.turn_id === turn.body.id);
        lines.push([line.level, line.error.code]);
        messages.push(turn.body.error.message);
      }
      return lines;
    } finally {
      await svc.close();
      await model.close();
    }
  }

  it('logs `turn finished` at error for 401, 403 and 404 answers (Responses API), at info for a bad request', async () => {
    expect(await finishedLines('responses', [
      { status: 401, body: openaiError('Incorrect API key provided: sk-wrong. You can find your API key at https://platform.openai.com/account/api-keys.', 'invalid_api_key') },
      { status: 404, body: openaiError('The model `gpt-nope` does not exist or you do not have access to it.', 'model_not_found') },
      { status: 403, body: openaiError('Project does not have access to this model.', null) },
      { status: 400, body: openaiError('Invalid value for input.', 'invalid_value') },
    ])).toEqual([['error', 'invalid_api_key'], ['error', 'model_not_found'], ['error', 'http_403'], ['info', 'invalid_value']]);
  });

  it('logs `turn finished` at error for 401 and 404 answers of a Chat Completions server (numeric or no codes), at info for a bad request', async () => {
    expect(await finishedLines('chat', [
      { status: 401, body: { error: { message: 'Unauthorized', type: 'invalid_request_error', code: 401 } } },
      { status: 404, body: { error: { message: 'model "llama9" not found, try pulling it first', type: 'api_error', param: null, code: null } } },
      { status: 400, body: { error: { message: 'bad messages', type: 'BadRequestError', code: 400 } } },
    ])).toEqual([['error', 'http_401'], ['error', 'http_404'], ['info', 'http_400']]);
  });

  it('says the model endpoint answered a 401/403/404, and which setting to check — also when its code is a generic not_found', async () => {
    const messages: string[] = [];
    expect(await finishedLines('responses', [
      { status: 404, body: openaiError('no route POST /nf/v1/responses', 'not_found') },
      { status: 401, body: openaiError('Unauthorized', 'unauthorized') },
      { status: 403, body: openaiError('Forbidden', null) },
      { status: 429, body: openaiError('slow down', 'rate_limit_exceeded') },
    ], messages)).toEqual([['error', 'not_found'], ['error', 'unauthorized'], ['error', 'http_403'], ['info', 'rate_limit_exceeded']]);
    expect(messages[0]).toMatch(/^the model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 404 \(check OPENAI_BASE_URL and the model name \(MODEL, or the turn's `model`\)\): no route POST \/nf\/v1\/responses$/);
    expect(messages[1]).toMatch(/answered HTTP 401 \(check OPENAI_API_KEY\): Unauthorized$/);
    expect(messages[2]).toMatch(/answered HTTP 403 \(.*OPENAI_API_KEY and the model name \(MODEL, or the turn's `model`\)\): Forbidden$/);
    expect(messages[3]).toMatch(/^the model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 429: slow down$/);
  });

  it('says an address that takes no POST (501 from a static file server, 405) is likely no model API, logged as an error', async () => {
    const messages: string[] = [];
    const page = '<!DOCTYPE HTML><html lang="en"><head><meta charset="utf-8"><title>Error response</title></head><body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method (\'POST\').</p></body></html>';
    expect(await finishedLines('responses', [
      { status: 501, body: page, headers: { 'content-type': 'text/html;charset=utf-8' } },
      { status: 405, body: openaiError('Method Not Allowed', null) },
    ], messages)).toEqual([['error', 'http_501'], ['error', 'http_405']]);
    expect(messages[0]).toMatch(/^the model endpoint http:\/\/127\.0\.0\.1:\d+\/v1 answered HTTP 501 \(the address takes no POST of a model request, so it is likely no model API: check OPENAI_BASE_URL\): an HTML page of \d+ bytes, titled "Error response"$/);
    expect(messages[1]).toMatch(/answered HTTP 405 \(the address takes no POST .*\): Method Not Allowed$/);
  });
});

describe('a model endpoint that refuses connections', () => {
  it('fails the turn with the base URL and ECONNREFUSED host:port, logs the same, and /readyz says not ready', async () => {
    const port = await freePort(); // nothing listens there
    const baseURL = `http://127.0.0.1:${port}/v1`;
    const out = capture();
    const svc = await startTestService({ env: { OPENAI_BASE_URL: baseURL, LOG_LEVEL: 'info' }, logDestination: out });
    try {
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello' });
      expect(turn.body.status).toBe('failed');
      expect(turn.body.error.code).toBe('connection_error');
      expect(turn.body.usage).toEqual({ input_tokens: 0, output_tokens: 0 }); // nothing reached the model: nothing spent
      expect(turn.body.error.message).toBe(`could not connect to the model endpoint ${baseURL} (ECONNREFUSED 127.0.0.1:${port}): check OPENAI_BASE_URL and that the model server is running and reachable from this host`);
      const logged = out.json().filter((l) => l.level === 'error' && String(l.msg).includes(`ECONNREFUSED 127.0.0.1:${port}`));
      expect(logged.length).toBeGreaterThanOrEqual(1);
      expect(logged[0].msg).toContain(baseURL);
      await expect.poll(() => out.json().some((l) => l.msg === 'turn finished')).toBe(true);
      expect(out.json().find((l) => l.msg === 'turn finished')).toMatchObject({ level: 'error', status: 'failed', error: { code: 'connection_error' } });

      const ready = await api(svc.url, 'GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.error.code).toBe('not_ready');
      expect(ready.body.error.message).toBe(`cannot reach the model endpoint ${baseURL} (ECONNREFUSED 127.0.0.1:${port}): check OPENAI_BASE_URL and that the model server is running and reachable from this host`);
      expect(ready.body.error.details.checks).toMatchObject({ database: 'ok', model: 'unreachable' });
    } finally {
      await svc.close();
    }
  });
});

/**
 * A turn on each model protocol (responses, chat) against `baseURL` fails with `connection_error`
 * and a message matching `expected`, and /readyz answers 503 with the same message.
 */
async function expectConnectionErrorEverywhere(baseURL: string, expected: RegExp): Promise<void> {
  for (const api_ of ['responses', 'chat']) {
    const svc = await startTestService({ env: { OPENAI_BASE_URL: baseURL, MODEL_MAX_RETRIES: '0', MODEL_API: api_ } });
    try {
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello' });
      expect(turn.body).toMatchObject({ status: 'failed', error: { code: 'connection_error' } });
      expect(turn.body.error.message).toMatch(expected);
      const ready = await api(svc.url, 'GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.error.message).toMatch(expected);
    } finally {
      await svc.close();
    }
  }
}

describe('a model endpoint that accepts connections and closes them before answering', () => {
  const closedHint = "the model server may have crashed or dropped the request (its logs say why), or OPENAI_BASE_URL names a port that does not speak plain HTTP (e.g. http:// to a TLS port): check OPENAI_BASE_URL and the model server's logs";
  // `cause`: a regular expression of undici's reason.
  const cases = [
    { name: 'closed (FIN)', close: (s: net.Socket) => s.destroy(), cause: 'UND_ERR_SOCKET: other side closed' },
    // A reset while the request is still being written may read EPIPE instead.
    { name: 'reset (RST)', close: (s: net.Socket) => s.resetAndDestroy(), cause: '(?:ECONNRESET|EPIPE)' },
  ];
  for (const { name, close, cause } of cases) {
    it(`${name}: the turn (both protocols) and /readyz say it accepted the connection and closed it before answering, with undici's reason`, async () => {
      const server = net.createServer((socket) => socket.once('data', () => close(socket)));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const baseURL = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`;
      const expected = new RegExp(`^${escapeRegExp(`the model endpoint ${baseURL} accepted the connection and closed it before answering (`)}${cause}${escapeRegExp(`): ${closedHint}`)}$`);
      await expectConnectionErrorEverywhere(baseURL, expected);
      await new Promise((r) => server.close(r));
    });
  }
});

describe('a model endpoint that answers in another protocol than HTTP', () => {
  it('the turn (both protocols) and /readyz say it answered with something that is not HTTP, and what OPENAI_BASE_URL must name', async () => {
    const server = net.createServer((socket) => socket.once('data', () => socket.end('SSH-2.0-OpenSSH_9.2\r\n')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const baseURL = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`;
    const expected = new RegExp(
      `^${escapeRegExp(`the model endpoint ${baseURL} answered with something that is not HTTP (Response does not match the HTTP/1.1 protocol (`)}[^)]*${escapeRegExp(`)): OPENAI_BASE_URL must name the model server's HTTP API — its scheme, host and port (https:// for a TLS port) — not another service's port`)}$`,
    );
    try {
      await expectConnectionErrorEverywhere(baseURL, expected);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('the start-up line', () => {
  /**
   * Start the real entry point on a new temporary folder (DATA_DIR: `folder` inside it, if given),
   * wait for its start-up line, stop it with SIGTERM: `output` up to the start-up line, `all` the
   * whole output once it exited with `code`.
   */
  async function startupOutput(env: Record<string, string>, folder?: string) {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'turns-logs-'));
    const dataDir = folder === undefined ? scratch : path.join(scratch, folder);
    const port = await freePort();
    const child = spawnService({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ...env });
    let output: string;
    try {
      await waitHealthy(`http://127.0.0.1:${port}`, child);
      await expect.poll(() => child.output(), { timeout: 5000 }).toContain('turn service listening');
      output = child.output();
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
      rmSync(scratch, { recursive: true, force: true });
    }
    return { port, output, dataDir, all: child.output(), code: await child.exited };
  }

  const jsonLines = (output: string) => output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));

  it('shows a DATA_DIR with a bidi control or a line break escaped as the refusals do, without their quotes (the field is a JSON string), never raw', async () => {
    const { output, dataDir } = await startupOutput({ LOG_FORMAT: 'json' }, 'data\u202Etxt\n.exe');
    const line = jsonLines(output).find((l) => String(l.msg).startsWith('turn service listening'));
    expect(line.data_dir).toBe(dataDir.replace('\u202E', '\\u202E').replace('\n', '\\u000A'));
    expect(output).not.toContain('\u202E');
    // A clean path is the field as it is.
    const clean = await startupOutput({ LOG_FORMAT: 'json' });
    expect(jsonLines(clean.output).find((l) => String(l.msg).startsWith('turn service listening')).data_dir).toBe(clean.dataDir);
  });

  it('after SIGTERM, the last line says the service stopped, with the signal and exit code 0', async () => {
    const { all, code } = await startupOutput({ LOG_FORMAT: 'json' });
    expect(code).toBe(0);
    const lines = jsonLines(all);
    expect(lines.map((l) => l.msg).slice(-2)).toEqual(['shutting down', 'stopped']);
    expect(lines.at(-1)).toMatchObject({ level: 'info', msg: 'stopped', signal: 'SIGTERM', exit_code: 0 });
    expect(all.trimEnd().split('\n').at(-1)!.startsWith('{')).toBe(true);
  });

  it('SIGTERM sent the moment /healthz first answers (start-up may not have finished) stops the service gracefully: exit 0, the stopped line last', async () => {
    for (let i = 0; i < 3; i++) {
      const scratch = mkdtempSync(path.join(os.tmpdir(), 'turns-logs-'));
      const port = await freePort();
      const child = spawnService({ DATA_DIR: scratch, PORT: String(port), HOST: '127.0.0.1', LOG_FORMAT: 'json' });
      try {
        // As an orchestrator's readiness probe would: ask often, signal at the first answer.
        for (;;) {
          if (child.proc.exitCode !== null) throw new Error(`service exited early:\n${child.output()}`);
          const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
          if (ok) break;
          await new Promise((r) => setTimeout(r, 5));
        }
        child.proc.kill('SIGTERM');
        expect(await child.exited).toBe(0);
        expect(jsonLines(child.output()).at(-1)).toMatchObject({ msg: 'stopped', signal: 'SIGTERM', exit_code: 0 });
      } finally {
        child.proc.kill('SIGKILL');
        rmSync(scratch, { recursive: true, force: true });
      }
    }
  });

  it('names the API base URL, /docs and /console (JSON)', async () => {
    const { port, output } = await startupOutput({ LOG_FORMAT: 'json' });
    const line = output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => String(l.msg).startsWith('turn service listening'));
    const base = `http://127.0.0.1:${port}`;
    expect(line.msg).toBe(`turn service listening: API ${base}/v1, docs ${base}/docs, console ${base}/console`);
    expect(line).toMatchObject({ level: 'info', api: `${base}/v1`, docs: `${base}/docs`, console: `${base}/console` });
  });

  it('with HOST=:: (every address) names [::1], a URL a client can open, not [::]', async () => {
    const { port, output } = await startupOutput({ LOG_FORMAT: 'json', HOST: '::', AUTH_TOKENS: 'a-token-of-16-chars-or-more' });
    const line = output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)).find((l) => String(l.msg).startsWith('turn service listening'));
    const base = `http://[::1]:${port}`;
    expect(line.msg).toBe(`turn service listening: API ${base}/v1, docs ${base}/docs, console ${base}/console`);
    expect(line).toMatchObject({ address: base, api: `${base}/v1`, docs: `${base}/docs`, console: `${base}/console` });
  });

  it('LOG_FORMAT=pretty prints human lines, not JSON', async () => {
    const { port, output } = await startupOutput({ LOG_FORMAT: 'pretty' });
    const line = output.split('\n').find((l) => l.includes('turn service listening'))!;
    expect(line.trim().startsWith('{')).toBe(false);
    expect(line).toMatch(/INFO/);
    expect(line).toContain(`http://127.0.0.1:${port}/docs`);
  });
});

describe('a model endpoint on port 1 (a "bad port" that browsers\' fetch refuses without trying)', () => {
  it('is tried like any other port (model traffic is not a browser\'s): the turn and /readyz name ECONNREFUSED host:port', async () => {
    const baseURL = 'http://127.0.0.1:1/v1';
    const svc = await startTestService({ env: { OPENAI_BASE_URL: baseURL } });
    try {
      const turn = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'hello' });
      expect(turn.body.error.code).toBe('connection_error');
      expect(turn.body.error.message).toBe(`could not connect to the model endpoint ${baseURL} (ECONNREFUSED 127.0.0.1:1): check OPENAI_BASE_URL and that the model server is running and reachable from this host`);
      // /readyz probes on the same HTTP stack, so it says the same.
      const ready = await api(svc.url, 'GET', '/readyz');
      expect(ready.body.error.message).toBe(`cannot reach the model endpoint ${baseURL} (ECONNREFUSED 127.0.0.1:1): check OPENAI_BASE_URL and that the model server is running and reachable from this host`);
    } finally {
      await svc.close();
    }
  });
});
