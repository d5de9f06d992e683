/**
 * Bad configuration stops the real entry point at once with one line naming the variable and
 * the value given, and exit code 2 — never a hang, never `NaN`; several bad variables, the rules
 * across variables included, are reported together; nothing but the refusal is printed.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_HOST, DEFAULT_PORT, hostLookupFailure, loadConfig } from '../../src/config.js';
import { asListenError, ListenError } from '../../src/listen-check.js';
import { KNOWN_TOOL_NAMES } from '../../src/assembly/tool-names.js';
import { freePort, holdPorts, portIsFree, ROOT, spawnService, waitHealthy } from '../e2e/support/child.js';
import { webhookUrlRefusal } from '../../src/webhooks/webhook-spec.js';
import { startRefusal } from '../../src/main.js';

async function refusal(env: Record<string, string>): Promise<{ code: number | null; lines: string[] }> {
  const child = spawnService({ PORT: '0', DATA_DIR: '/tmp', ...env });
  const code = await child.exited;
  return { code, lines: child.output().trim().split('\n') };
}

/** The report lines loadConfig gives for `env` (none when it loads). */
function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (e) {
    return (e as ConfigError).problems;
  }
  return [];
}

// A child process with the tsx loader takes several seconds to start on a busy machine.
const CHILD_MS = 60_000;

it('reports PORT=abc with the value given', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ PORT: 'abc' });
  expect(code).toBe(2);
  expect(lines).toEqual(['refusing to start: PORT=abc: must be an integer from 0 to 65535']);
});

it('refuses an integer not written in plain decimal digits (1e3, 0x10, 1.0, +5), though it is a number', () => {
  const plain = 'must be an integer from 0 to 65535, written in plain decimal digits (no exponent, +, decimal point or hex)';
  expect(problems({ PORT: '1e3' })).toEqual([`PORT=1e3: ${plain}`]);
  expect(problems({ PORT: '0x10' })).toEqual([`PORT=0x10: ${plain}`]);
  expect(problems({ PORT: '1.0' })).toEqual([`PORT=1.0: ${plain}`]);
  expect(problems({ MAX_STEPS: '+5' })).toEqual(['MAX_STEPS=+5: must be an integer from 1 to 500, written in plain decimal digits (no exponent, +, decimal point or hex)']);
  // Digits beyond the range, however many, are refused by the range; leading zeros are digits.
  expect(problems({ PORT: '99999999999999999999' })).toEqual(['PORT=99999999999999999999: must be an integer from 0 to 65535']);
  expect(loadConfig({ PORT: '0080' }).PORT).toBe(80);
  // An empty or blank value counts as unset (README "Configuration").
  expect(loadConfig({ PORT: '' }).PORT).toBe(8787);
  expect(loadConfig({ PORT: '  ' }).PORT).toBe(8787);
});

it('fails at once with one line for a DATA_DIR that cannot be created (/proc/nope)', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ DATA_DIR: '/proc/nope' });
  expect(code).toBe(2);
  expect(lines).toEqual([
    "refusing to start: DATA_DIR=/proc/nope: cannot use it as the data folder (ENOENT: no such file or directory, mkdir '/proc/nope'): create it, or point DATA_DIR at a folder this user can write",
  ]);
});

it('refuses a DATA_DIR that is a file with one line saying so and to point DATA_DIR at a folder', { timeout: CHILD_MS }, async () => {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'turns-datadir-')), 'data');
  writeFileSync(file, 'a file\n');
  const { code, lines } = await refusal({ DATA_DIR: file });
  expect(code).toBe(2);
  expect(lines).toEqual([`refusing to start: DATA_DIR=${file}: cannot use it as the data folder (it is a file, not a folder): point DATA_DIR at a folder, or at a path where one can be created`]);
});

it('shows a DATA_DIR with a line break quoted, the break as \\u000A, on one line (no line of its own)', { timeout: CHILD_MS }, async () => {
  const child = spawnService({ PORT: '0', DATA_DIR: '/proc/x\ny' });
  expect(await child.exited).toBe(2);
  const out = child.output();
  expect(out).toBe(
    "refusing to start: DATA_DIR=\"/proc/x\\u000Ay\": cannot use it as the data folder (ENOENT: no such file or directory, mkdir '/proc/x\\u000Ay'): create it, or point DATA_DIR at a folder this user can write\n",
  );
  expect(out.trimEnd()).not.toMatch(/[\u0000-\u001F\u007F-\u009F]/);
});

it('refuses a HOST that is not an address of this machine with one line saying to set HOST, without Node\'s message repeating the code', { timeout: CHILD_MS }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'turns-host-'));
  try {
    const { code, lines } = await refusal({ DATA_DIR: dir, HOST: '192.0.2.1', PORT: '8799', AUTH_TOKENS: 'startup-errors-token-0123', LOG_LEVEL: 'silent' });
    expect(code).toBe(2);
    expect(lines).toEqual([
      'refusing to start: cannot listen on 192.0.2.1:8799 (EADDRNOTAVAIL: 192.0.2.1 is not an address of this machine): set HOST to one of its addresses, e.g. HOST=127.0.0.1',
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('says a port the service may not use (EACCES) is to be changed with PORT, naming the privileged range below 1024 and a port found free', () => {
  const cause = Object.assign(new Error('listen EACCES: permission denied 127.0.0.1:80'), { code: 'EACCES' });
  expect(startRefusal(new ListenError('EACCES', '127.0.0.1', 80, 8790, cause))).toBe(
    'cannot listen on 127.0.0.1:80 (EACCES: permission denied; ports below 1024 need privileges): choose another port, e.g. PORT=8790 npm start (free now)',
  );
  // A bare system error (no port was checked): the address from the environment, unset parts the
  // config's defaults, and PORT=0 (any free port) instead of a number nobody checked.
  expect(startRefusal(cause, {})).toBe(`cannot listen on ${DEFAULT_HOST}:${DEFAULT_PORT} (EACCES: permission denied): choose another port, e.g. PORT=0 npm start (any free port)`);
});

it('suggests a free port from the default one for a privileged port the service may not use, and after a busy one', async () => {
  const held = await holdPorts(2);
  try {
    const cause = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' });
    const busy = (await asListenError(cause, '127.0.0.1', held.port, DEFAULT_PORT)) as ListenError;
    expect(busy).toBeInstanceOf(ListenError);
    expect(busy.freePort).toBeGreaterThan(held.port + 1);
    expect(await portIsFree(busy.freePort!)).toBe(true);
    // From the default port for a port below 1024 (the privileged range), skipping taken ones.
    const denied = (await asListenError(Object.assign(new Error('listen EACCES'), { code: 'EACCES' }), '127.0.0.1', 80, held.port)) as ListenError;
    expect(denied.freePort).toBeGreaterThan(held.port + 1);
    // Not an address problem: left as it is.
    const other = new Error('something else');
    expect(await asListenError(other, '127.0.0.1', 80, DEFAULT_PORT)).toBe(other);
  } finally {
    await held.close();
  }
});

it('refuses an APPROVAL_POLICY naming a tool no family offers, naming it and the known tools', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ APPROVAL_POLICY: 'comand=always' });
  expect(code).toBe(2);
  expect(lines).toEqual([`refusing to start: APPROVAL_POLICY=comand=always: "comand" is not a tool name; known tools: ${KNOWN_TOOL_NAMES.join(', ')}`]);
  expect(lines[0]).toContain(', command, ');
});

it('starts with an APPROVAL_POLICY naming known tools', { timeout: CHILD_MS }, async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'approval-policy-start-'));
  const child = spawnService({ PORT: String(port), DATA_DIR: dataDir, APPROVAL_POLICY: 'command=always,write_file=never' });
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, child, CHILD_MS - 5_000);
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('lists every bad variable with its value, one per line, when there are several', () => {
  let err: unknown;
  try {
    loadConfig({ PORT: '99999', MAX_CONCURRENT_TURNS: 'many' });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(ConfigError);
  const lines = (err as ConfigError).message.split('\n');
  expect(lines[0]).toBe('invalid configuration:');
  expect(lines.slice(1).sort()).toEqual(['  - MAX_CONCURRENT_TURNS=many: must be an integer from 1 to 1024', '  - PORT=99999: must be an integer from 0 to 65535']);
});

it('reports a HOST beyond loopback without AUTH_TOKENS together with the other bad variables, and logs no warning', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ HOST: '0.0.0.0', PORT: 'abc', MAX_CONCURRENT_TURNS: 'many' });
  expect(code).toBe(2);
  expect(lines).toEqual([
    'refusing to start: invalid configuration:',
    '  - PORT=abc: must be an integer from 0 to 65535',
    '  - MAX_CONCURRENT_TURNS=many: must be an integer from 1 to 1024',
    '  - HOST=0.0.0.0 is beyond loopback but AUTH_TOKENS is empty: set AUTH_TOKENS (comma-separated bearer tokens) or bind 127.0.0.1',
  ]);
});

