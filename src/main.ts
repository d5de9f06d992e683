/**
 * Entry point: `npm start` (built) or `npm run dev` (tsx). Reads the config from the environment
 * (exit code 2 with one line per bad variable — including HOST beyond loopback without
 * AUTH_TOKENS, a HOST name that does not resolve and a WEBHOOK_URL on a private address not in
 * WEBHOOK_ALLOW_HOSTS — and also for a Postgres that cannot be
 * reached, refuses the service (no such database, login, SSL) or has a newer schema), opens the database (and migrates Postgres), recovers
 * interrupted turns, and listens on HOST:PORT.
 * SIGINT/SIGTERM/SIGHUP close the server, abort running turns and close the database.
 */
import { DatabaseFileError, DataDirInUseError } from './store/database.js';
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.js';
import { ConfigError, DEFAULT_HOST, DEFAULT_PORT, hostLookupFailure, hostUnresolvedProblem, loadConfig, type Config } from './config.js';
import { assertCanListen, asListenError, ListenError } from './listen-check.js';
import { createLogger } from './log.js';
import { createServices, type ServicesOverrides } from './services.js';
import { SchemaTooNewError } from './store/postgres/migrate.js';
import { DatabaseUnavailableError } from './store/postgres/unavailable.js';
import { DatabaseStartError } from './store/database-start.js';
import { computerStartupWarnings } from './tools/computer/index.js';
import { escapeUnsafeChars, settingForDisplay, settingForField } from './unsafe-chars.js';
import { webhookUrlRefusal } from './webhooks/webhook-spec.js';

/**
 * Start the whole service. Returns a `close` function and `address`, the base URL a client on
 * this machine reaches it at ({@link reachableAddress}: `http://[::1]:8787` for HOST `::`).
 * Used by main and by the demo script.
 * HOST:PORT is checked first (./listen-check.ts), so a start refused for its address creates no
 * DATA_DIR and opens or migrates no database.
 * @throws ConfigError on bad configuration (a HOST name that does not resolve included);
 *   ListenError when HOST:PORT cannot be listened on (before anything was created, or at the
 *   listen itself when the port was taken in between).
 */
export async function startService(env: NodeJS.ProcessEnv = process.env, overrides: ServicesOverrides = {}) {
  // A HOST name that does not resolve, and a WEBHOOK_URL no delivery could reach (a private address
  // not in WEBHOOK_ALLOW_HOSTS), are refused with the other bad variables, before anything opens.
  const [hostUnresolved, webhookUrlRefused] = await Promise.all([
    hostLookupFailure(env.HOST),
    webhookUrlRefusal(env.WEBHOOK_URL, (env.WEBHOOK_ALLOW_HOSTS ?? '').split(',')),
  ]);
  const config = loadConfig(env, { hostUnresolved, webhookUrlRefused });
  await assertCanListen(config.HOST, config.PORT, DEFAULT_PORT);
  ensureDataDir(config.DATA_DIR);
  const log = createLogger(config.LOG_LEVEL, undefined, config.LOG_FORMAT);
  const services = createServices(config, log, overrides);
  try {
    await services.start();
  } catch (err) {
    await services.stop().catch(() => undefined);
    throw err;
  }
  const app = await buildApp(services);
  let address: string;
  try {
    address = reachableAddress(await app.listen({ host: config.HOST, port: config.PORT }));
  } catch (err) {
    // An address taken or refused: let go of what started (database, runner, timers) so a caller
    // that goes on (the demo removing its data folder) is not left with them open.
    await services.turns.stop().catch(() => undefined);
    await app.close().catch(() => undefined);
    await services.stop().catch(() => undefined);
    throw await asListenError(err, config.HOST, config.PORT, DEFAULT_PORT);
  }
  // Warnings about how it runs only once it runs: a refusal to start (DATA_DIR in use, a bad
  // schema, an address taken) is the one line printed then.
  for (const warning of await startupWarnings(config, Boolean(services.modelClient))) log.warn(warning);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await services.turns.stop();
      await app.close();
      await services.stop();
    })());
  return { app, services, config, address, close };
}

