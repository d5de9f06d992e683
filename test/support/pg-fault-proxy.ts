/**
 * A loopback proxy in front of a real Postgres server that reads the wire protocol
 * (https://www.postgresql.org/docs/current/protocol-message-formats.html) and fails one chosen
 * exchange for real, by cutting the TCP connection at the chosen moment:
 * - {@link PgFaultProxy.cutBefore}: the next statement whose SQL matches is never delivered — its
 *   connection is cut (the client sees "Connection terminated");
 * - {@link PgFaultProxy.loseCommitReply}: the next transaction that sent a matching statement is
 *   committed by the server, but the answer to its COMMIT never reaches the client: the connection
 *   is cut instead (the client cannot tell whether it committed).
 * Everything else passes through unchanged. No TLS (the test clusters use none).
 */
import net from 'node:net';

export interface PgFaultProxy {
  /** `url` with its host and port replaced by the proxy's. */
  url: string;
  /** Arm a one-shot cut before the next statement matching `sql`; resolves with its text once done. */
  cutBefore(sql: RegExp): Promise<string>;
  /** Arm a one-shot lost COMMIT answer for the next transaction that sends a statement matching `sql`. */
  loseCommitReply(sql: RegExp): Promise<void>;
  close(): Promise<void>;
}

interface Rule {
  kind: 'cut' | 'commit';
  sql: RegExp;
  fired: (text: string) => void;
}

/** Split complete protocol messages off the front of `buf`; `typed` false for the startup message. */
function takeMessages(buf: Buffer, typed: () => boolean): { messages: Buffer[]; rest: Buffer } {
  const messages: Buffer[] = [];
  let at = 0;
  for (;;) {
    const t = typed();
    const header = t ? 5 : 4;
    if (buf.length - at < header) break;
    const len = buf.readInt32BE(at + (t ? 1 : 0));
    const total = (t ? 1 : 0) + len;
    if (buf.length - at < total) break;
    messages.push(buf.subarray(at, at + total));
    at += total;
  }
  return { messages, rest: buf.subarray(at) };
}

/** The SQL text of a client message (simple Query or Parse), else undefined. */
function sqlOf(m: Buffer): string | undefined {
  const type = String.fromCharCode(m[0]);
  if (type === 'Q') return m.subarray(5, m.indexOf(0, 5)).toString('utf8');
  if (type === 'P') {
    const nameEnd = m.indexOf(0, 5);
    return m.subarray(nameEnd + 1, m.indexOf(0, nameEnd + 1)).toString('utf8');
  }
  return undefined;
}

/** The tag of a CommandComplete server message, else undefined. */
function commandTag(m: Buffer): string | undefined {
  return m[0] === 'C'.charCodeAt(0) ? m.subarray(5, m.indexOf(0, 5)).toString('utf8') : undefined;
}

export async function startPgFaultProxy(url: string): Promise<PgFaultProxy> {
  const target = new URL(url);
  const rules: Rule[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const x of [client, upstream]) {
      sockets.add(x);
      x.on('close', () => sockets.delete(x));
      x.on('error', () => undefined);
    }
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    let started = false;
    let pendingClient: Buffer = Buffer.alloc(0);
    let pendingServer: Buffer = Buffer.alloc(0);
    /** A transaction on this connection sent a statement of a `commit` rule (the rule). */
    let marked: Rule | undefined;
    client.on('data', (chunk: Buffer) => {
      const { messages, rest } = takeMessages(Buffer.concat([pendingClient, chunk]), () => started);
      pendingClient = rest;
      for (const m of messages) {
        if (!started) {
          started = true; // the startup message (untyped); typed messages follow
          upstream.write(m);
          continue;
        }
        const sql = sqlOf(m);
        if (sql !== undefined) {
          const rule = rules.find((r) => r.sql.test(sql));
          if (rule?.kind === 'cut') {
            rules.splice(rules.indexOf(rule), 1);
            cut();
            rule.fired(sql);
            return;
          }
          if (rule?.kind === 'commit' && !marked) {
            rules.splice(rules.indexOf(rule), 1);
            marked = rule;
          }
        }
        upstream.write(m);
      }
    });
    upstream.on('data', (chunk: Buffer) => {
      const { messages, rest } = takeMessages(Buffer.concat([pendingServer, chunk]), () => true);
      pendingServer = rest;
      for (const m of messages) {
        const tag = commandTag(m);
        if (marked && tag === 'COMMIT') {
          const rule = marked;
          marked = undefined;
          cut();
          rule.fired('COMMIT');
          return;
        }
        if (marked && tag === 'ROLLBACK') {
          rules.push(marked); // not committed: wait for the next one
          marked = undefined;
        }
        client.write(m);
      }
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const proxied = new URL(url);
  proxied.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  const arm = (kind: Rule['kind'], sql: RegExp) => new Promise<string>((fired) => rules.push({ kind, sql, fired }));
  return {
    url: proxied.toString(),
    cutBefore: (sql) => arm('cut', sql),
    loseCommitReply: async (sql) => void (await arm('commit', sql)),
    close: async () => {
      for (const x of sockets) x.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