it('refuses a MODEL with a bidirectional control in the one report, with the other bad variables, the value trimmed, quoted and escaped, and no secret shown', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ MODEL: ' gpt\u202E5 ', PORT: 'abc', OPENAI_API_KEY: 'sk-startup-errors-secret' });
  expect(code).toBe(2);
  expect(lines).toEqual([
    'refusing to start: invalid configuration:',
    '  - PORT=abc: must be an integer from 0 to 65535',
    `  - MODEL="gpt\\u202E5": must not contain U+202E (a bidirectional control), found at character 4: no control characters, line or paragraph separators, invisible or format characters or bidirectional controls are allowed; set MODEL to the model name as the model endpoint lists it, without them`,
  ]);
  expect(lines.join('\n')).not.toContain('sk-startup-errors-secret');
});

it('refuses a MODEL with a control, separator, invisible, format (U+200D too) or bidirectional character, one line each written as \\uXXXX; trims white space at its ends as for every variable', () => {
  const chars = (found: string) => `must not contain ${found}: no control characters, line or paragraph separators, invisible or format characters or bidirectional controls are allowed; set MODEL to the model name as the model endpoint lists it, without them`;
  expect(problems({ MODEL: 'gpt\u202E5' })).toEqual([`MODEL="gpt\\u202E5": ${chars('U+202E (a bidirectional control), found at character 4')}`]);
  expect(problems({ MODEL: 'gpt\n5' })).toEqual([`MODEL="gpt\\u000A5": ${chars('U+000A (a control character), found at character 4')}`]);
  expect(problems({ MODEL: 'gpt-5\u200B' })).toEqual([`MODEL="gpt-5\\u200B": ${chars('U+200B (an invisible character), found at character 6')}`]);
  expect(problems({ MODEL: 'gpt\u2028x' })).toEqual([`MODEL="gpt\\u2028x": ${chars('U+2028 (a line or paragraph separator), found at character 4')}`]);
  // A zero-width joiner or non-joiner between ASCII letters: kept in other names, refused in a model name.
  expect(problems({ MODEL: 'gpt\u200D4o' })).toEqual([`MODEL="gpt\\u200D4o": ${chars('U+200D (an invisible character), found at character 4')}`]);
  expect(problems({ MODEL: 'qw\u200Cen3' })).toEqual([`MODEL="qw\\u200Cen3": ${chars('U+200C (an invisible character), found at character 3')}`]);
  // White space an env file left at either end is not part of the name (every value is trimmed).
  expect(loadConfig({ MODEL: ' gpt-5-mini\u00A0' }).MODEL).toBe('gpt-5-mini');
  expect(loadConfig({ MODEL: 'qwen3:8b\n' }).MODEL).toBe('qwen3:8b');
  expect(problems({ MODEL: 'qwen3:8b ', LOG_LEVEL: 'loud' })).toHaveLength(1);
  // A blank value counts as unset, as for every variable.
  expect(loadConfig({ MODEL: '  ' }).MODEL).toBeUndefined();
});

it('checks the rules across variables beside the per-variable ones, each only when its variables are valid', () => {
  expect(problems({ PORT: '-1', DATABASE_URL: 'postgres://db/x', WEBHOOK_URL: 'ftp://example.com/h' })).toEqual([
    'PORT=-1: must be an integer from 0 to 65535',
    'STREAM_TOKEN_SECRET is required when DATABASE_URL is set: every instance must verify the stream tokens the others issue (set the same random string of 16+ characters on each)',
    'WEBHOOK_URL: scheme ftp is not allowed (use http or https)',
    'WEBHOOK_URL is set but WEBHOOK_SECRET is not: set WEBHOOK_SECRET=whsec_<base64> to sign deliveries',
  ]);
  // A STREAM_TOKEN_SECRET that is set but too short is reported as such, not also as missing.
  expect(problems({ HOST: '::', DATABASE_URL: 'postgres://db/x', STREAM_TOKEN_SECRET: 'short' })).toEqual([
    'STREAM_TOKEN_SECRET: must be at least 16 characters (a random string; the value is not shown)',
    'HOST=:: is beyond loopback but AUTH_TOKENS is empty: set AUTH_TOKENS (comma-separated bearer tokens) or bind 127.0.0.1',
  ]);
  expect(problems({ HOST: '0.0.0.0', AUTH_TOKENS: 'a-token-of-the-test', PORT: '70000' })).toEqual(['PORT=70000: must be an integer from 0 to 65535']);
});

it('refuses WEBHOOK_SECRET_PREVIOUS without WEBHOOK_SECRET, and one that is not a Standard Webhooks secret, never showing it', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  expect(problems({ WEBHOOK_SECRET_PREVIOUS: secret })).toEqual([
    'WEBHOOK_SECRET_PREVIOUS is set but WEBHOOK_SECRET is not: set WEBHOOK_SECRET to the new secret (deliveries are signed with both while receivers switch), or unset WEBHOOK_SECRET_PREVIOUS',
  ]);
  // One line, not the pattern and then the length.
  expect(problems({ WEBHOOK_SECRET: secret, WEBHOOK_SECRET_PREVIOUS: 'not-a-secret-value' })).toEqual([
    'WEBHOOK_SECRET_PREVIOUS: must be whsec_ followed by the base64 of 24..64 random bytes (a Standard Webhooks secret); make one with whsec_$(openssl rand -base64 32)',
  ]);
  expect(problems({ WEBHOOK_SECRET: secret, WEBHOOK_SECRET_PREVIOUS: secret.replace('whsec_B', 'whsec_C') })).toEqual([]);
  // The same secret twice is no rotation: refused, however its base64 is padded.
  expect(problems({ WEBHOOK_SECRET: secret, WEBHOOK_SECRET_PREVIOUS: secret })).toEqual([
    'WEBHOOK_SECRET_PREVIOUS is the same secret as WEBHOOK_SECRET: it must be the old secret, the one being replaced (set WEBHOOK_SECRET to the new one), or unset WEBHOOK_SECRET_PREVIOUS when no rotation is under way',
  ]);
  const unpadded = `whsec_${Buffer.alloc(25, 9).toString('base64')}`;
  expect(unpadded.endsWith('=')).toBe(true);
  expect(problems({ WEBHOOK_SECRET: unpadded, WEBHOOK_SECRET_PREVIOUS: unpadded.replace(/=+$/, '') })).toHaveLength(1);
});

it('refuses a WEBHOOK_SECRET with one line: without whsec_, base64 that is not, or a key of the wrong size (saying its size and how to make one), never showing it', () => {
  const make = 'make one with whsec_$(openssl rand -base64 32)';
  const short = `whsec_${Buffer.from('sixteen-byte-key').toString('base64')}`;
  expect(problems({ WEBHOOK_SECRET: short })).toEqual([`WEBHOOK_SECRET: the base64 part after whsec_ decodes to 16 bytes; it must decode to 24..64 bytes (too short to be a safe key); ${make}`]);
  const long = `whsec_${Buffer.alloc(65, 1).toString('base64')}`;
  expect(problems({ WEBHOOK_SECRET: long })).toEqual([`WEBHOOK_SECRET: the base64 part after whsec_ decodes to 65 bytes; it must decode to 24..64 bytes (longer than Standard Webhooks allows); ${make}`]);
  const raw = Buffer.alloc(32, 3).toString('base64');
  expect(problems({ WEBHOOK_SECRET: raw })).toEqual([`WEBHOOK_SECRET: must be whsec_ followed by the base64 of 24..64 random bytes (a Standard Webhooks secret); ${make}`]);
  expect(problems({ WEBHOOK_SECRET: 'whsec_not*base64!value' })).toEqual([`WEBHOOK_SECRET: the part after whsec_ must be base64 (A-Z, a-z, 0-9, + and /, = padding at the end) of 24..64 random bytes; ${make}`]);
  for (const v of [short, long, raw, 'whsec_not*base64!value']) expect(problems({ WEBHOOK_SECRET: v }).join('\n')).not.toContain(v.slice(6, 20));
});

it('refuses to start with WEBHOOK_SECRET_PREVIOUS equal to WEBHOOK_SECRET: exit 2, one line, the secret not shown', { timeout: CHILD_MS }, async () => {
  const secret = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
  const { code, lines } = await refusal({ WEBHOOK_SECRET: secret, WEBHOOK_SECRET_PREVIOUS: secret });
  expect(code).toBe(2);
  expect(lines).toEqual([
    'refusing to start: WEBHOOK_SECRET_PREVIOUS is the same secret as WEBHOOK_SECRET: it must be the old secret, the one being replaced (set WEBHOOK_SECRET to the new one), or unset WEBHOOK_SECRET_PREVIOUS when no rotation is under way',
  ]);
  expect(lines.join('\n')).not.toContain(secret.slice(6, 20));
});