/** Warnings for a service that started: no AUTH_TOKENS, the sandbox, no model endpoint or MODEL. */
async function startupWarnings(config: Config, hasModel: boolean): Promise<string[]> {
  const warnings: string[] = [];
  if (config.AUTH_TOKENS.length === 0) {
    warnings.push(`AUTH_TOKENS is not set: every request is accepted without a token; the service binds only to loopback (${config.HOST})`);
  }
  warnings.push(...(await computerStartupWarnings(config)));
  if (!hasModel) warnings.push('no model endpoint configured (OPENAI_API_KEY / OPENAI_BASE_URL): POST /v1/turns answers 503 model_not_configured');
  else if (!config.MODEL) warnings.push('MODEL is not set: every turn, schedule and workflow must name its `model` (else 400 model_required)');
  return warnings;
}

/**
 * `address` (a base URL such as fastify's listen gives, `http://host:port`) as one a client on
 * this machine can open: a wildcard host — `[::]` (HOST `::`, every IPv6 and, dual-stack, IPv4
 * address) or `0.0.0.0` — is no address to connect to, so it becomes the loopback address of its
 * family (`http://[::1]:8787`, `http://127.0.0.1:8787`); any other address is returned as given.
 */
export function reachableAddress(address: string): string {
  let u: URL;
  try {
    u = new URL(address);
  } catch {
    return address;
  }
  const loopback = u.hostname === '[::]' ? '[::1]' : u.hostname === '0.0.0.0' ? '127.0.0.1' : undefined;
  if (!loopback) return address;
  u.hostname = loopback;
  return `${u.protocol}//${u.host}`;
}

/** Where to point a human: the API base URL, the reference page and the console. */
export function serviceLinks(address: string): { api: string; docs: string; console: string } {
  const base = address.replace(/\/+$/, '');
  return { api: `${base}/v1`, docs: `${base}/docs`, console: `${base}/console` };
}

/**
 * Create DATA_DIR (and missing parents) and check it is a writable folder.
 * Each missing level is created on its own, so a parent that refuses (`/proc`, read-only mounts)
 * fails at once; Node's recursive mkdir retries such a parent forever.
 * @throws ConfigError one line: `DATA_DIR=<dir>: cannot use it as the data folder (<reason>): create
 *   it, or point DATA_DIR at a folder this user can write` — for an existing file, `(it is a file,
 *   not a folder): point DATA_DIR at a folder, or at a path where one can be created`. `<dir>` is
 *   quoted, unsafe characters as `\uXXXX`, when it has any ({@link settingForDisplay}).
 */
function ensureDataDir(dir: string): void {
  const shown = settingForDisplay(dir);
  try {
    const missing: string[] = [];
    for (let d = path.resolve(dir); !fs.existsSync(d); d = path.dirname(d)) {
      missing.unshift(d);
      if (path.dirname(d) === d) break;
    }
    for (const d of missing) fs.mkdirSync(d);
    if (!fs.statSync(dir).isDirectory()) {
      throw new ConfigError([`DATA_DIR=${shown}: cannot use it as the data folder (it is a file, not a folder): point DATA_DIR at a folder, or at a path where one can be created`]);
    }
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError([`DATA_DIR=${shown}: cannot use it as the data folder (${(err as Error).message}): create it, or point DATA_DIR at a folder this user can write`]);
  }
}

/** How to name another port to a person: the free one found, else PORT=0 (any free port). */
function otherPort(freePort: number | undefined, rerun: string): string {
  return freePort === undefined ? `choose another port, e.g. PORT=0 ${rerun} (any free port)` : `choose another port, e.g. PORT=${freePort} ${rerun} (free now)`;
}

