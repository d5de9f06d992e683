/**
 * `npm run demo`: start the real service with a BUNDLED SCRIPTED MODEL (a local fake Responses
 * API server from test/support/ — no real LLM, no API key), run one real turn through the HTTP
 * API with real tools (todo, and a command in the bubblewrap sandbox when the computer family is
 * available), and print the streamed activity labels and the answer.
 *
 * `npm run demo -- --serve`: instead, keep the service running on 127.0.0.1:PORT (PORT unset: the
 * service's default, src/config.ts `DEFAULT_PORT`)
 * against a scripted model that answers every request with one streamed message repeating the
 * last user text (no tool calls), so the README's curl examples can be tried without a key; the
 * data folder is a temporary one, removed on Ctrl-C.
 *
 * Both pass the user's environment through (AUTH_TOKENS, WEBHOOK_*, … apply) and force the
 * scripted model, the temporary DATA_DIR and loopback: ./demo-env.ts. When the service cannot
 * start (PORT busy, a bad variable) the demo removes its temporary folder and exits 2 with one
 * line ({@link startDemoService}).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import { ListenError } from '../src/listen-check.js';
import { busyPortAdvice, startRefusal, startService } from '../src/main.js';
import { demoEnv, firstToken } from './demo-env.js';
import {
  functionCall,
  message,
  startScriptedResponsesServer,
  type ResponsesRequestBody,
  type ScriptEntry,
} from '../test/support/scripted-responses-server.js';

/** Function names offered in a Responses request (namespaced ones included). */
function offered(body: ResponsesRequestBody): string[] {
  const names: string[] = [];
  for (const t of body.tools ?? []) {
    if (t.type === 'function') names.push(t.name);
    if (t.type === 'namespace') for (const f of t.tools ?? []) names.push(f.name);
  }
  return names;
}

/** The tool families the demo turn asks for. */
const DEMO_TOOLS: string[] = ['todo', 'computer'];

/** The scripted "model": plan with todo, run a command if offered, then answer from the outputs. */
const script: ScriptEntry[] = [
  (body) => {
    const calls = [
      functionCall('todo', {
        todos: [
          { id: '1', content: 'Look at the sandbox', status: 'in_progress' },
          { id: '2', content: 'Report back', status: 'pending' },
        ],
      }),
    ];
    if (offered(body).includes('command')) {
      calls.push(functionCall('command', { command: 'echo "hello from the sandbox: $(uname -sr)"; ls -a' }));
    }
    return { output: calls };
  },
  () => ({
    output: [functionCall('todo', { todos: [{ id: '1', status: 'completed' }, { id: '2', status: 'completed' }], merge: true })],
    usage: { input_tokens: 120, output_tokens: 20 },
  }),
  (body) => {
    const outputs = (body.input as { type?: string; output?: unknown }[])
      .filter((i) => i.type === 'function_call_output')
      .map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output)));
    const commandOut = outputs.find((o) => o.includes('hello from the sandbox'));
    const text = commandOut
      ? `I planned the work with todo and ran a command in the sandbox. It said: ${commandOut.split('\n').find((l) => l.includes('hello')) ?? ''}`
      : 'I planned the work with todo (the computer family is unavailable here, so no command ran).';
    return { output: [message(text, { chunks: text.match(/.{1,12}/g) ?? [text] })], usage: { input_tokens: 200, output_tokens: 40 } };
  },
];

/** The last user text of a Responses request (a string input, or the last user message's text). */
function lastUserText(body: ResponsesRequestBody): string {
  if (typeof body.input === 'string') return body.input;
  for (const item of [...(body.input as { type?: string; role?: string; content?: unknown }[])].reverse()) {
    if (item.role !== 'user') continue;
    if (typeof item.content === 'string') return item.content;
    if (Array.isArray(item.content)) return item.content.map((p: { text?: string }) => p.text ?? '').join(' ');
  }
  return '';
}