it('refuses a DATA_DIR held by another service with one line naming the README section that exists, and no warning before it', { timeout: 2 * CHILD_MS }, async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'data-dir-in-use-'));
  const first = spawnService({ PORT: String(port), DATA_DIR: dataDir });
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, first, CHILD_MS - 5_000);
    const { code, lines } = await refusal({ PORT: String(await freePort()), DATA_DIR: dataDir });
    expect(code).toBe(2);
    expect(lines).toEqual([
      `refusing to start: DATA_DIR ${dataDir} is in use by another service process (a running service holds ${dataDir}/service.lock locked); ` +
        'give each instance its own DATA_DIR, or run several instances on one Postgres database (DATABASE_URL, README "Run several instances")',
    ]);
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n')).toContain('## Run several instances');
  } finally {
    first.proc.kill('SIGTERM');
    await first.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('an unusable DATA_DIR/service.db is refused with one line naming the file and what to do, exit 2', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'service-db-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a folder named service.db', { timeout: CHILD_MS }, async () => {
    const dataDir = path.join(dir, 'folder');
    mkdirSync(path.join(dataDir, 'service.db'), { recursive: true });
    const { code, lines } = await refusal({ DATA_DIR: dataDir });
    expect(code).toBe(2);
    expect(lines).toEqual([
      `refusing to start: ${dataDir}/service.db is a folder, not a SQLite database file (SQLITE_CANTOPEN: unable to open database file): move it away (the service creates its database there) or point DATA_DIR at another folder`,
    ]);
  });

  it('a folder named service.db or service.lock under a DATA_DIR with a bidi control: the path quoted, the control as \\u202E, as DATA_DIR is in the other refusals', { timeout: 2 * CHILD_MS }, async () => {
    const db = path.join(dir, 'db\u202Egnp');
    mkdirSync(path.join(db, 'service.db'), { recursive: true });
    const a = await refusal({ DATA_DIR: db });
    expect(a.code).toBe(2);
    expect(a.lines).toEqual([
      `refusing to start: "${dir}/db\\u202Egnp/service.db" is a folder, not a SQLite database file (SQLITE_CANTOPEN: unable to open database file): move it away (the service creates its database there) or point DATA_DIR at another folder`,
    ]);
    const lock = path.join(dir, 'lock\u202Egnp');
    mkdirSync(path.join(lock, 'service.lock'), { recursive: true });
    const b = await refusal({ DATA_DIR: lock });
    expect(b.code).toBe(2);
    expect(b.lines).toEqual([
      `refusing to start: "${dir}/lock\\u202Egnp/service.lock" is a folder, not the service's lock file (SQLITE_CANTOPEN: unable to open database: ${dir}/lock\\u202Egnp/service.lock): with no service running on this DATA_DIR, remove it (it only marks the folder as held by a running service and holds no data; the service creates it again) or point DATA_DIR at another folder`,
    ]);
  });

  it('a service.db holding text', { timeout: CHILD_MS }, async () => {
    const dataDir = path.join(dir, 'text');
    mkdirSync(dataDir);
    writeFileSync(path.join(dataDir, 'service.db'), 'these are notes, not a database\n'.repeat(100));
    const { code, lines } = await refusal({ DATA_DIR: dataDir });
    expect(code).toBe(2);
    expect(lines).toEqual([
      `refusing to start: ${dataDir}/service.db is not a SQLite database (SQLITE_NOTADB: file is not a database): move it away (the service creates a new database there) or point DATA_DIR at another folder`,
    ]);
  });

  // service.lock holds no data: every refusal names it (not the healthy service.db) and says to remove it.
  it('a service.lock that is a folder or not a SQLite file: named, said to hold no data, and nothing left in a new DATA_DIR', { timeout: 2 * CHILD_MS }, async () => {
    const folder = path.join(dir, 'lock-folder');
    mkdirSync(path.join(folder, 'service.lock'), { recursive: true });
    const a = await refusal({ DATA_DIR: folder });
    expect(a.code).toBe(2);
    expect(a.lines).toEqual([
      `refusing to start: ${folder}/service.lock is a folder, not the service's lock file (SQLITE_CANTOPEN: unable to open database: ${folder}/service.lock): with no service running on this DATA_DIR, remove it (it only marks the folder as held by a running service and holds no data; the service creates it again) or point DATA_DIR at another folder`,
    ]);
    // The refused start created nothing beside it.
    expect(readdirSync(folder)).toEqual(['service.lock']);

    const garbage = path.join(dir, 'lock-garbage');
    mkdirSync(garbage);
    const kept = new BetterSqlite3(path.join(garbage, 'service.db'));
    kept.exec('CREATE TABLE kept (x); INSERT INTO kept VALUES (1)');
    kept.close();
    writeFileSync(path.join(garbage, 'service.lock'), 'garbage\n'.repeat(200));
    const b = await refusal({ DATA_DIR: garbage });
    expect(b.code).toBe(2);
    expect(b.lines).toEqual([
      `refusing to start: ${garbage}/service.lock is not a SQLite file, so not the service's lock file (SQLITE_NOTADB: file is not a database): with no service running on this DATA_DIR, delete it (it only marks the folder as held by a running service and holds no data; the service creates it again) or point DATA_DIR at another folder`,
    ]);
    // service.db is untouched, and once the lock file is deleted the service starts on it.
    rmSync(path.join(garbage, 'service.lock'));
    const port = await freePort();
    const child = spawnService({ PORT: String(port), DATA_DIR: garbage });
    try {
      await waitHealthy(`http://127.0.0.1:${port}`, child, CHILD_MS - 5_000);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
    }
    const after = new BetterSqlite3(path.join(garbage, 'service.db'), { readonly: true });
    expect(after.prepare('SELECT x FROM kept').all()).toEqual([{ x: 1 }]);
    after.close();
  });

  // Run as uid 65534 (nobody) on a lock file that user owns but may not write: chmod, not chown.
  it.skipIf(process.getuid?.() !== 0)('a service.lock its owner may not write: the fix is chmod, not chown', { timeout: CHILD_MS }, async () => {
    chmodSync(dir, 0o755);
    const dataDir = path.join(dir, 'lock-mode');
    mkdirSync(dataDir, { mode: 0o777 });
    chmodSync(dataDir, 0o777);
    const lock = path.join(dataDir, 'service.lock');
    writeFileSync(lock, '');
    chownSync(lock, 65534, 65534);
    chmodSync(lock, 0o444);
    const child = spawnService({ PORT: '0', DATA_DIR: dataDir, HOME: '/tmp' }, { uid: 65534, gid: 65534 });
    expect(await child.exited).toBe(2);
    const lines = child.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0].replace(/ \(SQLITE_[A-Z_]+: [^)]+\):/, ' (<sqlite>):')).toBe(
      `refusing to start: ${lock} cannot be read and written by this user (uid 65534; the file belongs to uid 65534) (<sqlite>): fix its owner or mode (e.g. chmod u+rw ${lock}) or point DATA_DIR at another folder`,
    );
  });

  // The service run as uid 65534 (nobody) in a folder it may write, on a database root left.
  it.skipIf(process.getuid?.() !== 0)('a service.db owned by root, the service started as another user', { timeout: CHILD_MS }, async () => {
    chmodSync(dir, 0o755);
    const dataDir = path.join(dir, 'root-owned');
    mkdirSync(dataDir, { mode: 0o777 });
    chmodSync(dataDir, 0o777);
    const db = new BetterSqlite3(path.join(dataDir, 'service.db'));
    db.exec('CREATE TABLE left_by_root (x)');
    db.close();
    const child = spawnService({ PORT: '0', DATA_DIR: dataDir, HOME: '/tmp' }, { uid: 65534, gid: 65534 });
    const code = await child.exited;
    expect(code).toBe(2);
    const lines = child.output().trim().split('\n');
    expect(lines).toHaveLength(1);
    // SQLite's own words depend on the file's journal mode (SQLITE_READONLY, SQLITE_IOERR_LOCK).
    expect(lines[0].replace(/ \(SQLITE_[A-Z_]+: [^)]+\):/, ' (<sqlite>):')).toBe(
      `refusing to start: ${dataDir}/service.db cannot be read and written by this user (uid 65534; the file belongs to uid 0) (<sqlite>): fix its owner or mode (e.g. chown 65534 ${dataDir}/service.db) or point DATA_DIR at another folder`,
    );
  });
});