/**
 * What to say when `port` on `host` is taken (EADDRINUSE): `port 8787 on 127.0.0.1 is busy
 * (another process listens on it): stop that process, or choose another port, e.g. PORT=8788
 * <rerun> (free now)`, `freePort` being a port found free just now (ListenError `freePort`; when
 * there is none, `PORT=0 <rerun> (any free port)`), `rerun` the command that started it
 * (`npm start`, `npm run demo -- --serve`).
 */
export function busyPortAdvice(host: string, port: number, freePort: number | undefined, rerun: string): string {
  return `port ${port} on ${host} is busy (another process listens on it): stop that process, or ${otherPort(freePort, rerun)}`;
}

/**
 * Why {@link startService} refused to start, as the one line printed after `refusing to start: `
 * (bad configuration, an unusable DATA_DIR or database, an address it cannot listen on — a busy
 * port as {@link busyPortAdvice} says it, with `rerun` as the command; a port it may not use or a
 * HOST that is not this machine's, saying which variable to change), or undefined for an error
 * that is not such a refusal (a bug: show its stack). An address problem is a {@link ListenError}
 * (its host, port and a free port to suggest); a bare system error with such a code is read with
 * the address of `env` (HOST, PORT; unset, the config's defaults) and suggests no checked port.
 * Every character {@link escapeUnsafeChars} escapes is written `\uXXXX` (a line break inside a
 * reason too: only the line breaks between the problems of a ConfigError stay), so a path or a
 * system message holding one cannot print a line of its own or act on the terminal.
 */
export function startRefusal(err: unknown, env: NodeJS.ProcessEnv = process.env, rerun = 'npm start'): string | undefined {
  if (err instanceof ConfigError) return new ConfigError(err.problems.map(escapeUnsafeChars)).message;
  const line = refusalLine(err, env, rerun);
  return line === undefined ? undefined : escapeUnsafeChars(line);
}

/** {@link startRefusal} before its escaping, for any error but a ConfigError. */
function refusalLine(err: unknown, env: NodeJS.ProcessEnv, rerun: string): string | undefined {
  if (err instanceof SchemaTooNewError || err instanceof DataDirInUseError || err instanceof DatabaseFileError || err instanceof DatabaseStartError) return err.message;
  if (err instanceof DatabaseUnavailableError) {
    return `cannot reach the database at DATABASE_URL (${(err.cause as Error)?.message ?? err.message}); check that Postgres is up and the URL is right`;
  }
  if (err instanceof ListenError) return listenRefusal(err.code, err.host, err.port, err.freePort, rerun);
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined) return undefined;
  return listenRefusal(code, env.HOST?.trim() || DEFAULT_HOST, Number(env.PORT?.trim() || DEFAULT_PORT), undefined, rerun);
}

/** The refusal line for listen error `code` on `host`:`port` ({@link startRefusal}); undefined for another code. */
function listenRefusal(code: string, host: string, port: number, freePort: number | undefined, rerun: string): string | undefined {
  if (code === 'EADDRINUSE') return busyPortAdvice(host, port, freePort, rerun);
  if (code === 'EACCES') {
    return `cannot listen on ${host}:${port} (EACCES: permission denied${port < 1024 ? '; ports below 1024 need privileges' : ''}): ${otherPort(freePort, rerun)}`;
  }
  if (code === 'EADDRNOTAVAIL') {
    return `cannot listen on ${host}:${port} (EADDRNOTAVAIL: ${host} is not an address of this machine): set HOST to one of its addresses, e.g. HOST=${DEFAULT_HOST}`;
  }
  // Resolved at start but no longer at listen (DNS changed in between).
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return hostUnresolvedProblem(host, code);
  return undefined;
}

/**
 * End the process with exit code `code` the way Node ends when it has nothing left to do — at once
 * when nothing keeps the event loop alive, else after `graceMs` (then `process.exit`). Used for a
 * refused start and after a graceful stop. Right after start-up `process.exit()` at once could
 * hang the process for good: Node's platform
 * shutdown joins V8's worker threads while one of them, still compiling what start-up loaded,
 * waits for a garbage collection of the main thread, which never comes (nodejs/node#54918 and
 * #64274, open in Node 24.22). Seen here: a refused start as another user with a cold tsx cache
 * hung in about one run of 36, its threads in exactly that wait; a normal end drains V8's
 * background tasks first.
 */