/**
 * Start the service with the demo's `env`. When it cannot start, the scripted model is closed, the
 * temporary `dataDir` removed, and the process exits 2 with one line on stderr instead of a stack
 * trace: for a busy port (EADDRINUSE) `demo --serve: port 8787 on 127.0.0.1 is busy …` saying to
 * choose another with PORT (a port found free, {@link busyPortAdvice}); for any other refusal the
 * service's own reason ({@link startRefusal}).
 * Another error (a bug) is thrown after the same clean-up.
 */
async function startDemoService(env: NodeJS.ProcessEnv, dataDir: string, model: { close(): Promise<void> }) {
  try {
    return await startService(env);
  } catch (err) {
    await model.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    if (err instanceof ListenError && err.code === 'EADDRINUSE') {
      process.stderr.write(`demo --serve: ${busyPortAdvice(err.host, err.port, err.freePort, 'bash scripts/setup npm run demo -- --serve')}\n`);
      process.exit(2);
    }
    // Only `--serve` listens on a chosen PORT (the one-shot demo takes any free port), so a port
    // refused for another reason (EACCES) is to be chosen for that command.
    const refusal = startRefusal(err, env, 'bash scripts/setup npm run demo -- --serve');
    if (refusal === undefined) throw err;
    process.stderr.write(`demo: refusing to start: ${refusal}\n`);
    process.exit(2);
  }
}

/**
 * `--serve`: the service on PORT against an echoing scripted model, until SIGINT (Ctrl-C), SIGTERM
 * or SIGHUP (its terminal closed); each stops it and removes its temporary data folder.
 */
async function serve(): Promise<void> {
  const model = await startScriptedResponsesServer();
  const echo = (body: ResponsesRequestBody) => {
    model.push(echo); // answers every request, however many
    model.requests.length = 0; // the scripted server records requests for tests; a demo keeps none
    const text = `(scripted model, no LLM) You said: ${lastUserText(body).slice(0, 500)}`;
    return { output: [message(text, { chunks: text.match(/.{1,16}/gs) ?? [text] })], usage: { input_tokens: 10, output_tokens: 10 } };
  };
  model.push(echo);
  const { service, dataDir } = await startStoppable(model, (dir) => demoEnv(model.baseURL, dir, { LOG_LEVEL: 'warn' }), 0);
  const auth = service.config.AUTH_TOKENS.length > 0 ? ` -H "Authorization: Bearer $TOKEN"` : '';
  process.stdout.write(
    `=== turn-service demo (--serve) — SCRIPTED MODEL: every turn is answered by an echo, no LLM is called ===\n` +
      `service: ${service.address}   data: ${dataDir} (removed on exit)\n` +
      `try:  curl -s '${service.address}/v1/turns?wait=true'${auth} -H 'Content-Type: application/json' -d '{"input":"hello"}'\n` +
      (auth ? `(AUTH_TOKENS is set: TOKEN is one of its tokens)\n` : '') +
      `Ctrl-C stops it.\n`,
  );
}

/** Set once a stop signal came: the stop in progress ends the process (nothing else reports or cleans up). */
let stopping = false;

/**
 * Run `stop` once on the first SIGINT (Ctrl-C), SIGTERM or SIGHUP (its terminal closed). The
 * listeners stay on for the whole stop: a second signal while it runs — Ctrl-C pressed twice, or
 * the same SIGINT relayed again by a parent process (tsx's CLI did; `npm run demo` now runs
 * `node --import tsx`, one process, since tsx's CLI SIGKILLs a child that has not answered a
 * relayed signal within 30 ms — a demo busy starting — and left its folder) —
 * would otherwise take Node's default action and end the process before the data is removed.
 */
function onStopSignals(stop: () => Promise<void>): void {
  const once = () => {
    if (stopping) return;
    stopping = true;
    void stop();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, once);
}