it('refuses a search provider set without what it needs, naming the missing variable', () => {
  expect(problems({ WEB_SEARCH_PROVIDER: 'brave' })).toEqual([
    'WEB_SEARCH_PROVIDER=brave needs WEB_SEARCH_API_KEY: set it to your Brave Search API key, or unset WEB_SEARCH_PROVIDER (the web family then has no web_search)',
  ]);
  expect(problems({ WEB_SEARCH_PROVIDER: 'tavily', WEB_SEARCH_URL: 'https://search.example.com' })).toEqual([
    'WEB_SEARCH_PROVIDER=tavily needs WEB_SEARCH_API_KEY: set it to your Tavily API key, or unset WEB_SEARCH_PROVIDER (the web family then has no web_search)',
  ]);
  expect(problems({ WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_API_KEY: 'k' })).toEqual([
    'WEB_SEARCH_PROVIDER=searxng needs WEB_SEARCH_URL: set it to the base URL of your SearXNG instance (with the json format enabled), or unset WEB_SEARCH_PROVIDER (the web family then has no web_search)',
  ]);
  // Reported with the other bad variables; a bad provider name is reported as such, not also as incomplete.
  expect(problems({ WEB_SEARCH_PROVIDER: 'bing', PORT: 'x' })).toEqual([
    'PORT=x: must be an integer from 0 to 65535',
    'WEB_SEARCH_PROVIDER=bing: must be one of brave, tavily, searxng (or leave it unset)',
  ]);
  expect(problems({ WEB_SEARCH_PROVIDER: 'brave', WEB_SEARCH_API_KEY: 'k' })).toEqual([]);
  expect(problems({ WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: 'http://127.0.0.1:8888' })).toEqual([]);
});

it('refuses to start with WEB_SEARCH_PROVIDER=brave and no WEB_SEARCH_API_KEY', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ WEB_SEARCH_PROVIDER: 'brave' });
  expect(code).toBe(2);
  expect(lines).toEqual([
    'refusing to start: WEB_SEARCH_PROVIDER=brave needs WEB_SEARCH_API_KEY: set it to your Brave Search API key, or unset WEB_SEARCH_PROVIDER (the web family then has no web_search)',
  ]);
});

it('refuses a bad value of an enumerated variable naming the variable, the value and the accepted values', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ LOG_LEVEL: 'loud' });
  expect(code).toBe(2);
  expect(lines).toEqual(['refusing to start: LOG_LEVEL=loud: must be one of fatal, error, warn, info, debug, trace, silent']);
});

it('reads LOG_LEVEL in any case: the service starts with LOG_LEVEL=WARN and logs warnings only', { timeout: CHILD_MS }, async () => {
  expect(loadConfig({ LOG_LEVEL: 'Debug' }).LOG_LEVEL).toBe('debug');
  expect(problems({ LOG_LEVEL: 'LOUD' })).toEqual(['LOG_LEVEL=LOUD: must be one of fatal, error, warn, info, debug, trace, silent']);
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'log-level-start-'));
  const child = spawnService({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'WARN' });
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, child, CHILD_MS - 5_000);
    // The start-up warnings follow the listen: wait for them before stopping the service.
    for (let waited = 0; !child.output().includes('AUTH_TOKENS is not set') && waited < 20_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
  const levels = child.output().trim().split('\n').map((l) => (JSON.parse(l) as { level: string }).level);
  // The warning that AUTH_TOKENS is unset, and no info line ("Server listening", the start summary, "shutting down").
  expect(levels).toContain('warn');
  expect(levels.filter((level) => level !== 'warn' && level !== 'error')).toEqual([]);
});

it('words every enumerated variable, list item, URL and secret length plainly, without zod\'s wording', () => {
  expect(problems({ WEB_SEARCH_PROVIDER: 'bing' })).toEqual(['WEB_SEARCH_PROVIDER=bing: must be one of brave, tavily, searxng (or leave it unset)']);
  expect(problems({ MODEL_API: 'Chat' })).toEqual(['MODEL_API=Chat: must be one of responses, chat']);
  expect(problems({ COMPUTER_NETWORK: 'yes' })).toEqual(['COMPUTER_NETWORK=yes: must be one of on, off']);
  expect(problems({ OTEL_RECORD_CONTENT: 'yes' })).toEqual(['OTEL_RECORD_CONTENT=yes: must be one of true, false']);
  expect(problems({ LOG_FORMAT: 'xml' })).toEqual(['LOG_FORMAT=xml: must be one of pretty, json (or leave it unset)']);
  // A comma-separated list names the bad item and what each item may be.
  expect(problems({ DEFAULT_TOOLS: 'todo, bogus' })).toEqual([
    'DEFAULT_TOOLS=todo, bogus: "bogus" is not one of todo, computer, web, schedule, workflow, clarify, jobs (a comma-separated list of them)',
  ]);
  expect(problems({ MODEL_CHAT_FEATURES: 'tool_choice,streaming' })).toEqual([
    'MODEL_CHAT_FEATURES=tool_choice,streaming: "streaming" is not one of tool_choice, tool_choice_none, parallel_tool_calls, developer_role, system_anywhere (a comma-separated list of them)',
  ]);
  expect(problems({ OPENAI_BASE_URL: 'api.example.com/v1' })).toEqual(['OPENAI_BASE_URL (a value of 18 characters, not shown: it is no URL and may be a key): must be an absolute URL such as https://example.com/v1']);
  // Every URL setting is reached over HTTP: another scheme is refused at start, not on every request.
  expect(problems({ OPENAI_BASE_URL: 'ftp://models.example/v1' })).toEqual(['OPENAI_BASE_URL=ftp://models.example/v1: must be an http:// or https:// URL, got ftp://…']);
  expect(problems({ WEB_SEARCH_URL: 'file:///etc/passwd' })).toEqual(['WEB_SEARCH_URL=file:///etc/passwd: must be an http:// or https:// URL, got file://…']);
  expect(problems({ OPENAI_BASE_URL: 'localhost:8000/v1' })).toEqual(['OPENAI_BASE_URL=localhost:8000/v1: must be an http:// or https:// URL: the scheme is missing (did you mean http://localhost:8000/v1?)']);
  expect(problems({ METRICS_TOKEN: 'short' })).toEqual(['METRICS_TOKEN: must be at least 16 characters (a random string; the value is not shown)']);
  // Nothing in zod's own wording is left in any of these lines.
  const all = problems({ LOG_LEVEL: 'x', TOOL_SEARCH_MODE: 'x', CONVERSATION_MODE: 'x', COMPUTER_SANDBOX: 'x', OTEL_TRACES_EXPORTER: 'x', WEB_SEARCH_URL: 'x', OTEL_EXPORTER_OTLP_ENDPOINT: 'x', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'x' });
  expect(all).toHaveLength(8);
  for (const line of all) expect(line).not.toMatch(/Invalid|expected|Too small/);
});