export function exitWhenIdle(code: number, graceMs = 1000): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), graceMs).unref();
}

/**
 * Run the service as a process (`npm start` through scripts/start.mjs, `npm run dev`, the image):
 * bad configuration, an unusable database or an unusable address → one `refusing to start:` line
 * ({@link startRefusal}) and exit code 2;
 * SIGINT/SIGTERM/SIGHUP → graceful close, exit 0; DATA_DIR taken over by another process (its
 * `service.lock` removed while this one ran: Services.ownershipLost) → graceful close, exit 1.
 * The start-up line's `data_dir` shows DATA_DIR escaped as refusals do, without their quotes
 * ({@link settingForField}); after a
 * graceful close the last line is `stopped` (info, with `signal` or `reason`, and `exit_code`); a
 * close that fails logs `error during shutdown` and exits 1.
 * `overrides`: as {@link startService}'s (tests that run this as a process with a part replaced).
 */
export async function main(overrides: ServicesOverrides = {}): Promise<void> {
  // Signals are taken from the first moment main() runs (before, while Node loads the modules,
  // nothing is open and Node's default ends the process): the service answers /healthz before
  // start-up has finished, and an orchestrator may send SIGTERM as soon as it does. One that comes
  // while the service starts stops it as soon as it has started; the same signal again (SIGINT or
  // SIGTERM) ends it at once.
  let requested: string | undefined;
  let shutdown = (signal: string): void => {
    if (requested !== undefined) return;
    requested = signal;
    const force = signal === 'SIGHUP' ? '' : ` (send ${signal} again to end it at once)`;
    process.stderr.write(`received ${signal} while starting: the service stops as soon as it has started${force}\n`);
  };
  // A second SIGINT or SIGTERM during the stop takes Node's default action (ends the process at
  // once: Ctrl-C twice forces it). SIGHUP — sent when the terminal or ssh session closes, maybe
  // more than once (to the process group and passed on) — stops it the same graceful way and is
  // never taken as a second one (Node's default would end the process at once, as after a crash).
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGHUP', () => shutdown('SIGHUP'));
  let started: Awaited<ReturnType<typeof startService>>;
  try {
    started = await startService(process.env, overrides);
  } catch (err) {
    const refusal = startRefusal(err);
    if (refusal === undefined) throw err;
    process.stderr.write(`refusing to start: ${refusal}\n`);
    exitWhenIdle(2);
    return;
  }
  const links = serviceLinks(started.address);
  const log = started.services.log;
  // DATA_DIR escaped as the refusals show it, without their quotes (a JSON field is quoted already):
  // a bidi control or a line break in it cannot act on the reader's display.
  log.info(
    { address: started.address, data_dir: settingForField(started.config.DATA_DIR), ...links, tracing: started.config.tracing },
    `turn service listening: API ${links.api}, docs ${links.docs}, console ${links.console}`,
  );
  // After a graceful stop the last line says so (why, and the exit code) before the process ends.
  const stop = (why: { signal: string } | { reason: string }, code: number) =>
    started.close().then(
      () => {
        log.info({ ...why, exit_code: code }, 'stopped');
        exitWhenIdle(code);
      },
      (err) => {
        log.error({ err }, 'error during shutdown');
        exitWhenIdle(1);
      },
    );
  let stopping = false;
  shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    void stop({ signal }, 0);
  };
  if (requested !== undefined) shutdown(requested);
  // Another service took DATA_DIR (its service.lock removed meanwhile): stop as on SIGTERM, exit 1.
  void started.services.ownershipLost.then(() => stop({ reason: 'DATA_DIR taken over or lost' }, 1));
}

const isEntry = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isEntry) {
  main().catch((err) => {
    process.stderr.write(`fatal: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
