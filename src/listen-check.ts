/**
 * Whether the service can listen on HOST:PORT, asked before anything is created or opened (so a
 * start refused for its address leaves no DATA_DIR, database file or migration behind), and a
 * port near a busy one that is free now, to suggest instead.
 */
import net from 'node:net';

/** The listen errors a start refusal explains (src/main.ts `startRefusal`); others are bugs. */
const ADDRESS_CODES = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL', 'ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);

/** How many ports after the first candidate {@link freePortNear} tries. */
const PORT_TRIES = 20;

/**
 * The service could not listen on `host`:`port` (the configured HOST and PORT): `code` is the
 * system's (`EADDRINUSE` the port is taken, `EACCES` not allowed, `EADDRNOTAVAIL` the address is
 * not this machine's, `ENOTFOUND` / `EAI_AGAIN` / `EAI_NONAME` the name does not resolve);
 * `freePort` a port on `host` that was free when the error was made (busy or refused ports only),
 * undefined when none was found. `cause` is the system error.
 */
export class ListenError extends Error {
  constructor(
    readonly code: string,
    readonly host: string,
    readonly port: number,
    readonly freePort: number | undefined,
    cause: unknown,
  ) {
    super(`cannot listen on ${host}:${port} (${code})`, { cause });
    this.name = 'ListenError';
  }
}

/** The system error of listening on `host`:`port` right now (the socket is closed at once), or undefined when it can. */
export function listenProblem(host: string, port: number): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err));
    server.listen({ host, port }, () => server.close(() => resolve(undefined)));
  });
}

/**
 * A port on `host` from `from` upwards (at most {@link PORT_TRIES}, ≤ 65535) that can be listened
 * on now, or undefined when none of them can. It is free at this moment only: another process may
 * take it before it is used.
 */
export async function freePortNear(host: string, from: number): Promise<number | undefined> {
  for (let port = Math.max(from, 1); port <= Math.min(from + PORT_TRIES - 1, 65535); port++) {
    if ((await listenProblem(host, port)) === undefined) return port;
  }
  return undefined;
}

/**
 * `err` (from listening on `host`:`port`) as a {@link ListenError} when its code is an address
 * problem — for a busy port with a free port after it, for a refused one with a free port from
 * `defaultPort` (below 1024, which needs privileges) or after it — else `err` itself.
 */
export async function asListenError(err: unknown, host: string, port: number, defaultPort: number): Promise<unknown> {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === undefined || !ADDRESS_CODES.has(code)) return err;
  const from = code === 'EADDRINUSE' ? port + 1 : code === 'EACCES' ? (port < 1024 ? defaultPort : port + 1) : undefined;
  const free = from === undefined ? undefined : await freePortNear(host, from);
  return new ListenError(code, host, port, free, err);
}

/**
 * Check that `host`:`port` can be listened on before the service creates anything. PORT 0 (any
 * free port) is not checked; an error that is not an address problem is left for the real listen
 * to meet.
 * @throws ListenError ({@link asListenError}) when the address cannot be used.
 */
export async function assertCanListen(host: string, port: number, defaultPort: number): Promise<void> {
  if (port === 0) return;
  const problem = await listenProblem(host, port);
  const refused = problem && (await asListenError(problem, host, port, defaultPort));
  if (refused instanceof ListenError) throw refused;
}