it('never prints a key put in a URL setting by mistake: a value that is no URL is named by its length only, the rest of the refusal kept', { timeout: CHILD_MS }, async () => {
  const key = 'sk-proj-AbCdEf0123456789SECRET';
  const { code, lines } = await refusal({ OPENAI_BASE_URL: key });
  expect(code).toBe(2);
  expect(lines).toEqual(['refusing to start: OPENAI_BASE_URL (a value of 30 characters, not shown: it is no URL and may be a key): must be an absolute URL such as https://example.com/v1']);
  // Every URL setting, WEBHOOK_URL (checked across variables) too; characters counted as code points.
  const all = problems({ WEB_SEARCH_URL: key, OTEL_EXPORTER_OTLP_ENDPOINT: key, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${key}é`, WEBHOOK_URL: key, WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}` });
  expect(all.sort()).toEqual([
    'OTEL_EXPORTER_OTLP_ENDPOINT (a value of 30 characters, not shown: it is no URL and may be a key): must be an absolute URL such as https://example.com/v1',
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (a value of 31 characters, not shown: it is no URL and may be a key): must be an absolute URL such as https://example.com/v1',
    'WEBHOOK_URL (a value of 30 characters, not shown: it is no URL and may be a key): is not an absolute URL (expected e.g. https://example.com/hooks/turns)',
    'WEB_SEARCH_URL (a value of 30 characters, not shown: it is no URL and may be a key): must be an absolute URL such as https://example.com/v1',
  ]);
  for (const line of all) expect(line).not.toContain('AbCdEf');
  // A key pasted after the URL (a space), one written as the host of `https:` without //, or as
  // `name:key` (parsed as a scheme): refused, each named by its length only, the key never printed.
  const pasted = {
    OPENAI_BASE_URL: `https://api.openai.com/v1 ${key}`,
    WEB_SEARCH_URL: `https:${key}`,
    OTEL_EXPORTER_OTLP_ENDPOINT: `team:${key}`,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${key}:x`,
    WEBHOOK_URL: `https://hooks.example/turns\t${key}`,
    WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
  };
  const refused = problems(pasted);
  expect(refused.sort()).toEqual([
    'OPENAI_BASE_URL (a value of 56 characters, not shown: it is no URL and may be a key): must be one URL, without spaces or control characters: a key or token goes in its own variable (e.g. OPENAI_API_KEY)',
    'OTEL_EXPORTER_OTLP_ENDPOINT (a value of 35 characters, not shown: it is no URL and may be a key): must be an absolute URL such as https://example.com/v1',
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (a value of 32 characters, not shown: it is no URL and may be a key): must be an absolute URL such as https://example.com/v1',
    'WEBHOOK_URL (a value of 58 characters, not shown: it is no URL and may be a key): must be one URL, without spaces or control characters (expected e.g. https://example.com/hooks/turns)',
    'WEB_SEARCH_URL (a value of 36 characters, not shown: it is no URL and may be a key): must be an absolute URL such as https://example.com/v1 (written with // after the scheme)',
  ]);
  for (const line of refused) expect(line).not.toContain('AbCdEf');
  // A host and port whose http:// was left out is still repeated with the scheme added.
  expect(problems({ OPENAI_BASE_URL: 'models.example:8000/v1' })).toEqual(['OPENAI_BASE_URL=models.example:8000/v1: must be an http:// or https:// URL: the scheme is missing (did you mean http://models.example:8000/v1?)']);
  // A value that is a URL is shown as before: its password masked, the scheme hint kept.
  expect(problems({ OPENAI_BASE_URL: 'ftp://user:pw-secret@models.example/v1' })).toEqual(['OPENAI_BASE_URL=ftp://***@models.example/v1: must be an http:// or https:// URL, got ftp://…']);
  expect(problems({ WEBHOOK_URL: 'ftp://hooks.example/x', WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}` })).toEqual(['WEBHOOK_URL: scheme ftp is not allowed (use http or https)']);
});

it('refuses a base URL with a #fragment, which the appended path would go after (every turn a 404), with one line saying to remove it; a query string stays allowed', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ OPENAI_BASE_URL: 'http://127.0.0.1:9/v1#x' });
  expect(code).toBe(2);
  expect(lines).toEqual([
    'refusing to start: OPENAI_BASE_URL=http://127.0.0.1:9/v1#…: must not have a #fragment (found "#" and 1 character after it): the path the service appends would go after it and never be sent; remove the #… part, as in http://127.0.0.1:9/v1',
  ]);
  // An empty fragment breaks the path the same way; the other URLs a path is appended to are checked alike.
  expect(problems({ OPENAI_BASE_URL: 'https://models.example/v1#' })).toEqual([
    'OPENAI_BASE_URL=https://models.example/v1#: must not have a #fragment (found "#" and 0 characters after it): the path the service appends would go after it and never be sent; remove the #… part, as in https://models.example/v1',
  ]);
  expect(problems({ WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: 'http://127.0.0.1:8888/#top' })).toEqual([
    'WEB_SEARCH_URL=http://127.0.0.1:8888/#…: must not have a #fragment (found "#" and 3 characters after it): the path the service appends would go after it and never be sent; remove the #… part, as in http://127.0.0.1:8888/',
  ]);
  expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318#otlp' })).toEqual([
    'OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318#…: must not have a #fragment (found "#" and 4 characters after it): the path the service appends would go after it and never be sent; remove the #… part, as in http://127.0.0.1:4318',
  ]);
  // A scheme that is wrong is one line, not two.
  expect(problems({ OPENAI_BASE_URL: 'ftp://models.example/v1#x' })).toEqual(['OPENAI_BASE_URL=ftp://models.example/v1#…: must be an http:// or https:// URL, got ftp://…']);
  // A password or key in the URL is not printed, neither in the value shown nor in the example.
  expect(problems({ OPENAI_BASE_URL: 'https://user:pw-secret-1@r.example/v1?api-version=1&api-key=key-secret-2#x' })).toEqual([
    'OPENAI_BASE_URL=https://***@r.example/v1?api-version=1&api-key=[redacted]#…: must not have a #fragment (found "#" and 1 character after it): the path the service appends would go after it and never be sent; remove the #… part, as in https://***@r.example/v1?api-version=1&api-key=[redacted]',
  ]);
  expect(problems({ WEB_SEARCH_URL: 'ftp://u:pw-secret-3@s.example/?token=key-secret-4' }).join('\n')).not.toMatch(/secret/);
  // Nor a key in the fragment, whatever its form.
  expect(problems({ OPENAI_BASE_URL: 'https://h.example/v1#api-key=key-secret-5' }).join('\n')).not.toMatch(/secret/);
  expect(problems({ OPENAI_BASE_URL: 'https://h.example/v1?token=key-secret-6#=key-secret-6' }).join('\n')).not.toMatch(/secret/);
  // Azure's ?api-version= is a query string, kept.
  expect(loadConfig({ OPENAI_BASE_URL: 'https://r.openai.azure.com/openai/v1?api-version=preview' }).OPENAI_BASE_URL).toBe('https://r.openai.azure.com/openai/v1?api-version=preview');
});

it('refuses a #fragment in a URL no path is appended to too (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, WEBHOOK_URL): never sent, so one line naming the variable says to remove it, the fragment shown as #…', { timeout: CHILD_MS }, async () => {
  const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
  const { code, lines } = await refusal({ WEBHOOK_URL: 'https://hooks.example/h?x=1#sig=frag-secret-1', WEBHOOK_SECRET: secret });
  expect(code).toBe(2);
  expect(lines).toEqual([
    'refusing to start: WEBHOOK_URL: must not have a #fragment (found "#" and 17 characters after it): it is never sent in a delivery, so the receiver would not see it; remove the #… part, as in https://hooks.example/h?x=1',
  ]);
  expect(problems({ WEBHOOK_URL: 'https://hooks.example/h#', WEBHOOK_SECRET: secret })).toEqual([
    'WEBHOOK_URL: must not have a #fragment (found "#" and 0 characters after it): it is never sent in a delivery, so the receiver would not see it; remove the #… part, as in https://hooks.example/h',
  ]);
  expect(problems({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces#frag-secret-2' })).toEqual([
    'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:4318/v1/traces#…: must not have a #fragment (found "#" and 13 characters after it): it is never sent in a request; remove the #… part, as in http://127.0.0.1:4318/v1/traces',
  ]);
  // Without the fragment both are taken as given.
  expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }).OTEL_EXPORTER_OTLP_TRACES_ENDPOINT).toBe('http://127.0.0.1:4318/v1/traces');
  expect(problems({ WEBHOOK_URL: 'https://hooks.example/h', WEBHOOK_SECRET: secret })).toEqual([]);
});

it('refuses a malformed or empty host-list entry naming the variable and the entry', () => {
  const wild = 'is not a host name or IP address (write the name only: no scheme, port, path or spaces; *.example.com for subdomains)';
  expect(problems({ WEB_FETCH_ALLOW_HOSTS: 'http://x' })).toEqual([`WEB_FETCH_ALLOW_HOSTS=http://x: "http://x" ${wild}`]);
  expect(problems({ WEBHOOK_ALLOW_HOSTS: 'a b, :80' })).toEqual([`WEBHOOK_ALLOW_HOSTS=a b, :80: "a b" ${wild}; ":80" ${wild}`]);
  expect(problems({ ALLOWED_HOSTS: 'a,,b' })).toEqual(['ALLOWED_HOSTS=a,,b: entry 2 of 3 is empty (two commas in a row, or a comma at an end)']);
  expect(problems({ WEB_FETCH_ALLOW_HOSTS: 'a.example,' })).toEqual(['WEB_FETCH_ALLOW_HOSTS=a.example,: entry 2 of 2 is empty (two commas in a row, or a comma at an end)']);
  // ALLOWED_HOSTS matches Host headers exactly: no wildcards, IPv6 in brackets, no port (any port is served).
  expect(problems({ ALLOWED_HOSTS: 'turns.internal:8787' })).toEqual([
    'ALLOWED_HOSTS=turns.internal:8787: "turns.internal:8787" is not a host name or IP address (write the name only: no scheme, port, path, spaces or wildcards)',
  ]);
  expect(problems({ ALLOWED_HOSTS: '*.internal' })).toEqual([
    'ALLOWED_HOSTS=*.internal: "*.internal" is not a host name or IP address (write the name only: no scheme, port, path, spaces or wildcards)',
  ]);
  expect(problems({ ALLOWED_HOSTS: 'fd00::1' })).toEqual(['ALLOWED_HOSTS=fd00::1: "fd00::1": write an IPv6 address in brackets ([fd00::1]), as in a Host header']);
  expect(loadConfig({ ALLOWED_HOSTS: ' turns.internal , [fd00::1], 10.0.0.5' }).ALLOWED_HOSTS).toEqual(['turns.internal', '[fd00::1]', '10.0.0.5']);
  expect(loadConfig({ WEB_FETCH_ALLOW_HOSTS: '127.0.0.1, *.corp.example, ::1, [fe80::1], host_a.' }).WEB_FETCH_ALLOW_HOSTS).toEqual(['127.0.0.1', '*.corp.example', '::1', '[fe80::1]', 'host_a.']);
});

it('refuses a HOST that does not resolve with one line and exit code 2, not a stack trace', { timeout: CHILD_MS }, async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'host-'));
  try {
    const { code, lines } = await refusal({ HOST: 'nonsense.invalid', AUTH_TOKENS: 'a-token-of-the-test', DATA_DIR: dataDir });
    expect(code).toBe(2);
    expect(lines).toEqual([expect.stringMatching(/^refusing to start: HOST=nonsense\.invalid does not resolve to an address of this machine \((ENOTFOUND|EAI_AGAIN)\); set HOST to an IP address/)]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('says a HOST that does not resolve does not resolve also without AUTH_TOKENS (not "beyond loopback")', { timeout: CHILD_MS }, async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'host-'));
  try {
    const { code, lines } = await refusal({ HOST: 'nonsense.invalid', DATA_DIR: dataDir });
    expect(code).toBe(2);
    expect(lines).toEqual([expect.stringMatching(/^refusing to start: HOST=nonsense\.invalid does not resolve to an address of this machine \((ENOTFOUND|EAI_AGAIN)\); set HOST to an IP address/)]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  // Reported with the other bad variables; a name that resolves is still held to the loopback rule.
  expect(problems({ HOST: 'nonsense.invalid', PORT: 'x' })).toEqual(['PORT=x: must be an integer from 0 to 65535', 'HOST=nonsense.invalid is beyond loopback but AUTH_TOKENS is empty: set AUTH_TOKENS (comma-separated bearer tokens) or bind 127.0.0.1']);
  expect(() => loadConfig({ HOST: 'nonsense.invalid', PORT: 'x' }, { hostUnresolved: 'ENOTFOUND' })).toThrow(
    'invalid configuration:\n  - PORT=x: must be an integer from 0 to 65535\n  - HOST=nonsense.invalid does not resolve to an address of this machine (ENOTFOUND); set HOST to an IP address (127.0.0.1, 0.0.0.0, ::1, ::) or a name that resolves',
  );
  expect(await hostLookupFailure('nonsense.invalid')).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
  for (const h of [undefined, '', '0.0.0.0', '[::1]', 'localhost']) expect(await hostLookupFailure(h)).toBeNull();
});

it('binds an IPv6 HOST written in brackets, as in a URL ([::1])', () => {
  expect(loadConfig({ HOST: '[::1]' }).HOST).toBe('::1');
  expect(loadConfig({ HOST: '[::1]' }).isLoopback).toBe(true);
});

describe('skill paths that cannot be used refuse the start with one line naming the variable and the path', () => {
  let scratch: string;
  // A folder of its own for DATA_DIR: a service that wrongly starts must not hold /tmp for the others.
  // A service that wrongly starts is stopped once it answers /healthz, so the test fails at once.
  const refuse = async (env: Record<string, string>) => {
    const port = await freePort();
    const child = spawnService({ PORT: String(port), DATA_DIR: path.join(scratch, 'data'), ...env });
    const started = waitHealthy(`http://127.0.0.1:${port}`, child, CHILD_MS - 10_000).then(
      () => child.proc.kill('SIGTERM'),
      () => undefined,
    );
    const code = await child.exited;
    await started;
    return { code, lines: child.output().trim().split('\n') };
  };
  beforeAll(() => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'skill-paths-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('SKILLS_DIR that does not exist', { timeout: CHILD_MS }, async () => {
    const missing = path.join(scratch, 'no-such-skills');
    const { code, lines } = await refuse({ SKILLS_DIR: missing });
    expect(code).toBe(2);
    expect(lines).toEqual([
      `refusing to start: SKILLS_DIR=${missing}: cannot read it as the folder of built-in skills (ENOENT: no such file or directory); point it at a folder holding one folder per skill, or unset SKILLS_DIR`,
    ]);
    // README's Configuration table quotes this very line.
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).toContain(`\`${lines[0].replace(missing, '<path>')}\``);
  });

  it('SKILLS_DIR with a bidi control and SKILL_SECRETS with a terminal escape: shown quoted, those characters as \\uXXXX', { timeout: CHILD_MS }, async () => {
    const { code, lines } = await refuse({ SKILLS_DIR: '/nope\u202eab', SKILL_SECRETS: '/nope\x1b[31mred' });
    expect(code).toBe(2);
    expect(lines).toEqual([
      'refusing to start: invalid configuration:',
      '  - SKILLS_DIR="/nope\\u202Eab": cannot read it as the folder of built-in skills (ENOENT: no such file or directory); point it at a folder holding one folder per skill, or unset SKILLS_DIR',
      '  - SKILL_SECRETS="/nope\\u001B[31mred": cannot read it as the secrets file (ENOENT: no such file or directory); point it at a readable dotenv file (NAME=value lines), or unset SKILL_SECRETS',
    ]);
    for (const line of lines) expect(line).not.toMatch(/[\u0000-\u001F\u007F-\u009F\u202E]/);
  });

  it('SKILLS_DIR that is a file', { timeout: CHILD_MS }, async () => {
    const file = path.join(scratch, 'a-file');
    writeFileSync(file, 'not a folder\n');
    const { code, lines } = await refuse({ SKILLS_DIR: file });
    expect(code).toBe(2);
    expect(lines).toEqual([
      `refusing to start: SKILLS_DIR=${file}: cannot read it as the folder of built-in skills (ENOTDIR: it is a file, not a folder); point it at a folder holding one folder per skill, or unset SKILLS_DIR`,
    ]);
  });

  it('SKILL_SECRETS that does not exist, or is a folder', { timeout: 2 * CHILD_MS }, async () => {
    const missing = path.join(scratch, 'no-such-secrets.env');
    const gone = await refuse({ SKILL_SECRETS: missing });
    expect(gone.code).toBe(2);
    expect(gone.lines).toEqual([
      `refusing to start: SKILL_SECRETS=${missing}: cannot read it as the secrets file (ENOENT: no such file or directory); point it at a readable dotenv file (NAME=value lines), or unset SKILL_SECRETS`,
    ]);
    const folder = await refuse({ SKILL_SECRETS: scratch });
    expect(folder.code).toBe(2);
    expect(folder.lines).toEqual([
      `refusing to start: SKILL_SECRETS=${scratch}: cannot read it as the secrets file (EISDIR: it is a folder, not a file); point it at a readable dotenv file (NAME=value lines), or unset SKILL_SECRETS`,
    ]);
  });

  it('SKILL_SECRETS with values under 8 characters', { timeout: CHILD_MS }, async () => {
    const file = path.join(scratch, 'short-secrets.env');
    writeFileSync(file, 'VAULT_TOKEN=long-enough-token\nPIN=1234\nX=abcdefg\n');
    const { code, lines } = await refuse({ SKILL_SECRETS: file });
    expect(code).toBe(2);
    expect(lines).toEqual([
      `refusing to start: SKILL_SECRETS=${file}: the values of PIN (4 characters), X (7 characters) are shorter than 8 characters, the minimum for a secret (a shorter value would be replaced inside every command output and give itself away by the pattern); use longer values or remove PIN, X`,
    ]);
    expect(lines.join('\n')).not.toContain('1234');
  });

  it('SKILL_SECRETS with a line that is no NAME=value, a name that is no environment variable name, an empty value', { timeout: CHILD_MS }, async () => {
    const file = path.join(scratch, 'malformed-secrets.env');
    writeFileSync(file, '# secrets\n\nVAULT_TOKEN=long-enough-token\nBAD LINE\n1BAD=x-secret-value\nA=\n');
    const { code, lines } = await refuse({ SKILL_SECRETS: file });
    expect(code).toBe(2);
    expect(lines).toEqual([
      `refusing to start: SKILL_SECRETS=${file}: line 4 is not NAME=value (it has no =); line 5: its name is not an environment variable name; line 6 has an empty value; fix or remove those lines (each line is NAME=value with NAME an environment variable name — letters, digits and _, not starting with a digit — and a value; blank lines and # comments are allowed)`,
    ]);
    expect(lines.join('\n')).not.toMatch(/x-secret-value|long-enough-token/);
  });

  it('SKILL_SECRETS with a token pasted without NAME= or after "NAME: ": the refusal names lines by number, never a part of the token', { timeout: 2 * CHILD_MS }, async () => {
    const b64 = 'c2stbGl2ZS1zdXBlcnNlY3JldC10b2tlbg';
    const pasted = path.join(scratch, 'pasted-secrets.env');
    writeFileSync(pasted, `VAULT_TOKEN=long-enough-token\n${b64}==\n`);
    const one = await refuse({ SKILL_SECRETS: pasted });
    expect(one.code).toBe(2);
    expect(one.lines).toEqual([
      `refusing to start: SKILL_SECRETS=${pasted}: the value of the setting on line 2 (1 character) is shorter than 8 characters, the minimum for a secret (a shorter value would be replaced inside every command output and give itself away by the pattern); use a longer value or remove line 2`,
    ]);
    const key = 'sk-live-abcdef1234567890';
    const colon = path.join(scratch, 'colon-secrets.env');
    writeFileSync(colon, `API_KEY: ${key}=x\n`);
    const two = await refuse({ SKILL_SECRETS: colon });
    expect(two.code).toBe(2);
    expect(two.lines).toEqual([
      `refusing to start: SKILL_SECRETS=${colon}: line 1: its name is not an environment variable name; fix or remove that line (each line is NAME=value with NAME an environment variable name — letters, digits and _, not starting with a digit — and a value; blank lines and # comments are allowed)`,
    ]);
    for (const [out, token] of [[one, b64], [two, key]] as const) {
      for (let i = 0; i + 8 <= token.length; i++) expect(out.lines.join('\n')).not.toContain(token.slice(i, i + 8));
    }
  });

  it('starts with a SKILLS_DIR folder and a SKILL_SECRETS file', { timeout: CHILD_MS }, async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'skill-paths-start-'));
    mkdirSync(path.join(scratch, 'skills'), { recursive: true });
    writeFileSync(path.join(scratch, 'secrets.env'), 'VAULT_TOKEN=abcdefgh\n');
    const child = spawnService({ PORT: String(port), DATA_DIR: dataDir, SKILLS_DIR: path.join(scratch, 'skills'), SKILL_SECRETS: path.join(scratch, 'secrets.env') });
    try {
      await waitHealthy(`http://127.0.0.1:${port}`, child, CHILD_MS - 5_000);
    } finally {
      child.proc.kill('SIGTERM');
      await child.exited;
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

it('refuses AUTH_TOKENS that hold no token (only commas and spaces), which would leave the API open', () => {
  expect(problems({ AUTH_TOKENS: ', ,' })).toEqual([expect.stringMatching(/^AUTH_TOKENS.*holds no token \(only commas and spaces\): give comma-separated bearer tokens, or unset AUTH_TOKENS$/)]);
  expect(problems({ AUTH_TOKENS: 'a-token-of-the-test, ' })).toEqual([]);
});

it('refuses an AUTH_TOKENS entry shorter than 16 characters with one line naming which, never the value', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ AUTH_TOKENS: 'tok-1' });
  expect(code).toBe(2);
  expect(lines).toEqual([
    'refusing to start: AUTH_TOKENS: the token is shorter than 16 characters: use random strings of 16+ characters each (e.g. openssl rand -hex 32; the value is not shown)',
  ]);
  expect(problems({ AUTH_TOKENS: 'a-token-of-the-test, fifteen-chars', HOST: '0.0.0.0' })).toEqual([
    'AUTH_TOKENS: token 2 of 2 is shorter than 16 characters: use random strings of 16+ characters each (e.g. openssl rand -hex 32; the value is not shown)',
  ]);
  expect(problems({ AUTH_TOKENS: 'sixteen-chars-ok, a-token-of-the-test' })).toEqual([]);
});

