/**
 * Why a Postgres named by DATABASE_URL cannot be used at start (a database that does not exist, a
 * refused login, SSL asked of a server without it, a certificate not accepted, …), as one line
 * saying what is wrong and what to check — never the password. src/main.ts prints it as
 * `refusing to start: …` and exits with code 2. (An unreachable server is
 * DatabaseUnavailableError; a newer schema SchemaTooNewError.)
 */

/** The database at DATABASE_URL cannot be used; `message` is the one line to print. */
export class DatabaseStartError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseStartError';
  }
}

interface Target {
  where: string;
  host: string;
  port: string;
  database: string;
  user: string;
  sslmode: string | undefined;
  password: string;
}

function target(url: string): Target {
  try {
    const u = new URL(url);
    const host = decodeURIComponent(u.searchParams.get('host') ?? u.hostname) || 'localhost';
    const port = u.searchParams.get('port') ?? (u.port || '5432');
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || decodeURIComponent(u.username) || 'postgres';
    return {
      where: `${host}:${port}`,
      host,
      port,
      database,
      user: decodeURIComponent(u.searchParams.get('user') ?? u.username) || '(default user)',
      sslmode: u.searchParams.get('sslmode') ?? (u.searchParams.get('ssl') ? 'ssl' : undefined),
      password: decodeURIComponent(u.password),
    };
  } catch {
    return { where: 'the server in DATABASE_URL', host: '', port: '', database: '(the database in DATABASE_URL)', user: '(the user in DATABASE_URL)', sslmode: undefined, password: '' };
  }
}

/** Node's TLS error codes of a certificate that was not accepted. */
const CERT_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS/;

/**
 * The one-line reason `err` (thrown while opening or migrating the database at `url`) gives for
 * not starting, with what to check. The password of `url` never appears in it.
 */
export function databaseStartProblem(err: unknown, url: string): string {
  const t = target(url);
  const e = (err ?? {}) as { code?: unknown; message?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  let cause = (typeof e.message === 'string' ? e.message : String(err)).split('\n')[0];
  if (t.password.length >= 3) cause = cause.split(t.password).join('***');
  let line: string;
  if (code === '3D000') {
    line = `the database "${t.database}" named in DATABASE_URL does not exist on ${t.where}: create it (e.g. createdb -h ${t.host} -p ${t.port} ${t.database}) or correct the database name (the path of DATABASE_URL)`;
  } else if (code === '28P01' || code === '28000') {
    line = `Postgres at ${t.where} refused the login of user "${t.user}" (${cause}): check the user name and password in DATABASE_URL and the server's pg_hba.conf`;
  } else if (/does not support SSL/i.test(cause)) {
    line = `Postgres at ${t.where} does not accept SSL connections, but DATABASE_URL asks for SSL${t.sslmode ? ` (sslmode=${t.sslmode})` : ''}: remove sslmode from DATABASE_URL (or set sslmode=disable) to connect without SSL, or enable SSL on the server`;
  } else if (CERT_CODES.test(code) || /certificate/i.test(cause)) {
    line = `the TLS certificate of Postgres at ${t.where} was not accepted (${code ? `${code}: ` : ''}${cause}): check sslmode and sslrootcert in DATABASE_URL and the server's certificate`;
  } else if (code === '42501') {
    line = `user "${t.user}" lacks a privilege the service needs on database "${t.database}" at ${t.where} (${cause}): grant it CREATE on the database and ownership of its tables, or use another user in DATABASE_URL`;
  } else {
    line = `cannot use the database "${t.database}" at ${t.where} (${code ? `${code}: ` : ''}${cause}): check DATABASE_URL and the server's log`;
  }
  return line;
}