/**
 * A temporary data folder and the service started on it (`envFor(folder)`), stopped on SIGINT,
 * SIGTERM or SIGHUP ({@link onStopSignals}) from before the folder exists — a signal that comes
 * before a listener takes Node's default action and leaves the folder — also while the service is
 * still starting: the stop waits for the start, closes the service and `model`, removes the
 * folder, prints `note` (when given) and exits `exitCode`.
 */
async function startStoppable(model: { close(): Promise<void> }, envFor: (dataDir: string) => NodeJS.ProcessEnv, exitCode: number, note?: string) {
  let starting: ReturnType<typeof startDemoService> | undefined;
  let dataDir: string | undefined;
  onStopSignals(async () => {
    if (note) process.stdout.write(`\n${note}\n`);
    await (await starting?.catch(() => undefined))?.close();
    await model.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    process.exit(exitCode);
  });
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'turn-service-demo-'));
  starting = startDemoService(envFor(dataDir), dataDir, model);
  return { service: await starting, dataDir };
}

async function main(): Promise<void> {
  if (process.argv.includes('--serve')) return serve();
  const model = await startScriptedResponsesServer(script);
  // Stopped before its turn ended (Ctrl-C): exit status 130, as a shell reports a run interrupted by SIGINT.
  const { service, dataDir } = await startStoppable(model, (dir) => demoEnv(model.baseURL, dir, { LOG_LEVEL: 'error' }, { PORT: '0' }), 130, 'demo stopped before its turn ended; its temporary data is removed');
  const token = firstToken(process.env);
  const base = service.address;
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out('=== turn-service demo — SCRIPTED MODEL: a bundled fake Responses API server, no real LLM is called ===');
  out(`service: ${base}   data: ${dataDir}`);
  out(`POST /v1/turns  (Accept: text/event-stream, tools: ${DEMO_TOOLS.join(', ')})\n`);
  try {
    const res = await fetch(`${base}/v1/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ input: 'Check the sandbox and tell me what you find.', tools: DEMO_TOOLS }),
    });
    if (!res.ok || !res.body) throw new Error(`POST /v1/turns → ${res.status} ${await res.text()}`);
    let answer = '';
    let streaming = false;
    const parser = createParser({
      onEvent: (m) => {
        const e = JSON.parse(m.data);
        switch (e.type) {
          case 'turn.started':
            out(`▶ turn ${e.turn_id} started — tools: ${e.tools.join(', ')}`);
            // Only families this request asked for; the others were simply not enabled.
            for (const u of e.unavailable) if (DEMO_TOOLS.includes(u.family)) out(`  (family ${u.family} unavailable: ${u.reason})`);
            break;
          case 'tool.started':
            if (e.label) out(`  … ${e.label}`);
            break;
          case 'tool.completed':
            if (e.label) out(`  ${e.is_error ? '✗' : '✓'} ${e.label}`);
            break;
          case 'presentation':
            if (e.event.type === 'plan.snapshot') {
              const items = (e.event.items as { content: string; status: string }[]).map((i) => `[${i.status === 'completed' ? 'x' : i.status === 'in_progress' ? '~' : ' '}] ${i.content}`);
              out(`  plan: ${items.join('  ')}`);
            }
            break;
          case 'message.delta':
            if (!streaming) process.stdout.write('\nanswer: ');
            streaming = true;
            process.stdout.write(e.text);
            answer += e.text;
            break;
          case 'turn.completed':
            out(`\n\n■ turn.completed — stop_reason ${e.stop_reason}, ${e.steps} model requests, ${e.usage.input_tokens}+${e.usage.output_tokens} tokens`);
            break;
          case 'turn.failed':
            out(`\n■ turn.failed — ${e.error.code}: ${e.error.message}`);
            process.exitCode = 1;
            break;
          case 'turn.cancelled':
            out('\n■ turn.cancelled');
            break;
        }
      },
    });
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    if (!answer) process.exitCode = 1;
  } finally {
    if (!stopping) {
      await service.close();
      await model.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
}

main().catch((err) => {
  if (stopping) return; // the turn was cut by the stop, which ends the process itself
  process.stderr.write(`demo failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