it('refuses an AUTH_TOKENS entry no client can send as a bearer token (not an RFC 6750 b64token) with one line naming which by position, never its value, and how to make one', { timeout: CHILD_MS }, async () => {
  const allowed = 'a bearer token may hold only letters A-Z and a-z, digits and - . _ ~ + /, with = only at the end (an RFC 6750 §2.1 b64token); make one with openssl rand -hex 32 (the value is not shown)';
  const { code, lines } = await refusal({ AUTH_TOKENS: 'a-token-of-the-test,tökenabcdefghijklmn,another-token-0123' });
  expect(code).toBe(2);
  expect(lines).toEqual([`refusing to start: AUTH_TOKENS: token 2 of 3 has a non-ASCII character: ${allowed}`]);
  // Quotes an env file left (around the whole value or one token) get the hint to remove them.
  expect(problems({ AUTH_TOKENS: '"abcdefghijklmnopqrst"' })).toEqual([`AUTH_TOKENS: the token starts or ends with a quote, which an env file read without a shell keeps: remove the quotes (${allowed})`]);
  expect(problems({ AUTH_TOKENS: "'first-token-0123456789, second-token-0123456789'" })).toEqual([
    `AUTH_TOKENS: token 1 of 2 starts or ends with a quote, which an env file read without a shell keeps: remove the quotes (${allowed})`,
    `AUTH_TOKENS: token 2 of 2 starts or ends with a quote, which an env file read without a shell keeps: remove the quotes (${allowed})`,
  ]);
  // Each bad token has its line; the kind of character is named, never the character or the token.
  const bad = problems({ AUTH_TOKENS: 'ctl\u0001abcdefghijklmnop, with space in it 0123, at@abcdefghijklmnopq, a=bcdefghijklmnopqrs, ====, sixteen-chars-ok, short' });
  expect(bad).toEqual([
    `AUTH_TOKENS: token 1 of 7 has a control character: ${allowed}`,
    `AUTH_TOKENS: token 2 of 7 has a space: ${allowed}`,
    `AUTH_TOKENS: token 3 of 7 has a punctuation character other than - . _ ~ + / =: ${allowed}`,
    `AUTH_TOKENS: token 4 of 7 has an = before its end: ${allowed}`,
    `AUTH_TOKENS: token 5 of 7 is nothing but =: ${allowed}`,
    'AUTH_TOKENS: token 7 of 7 is shorter than 16 characters: use random strings of 16+ characters each (e.g. openssl rand -hex 32; the value is not shown)',
  ]);
  for (const line of bad) expect(line).not.toMatch(/abcdefghij|space in it|\bshort\b/);
  // Every b64token character is accepted, = padding at the end too.
  expect(problems({ AUTH_TOKENS: 'AZaz09-._~+/abcdef==, 0123456789abcdef' })).toEqual([]);
});

it('refuses a METRICS_TOKEN that is not an RFC 6750 b64token as AUTH_TOKENS entries are, never showing it; STREAM_TOKEN_SECRET (no bearer token) keeps any characters', () => {
  const allowed = 'a bearer token may hold only letters A-Z and a-z, digits and - . _ ~ + /, with = only at the end (an RFC 6750 §2.1 b64token); make one with openssl rand -hex 32 (the value is not shown)';
  expect(problems({ METRICS_TOKEN: 'metrics token 0123456789' })).toEqual([`METRICS_TOKEN: has a space: ${allowed}`]);
  expect(problems({ METRICS_TOKEN: '"metrics-token-0123456789"' })).toEqual([`METRICS_TOKEN: starts or ends with a quote, which an env file read without a shell keeps: remove the quotes (${allowed})`]);
  expect(problems({ METRICS_TOKEN: 'metrics-token-0123456789' })).toEqual([]);
  expect(problems({ STREAM_TOKEN_SECRET: 'a secret, with "anything" ö' })).toEqual([]);
});

it('counts every form naming a loopback address as loopback (no AUTH_TOKENS needed), the IPv4-mapped ::ffff:127.0.0.1 and the resolver\'s shorthand 127.1 too; still refuses 0.0.0.0, :: and a LAN address without AUTH_TOKENS', async () => {
  const forms = ['::ffff:127.0.0.1', '::ffff:7f00:1', '[::ffff:7f00:1]', '127.1', '127.0.1', '127.255.255.254', '0x7f.1', '2130706433', '0:0:0:0:0:0:0:1', '[0:0:0:0:0:0:0:1]', '::1%lo', 'LOCALHOST'];
  for (const HOST of forms) {
    const config = loadConfig({ HOST });
    expect({ HOST, isLoopback: config.isLoopback }).toEqual({ HOST, isLoopback: true });
    // Bound as given (without brackets), not rewritten.
    expect(config.HOST).toBe(HOST.replace(/^\[(.*)\]$/, '$1'));
    expect(await hostLookupFailure(HOST)).toBeNull();
  }
  const beyond = (h: string) => `HOST=${h} is beyond loopback but AUTH_TOKENS is empty: set AUTH_TOKENS (comma-separated bearer tokens) or bind 127.0.0.1`;
  // Not loopback: the wildcards, a LAN address, 128/8, NAT64 and the deprecated IPv4-compatible form of 127.0.0.1, ::2.
  for (const HOST of ['0.0.0.0', '::', '192.168.1.10', '128.0.0.1', '64:ff9b::7f00:1', '::127.0.0.1', '0:0:0:0:0:0:0:2']) {
    expect(problems({ HOST })).toEqual([beyond(HOST)]);
    expect(loadConfig({ HOST, AUTH_TOKENS: 'a-token-of-the-test' }).isLoopback).toBe(false);
  }
});

it('starts without AUTH_TOKENS on HOST=127.1, the shorthand of 127.0.0.1, and answers there', { timeout: CHILD_MS }, async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'host-shorthand-'));
  const child = spawnService({ HOST: '127.1', PORT: String(port), DATA_DIR: dataDir });
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, child, CHILD_MS - 5_000);
  } finally {
    child.proc.kill('SIGTERM');
    await child.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('a WEBHOOK_URL no delivery could reach', () => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

  it('refuses a loopback WEBHOOK_URL not in WEBHOOK_ALLOW_HOSTS with one line naming WEBHOOK_ALLOW_HOSTS, and starts once it is listed', { timeout: 2 * CHILD_MS }, async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'webhook-url-'));
    try {
      const { code, lines } = await refusal({ WEBHOOK_URL: 'http://127.0.0.1:9/hooks', WEBHOOK_SECRET: secret, DATA_DIR: dataDir });
      expect(code).toBe(2);
      expect(lines).toEqual([
        'refusing to start: WEBHOOK_URL: 127.0.0.1 is a loopback address — webhooks only reach public addresses: add 127.0.0.1 to WEBHOOK_ALLOW_HOSTS to deliver to it, or use a public URL',
      ]);
      const port = await freePort();
      const child = spawnService({ PORT: String(port), DATA_DIR: dataDir, WEBHOOK_URL: 'http://127.0.0.1:9/hooks', WEBHOOK_SECRET: secret, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
      try {
        await waitHealthy(`http://127.0.0.1:${port}`, child, CHILD_MS - 5_000);
      } finally {
        child.proc.kill('SIGTERM');
        await child.exited;
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('names the address a host name resolves to, leaves a name that does not resolve (yet) to the deliveries, and reports it with the other bad variables', async () => {
    expect(await webhookUrlRefusal('http://localhost:8080/hooks', [])).toMatch(
      /^WEBHOOK_URL: localhost \(resolves to (127\.0\.0\.1|::1)\) is a loopback address — webhooks only reach public addresses: add localhost to WEBHOOK_ALLOW_HOSTS to deliver to it, or use a public URL$/,
    );
    expect(await webhookUrlRefusal('http://LOCALHOST:8080/hooks', [' localhost '])).toBeNull();
    expect(await webhookUrlRefusal('http://[::1]/hooks', ['::1'])).toBeNull();
    expect(await webhookUrlRefusal('http://[fd00::5]/hooks', [])).toMatch(/^WEBHOOK_URL: fd00::5 is a .* address — .* add fd00::5 to WEBHOOK_ALLOW_HOSTS/);
    // a / an, and an embedded IPv4 form names its address once.
    expect(await webhookUrlRefusal('http://0.0.0.0/x', [])).toMatch(/^WEBHOOK_URL: 0\.0\.0\.0 is an unspecified address — /);
    expect(await webhookUrlRefusal('http://[::ffff:127.0.0.1]/x', [])).toMatch(/^WEBHOOK_URL: ::ffff:7f00:1 is the IPv4-mapped form of loopback address 127\.0\.0\.1 — webhooks only reach public addresses: add ::ffff:7f00:1 to WEBHOOK_ALLOW_HOSTS/);
    expect(await webhookUrlRefusal('https://93.184.215.14/hooks', [])).toBeNull();
    expect(await webhookUrlRefusal('http://nonsense.invalid/hooks', [])).toBeNull();
    expect(await webhookUrlRefusal('ftp://127.0.0.1/hooks', [])).toBeNull(); // the URL check reports that one
    expect(await webhookUrlRefusal(undefined, [])).toBeNull();
    const refused = (await webhookUrlRefusal('http://10.1.2.3/h', []))!;
    expect(problems({ PORT: 'x', WEBHOOK_URL: 'http://10.1.2.3/h' })).not.toContain(refused);
    let err: unknown;
    try {
      loadConfig({ PORT: 'x', WEBHOOK_URL: 'http://10.1.2.3/h', WEBHOOK_SECRET: secret }, { webhookUrlRefused: refused });
    } catch (e) {
      err = e;
    }
    expect((err as ConfigError).problems).toEqual(['PORT=x: must be an integer from 0 to 65535', refused]);
  });
});

it('refuses an OTEL_TRACES_SAMPLER the SDK spec does not name (a typo such as always-off) with the accepted values, instead of sampling everything', { timeout: CHILD_MS }, async () => {
  const { code, lines } = await refusal({ OTEL_TRACES_SAMPLER: 'always-off' });
  expect(code).toBe(2);
  expect(lines).toEqual(['refusing to start: OTEL_TRACES_SAMPLER=always-off: must be one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio (or leave it unset)']);
  expect(problems({ OTEL_TRACES_SAMPLER: 'bogus' })).toEqual(['OTEL_TRACES_SAMPLER=bogus: must be one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio (or leave it unset)']);
  expect(loadConfig({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' })).toMatchObject({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: 0.25 });
});

it('refuses an OTEL_TRACES_SAMPLER_ARG that is not a ratio from 0 to 1', () => {
  const ratio = 'must be a number from 0 to 1 (the share of traces sampled by traceidratio and parentbased_traceidratio), e.g. 0.25';
  expect(problems({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'abc' })).toEqual([`OTEL_TRACES_SAMPLER_ARG=abc: ${ratio}`]);
  expect(problems({ OTEL_TRACES_SAMPLER_ARG: '1.5' })).toEqual([`OTEL_TRACES_SAMPLER_ARG=1.5: ${ratio}`]);
  expect(problems({ OTEL_TRACES_SAMPLER_ARG: '-0.1' })).toEqual([`OTEL_TRACES_SAMPLER_ARG=-0.1: ${ratio}`]);
  expect(problems({ OTEL_TRACES_SAMPLER_ARG: 'Infinity' })).toEqual([`OTEL_TRACES_SAMPLER_ARG=Infinity: ${ratio}`]);
  expect(loadConfig({ OTEL_TRACES_SAMPLER_ARG: '0' }).OTEL_TRACES_SAMPLER_ARG).toBe(0);
  expect(loadConfig({ OTEL_TRACES_SAMPLER_ARG: '1' }).OTEL_TRACES_SAMPLER_ARG).toBe(1);
});

it('refuses the grpc OTLP protocol (HTTP sent to the gRPC port lost every span) and an unknown one, saying which are supported', { timeout: CHILD_MS }, async () => {
  const supported = 'this service sends OTLP over HTTP only (http/json or http/protobuf, to an OTLP/HTTP receiver such as a collector\'s port 4318); set one of them or leave it unset (http/json)';
  const { code, lines } = await refusal({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317' });
  expect(code).toBe(2);
  expect(lines).toEqual([`refusing to start: OTEL_EXPORTER_OTLP_PROTOCOL=grpc: grpc is not supported: ${supported}`]);
  expect(problems({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' })).toEqual([`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc: grpc is not supported: ${supported}`]);
  expect(problems({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http' })).toEqual([`OTEL_EXPORTER_OTLP_PROTOCOL=http: is not an OTLP protocol (grpc, http/protobuf, http/json): ${supported}`]);
  expect(problems({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toEqual([]);
});

it('names every bad variable in one report: an empty AUTH_TOKENS and each CORS_ORIGINS entry that is not a bare origin, a wildcard said to be one', () => {
  const lines = problems({ AUTH_TOKENS: ' , ,', CORS_ORIGINS: '*,app.example,https://ok.example,https://x.example/path' });
  expect(lines.some((l) => l.startsWith('AUTH_TOKENS'))).toBe(true);
  const cors = lines.filter((l) => l.startsWith('CORS_ORIGINS'));
  expect(cors).toEqual([
    'CORS_ORIGINS=*,app.example,https://ok.example,https://x.example/path: "*" is a wildcard: CORS_ORIGINS lists each allowed origin, as an origin like https://app.example.com or http://localhost:5173 (scheme, host and port only); wildcards are not supported',
    'CORS_ORIGINS=*,app.example,https://ok.example,https://x.example/path: "app.example" is not an origin like https://app.example.com or http://localhost:5173 (scheme, host and port only)',
    'CORS_ORIGINS=*,app.example,https://ok.example,https://x.example/path: "https://x.example/path" is not an origin like https://app.example.com or http://localhost:5173 (scheme, host and port only)',
  ]);
  expect(problems({ CORS_ORIGINS: 'https://ok.example, http://localhost:5173' })).toEqual([]);
});
