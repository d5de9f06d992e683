/**
 * A skill with MCP servers, used through real parts: the skill (installed over REST) declares a
 * stdio server (test/support/mcp-stdio-server.cjs, run inside the bubblewrap sandbox by the
 * pinned mcporter) and a streamable-HTTP one (test/support/mcp-http-server.ts, on loopback, with a
 * bearer token from SKILL_SECRETS). The scripted model installs nothing: it reads the skill with
 * skill_view, then runs the mcporter calls with `command`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, type ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api, useScriptedService } from '../e2e/support/service.js';
import { readSse } from '../e2e/support/sse-client.js';
import { skillMd, tarGz } from '../support/archives.js';
import { startMcpHttpServer, type McpHttpServer } from '../support/mcp-http-server.js';

const TOKEN = 'tok-7f3a9c1e-5b2d-4e8f-a6c0-d91b2e4f8a37';
const secretsDir = mkdtempSync(path.join(os.tmpdir(), 'skill-secrets-'));
const secretsFile = path.join(secretsDir, 'secrets.env');
writeFileSync(secretsFile, `# skill secrets\nVAULT_TOKEN=${TOKEN}\nUNUSED_SECRET=never-exported-value\n`, { mode: 0o600 });
afterAll(() => rmSync(secretsDir, { recursive: true, force: true }));

/** The service's log lines (JSON), for what it says of a refused SKILL_SECRETS edit. */
const logLines: { level: string; msg: string; file?: string }[] = [];
const harness = useScriptedService({ env: { COMPUTER_NETWORK: 'on', SKILL_SECRETS: secretsFile, LOG_LEVEL: 'info' }, logDestination: { write: (l) => void logLines.push(JSON.parse(l)) } });
let vault: McpHttpServer;

function manifest(url: string): string {
  return [
    'interface:',
    '  display_name: Tools',
    'dependencies:',
    '  tools:',
    '    - type: mcp',
    '      value: calc',
    '      description: A calculator',
    '      transport: stdio',
    '      command: node /skills/mcp-tools/scripts/server.cjs',
    '    - type: mcp',
    '      value: vault',
    '      transport: streamable_http',
    `      url: ${url}`,
    '      bearer_token_env_var: VAULT_TOKEN',
    '      enabled_tools: [lookup, fail]',
    '',
  ].join('\n');
}

beforeAll(async () => {
  vault = await startMcpHttpServer(TOKEN, { greeting: 'hello from the vault' });
  const body = tarGz([
    { name: 'SKILL.md', data: skillMd('mcp-tools', 'Calculator and vault over MCP', '# MCP tools\n\nUse calc for sums and vault for lookups.\n') },
    { name: 'agents/openai.yaml', data: manifest(vault.url) },
    { name: 'scripts/server.cjs', data: readFileSync(path.join(import.meta.dirname, '..', 'support', 'mcp-stdio-server.cjs')) },
  ]);
  const r = await fetch(`${harness.svc.url}/v1/skills/mcp-tools`, { method: 'PUT', headers: { 'content-type': 'application/gzip' }, body: new Uint8Array(body) });
  expect(r.status).toBe(201);
});
afterAll(async () => vault?.close());

function lastOutput(body: ResponsesRequestBody): string {
  const outputs = (body.input as { type?: string; output?: unknown }[]).filter((i) => i.type === 'function_call_output');
  const o = outputs.at(-1)?.output;
  return typeof o === 'string' ? o : JSON.stringify(o);
}

const configDir = () => path.join(harness.svc.dataDir, 'run', 'mcporter');

describe('MCP servers of a skill through mcporter', () => {
  it('calls a stdio and an HTTP server from command; results reach the model, errors fail the command, secrets stay hidden', async () => {
    const call = (sel: string, args: object) => `echo '${JSON.stringify(args)}' > args.json && mcporter call '${sel}' --json - --output json --timeout 60000 < args.json`;
    let configSeen = '';
    harness.model.push(
      { output: [functionCall('skill_view', { name: 'mcp-tools' })] },
      { output: [functionCall('command', { command: call('calc.add', { a: 2, b: 40 }) })] },
      { output: [functionCall('command', { command: call('vault.lookup', { key: 'greeting' }) })] },
      { output: [functionCall('command', { command: call('calc.fail', {}) })] },
      { output: [functionCall('command', { command: call('vault.fail', {}) })] },
      { output: [functionCall('command', { command: 'env | sort | tee env-dump.txt; echo "config=$MCPORTER_CONFIG"; stat -c "%a" "$MCPORTER_CONFIG"; cat "$MCPORTER_CONFIG"; ls /skills' })] },
      (body) => {
        configSeen = lastOutput(body);
        return { output: [functionCall('read_file', { path: 'env-dump.txt' })] };
      },
      (body) => ({ output: [message(`done: ${lastOutput(body).length}`)] }),
    );
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'use the tools', tools: ['computer'], skills: ['mcp-tools'] }, timeoutMs: 120_000 });
    expect(r.status).toBe(200);
    const last = r.events.at(-1)!.json;
    expect(last.type).toBe('turn.completed');
    const done = r.events.filter((e) => e.event === 'tool.completed').map((e) => e.json);
    expect(done.map((d) => d.name)).toEqual(['skill_view', 'command', 'command', 'command', 'command', 'command', 'read_file']);
    // A file the command wrote holds the real value, but reading it back shows the placeholder.
    expect(done[6].output).toContain('VAULT_TOKEN=[redacted:VAULT_TOKEN]');

    // skill_view told the model the exact call forms.
    expect(done[0].output).toContain("mcporter list 'vault.lookup' --schema --json --timeout 30000");
    expect(done[0].output).toContain("mcporter call 'vault.lookup' --json - --output json --timeout 60000 < args.json");
    expect(done[0].output).toContain('mcporter list calc --schema --json --timeout 30000');

    // The tools' results reached the model (as the next request's function_call_output).
    const requests = harness.model.requests.slice(-8);
    expect(done[1].output).toMatch(/^exit_code=0 /);
    expect(done[1].output).toContain('sum=42');
    expect(lastOutput(requests[2].body)).toContain('sum=42');
    expect(done[2].output).toMatch(/^exit_code=0 /);
    expect(lastOutput(requests[3].body)).toContain('value of greeting: hello from the vault');

    // A tool error is a failed command (non-zero exit), with the server's message.
    expect(done[3].output).toMatch(/^exit_code=[1-9]\d* /);
    expect(done[3].output).toContain('the calculator broke');
    expect(done[4].output).toMatch(/^exit_code=[1-9]\d* /);
    expect(done[4].output).toContain('the vault is sealed');

    // The bearer token reached the server (no 401) but no process's command line, event or model request.
    expect(vault.unauthorized).toBe(0);
    expect(vault.calls.map((c) => c.tool)).toEqual(['lookup', 'fail']);
    expect(vault.scanned[0]).toBeGreaterThan(3);
    expect(vault.cmdlineLeaks).toEqual([[]]);
    expect(configSeen).toContain('[redacted:VAULT_TOKEN]');
    expect(JSON.stringify(r.events)).not.toContain(TOKEN);
    for (const req of harness.model.requests) expect(req.rawBody).not.toContain(TOKEN);
    expect(configSeen).not.toContain('never-exported-value');

    // A fresh 0600 config per command, with the placeholder (never the value), gone afterwards.
    expect(configSeen).toContain('config=/opt/turn-service/mcporter.json');
    expect(configSeen).toMatch(/\n600\n/);
    const json = JSON.parse(configSeen.slice(configSeen.indexOf('{'), configSeen.lastIndexOf('}') + 1));
    expect(json).toEqual({
      mcpServers: {
        calc: { description: 'A calculator', command: '/bin/sh', args: ['-lc', 'node /skills/mcp-tools/scripts/server.cjs'] },
        vault: { baseUrl: vault.url, bearerToken: '${VAULT_TOKEN}', allowedTools: ['lookup', 'fail'] },
      },
      imports: [],
    });
    expect(configSeen).toContain('mcp-tools');
    expect(readdirSync(configDir())).toEqual([]);
  }, 180_000);

  it('reports a conflicting server declaration in unavailable and keeps the turn running', async () => {
    const other = tarGz([
      { name: 'SKILL.md', data: skillMd('other-calc', 'Another calculator') },
      { name: 'agents/openai.yaml', data: 'dependencies:\n  tools:\n    - type: mcp\n      value: calc\n      transport: stdio\n      command: node /elsewhere.cjs\n' },
    ]);
    expect((await fetch(`${harness.svc.url}/v1/skills/other-calc`, { method: 'PUT', headers: { 'content-type': 'application/gzip' }, body: new Uint8Array(other) })).status).toBe(201);
    harness.model.push({ output: [message('fine')] });
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'x', tools: ['computer'], skills: ['mcp-tools', 'other-calc'] }, timeoutMs: 30_000 });
    const reasons = r.events[0].json.unavailable.filter((u: any) => u.family === 'skills').map((u: any) => u.reason);
    expect(reasons).toEqual(['conflicting MCP server declaration "calc" in enabled skills mcp-tools, other-calc']);
    expect(r.events.at(-1)!.json.type).toBe('turn.completed');
  });

  /** A turn whose one command looks `key` up in the vault over MCP and prints VAULT_TOKEN; its tool.completed. */
  async function vaultLookup(callId: string): Promise<{ is_error: boolean; output: string }> {
    const command = `echo '{"key":"greeting"}' > args.json && mcporter call 'vault.lookup' --json - --output json --timeout 60000 < args.json; echo "token=$VAULT_TOKEN"`;
    harness.model.push({ output: [functionCall('command', { command }, { callId })] }, { output: [message('looked up')] });
    const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: `lookup ${callId}`, tools: ['computer'], skills: ['mcp-tools'] }, timeoutMs: 60_000 });
    expect(r.events.at(-1)!.json.type).toBe('turn.completed');
    expect(JSON.stringify(r.events)).not.toContain(TOKEN);
    return r.events.find((e) => e.event === 'tool.completed' && e.json.call_id === callId)!.json;
  }
  const GOOD = `# skill secrets\nVAULT_TOKEN=${TOKEN}\nUNUSED_SECRET=never-exported-value\n`;
  const NEW_TOKEN = 'tok-new-0000-value-from-a-refused-file';
  const warnings = () => logLines.filter((l) => l.level === 'warn' && String(l.msg).includes('SKILL_SECRETS file'));

  it('a SKILL_SECRETS edit with a value under 8 characters is refused whole: commands keep the previous values (not the new token), hidden as before, and the log says so once', async () => {
    const unauthorized = vault.unauthorized;
    const calls = vault.calls.length;
    writeFileSync(secretsFile, `VAULT_TOKEN=${NEW_TOKEN}\nPIN=exit\n`, { mode: 0o600 });
    try {
      const first = await vaultLookup('short1');
      const second = await vaultLookup('short2');
      for (const done of [first, second]) {
        expect(done.is_error).toBe(false);
        // The vault took the previous token (no 401), the command's environment held it, and it reads as the placeholder.
        expect(done.output).toContain('value of greeting: hello from the vault');
        expect(done.output).toContain('token=[redacted:VAULT_TOKEN]');
        expect(done.output).not.toContain(NEW_TOKEN);
      }
      expect(vault.unauthorized).toBe(unauthorized);
      expect(vault.calls.length).toBe(calls + 2);
      const said = warnings();
      expect(said.map((l) => l.msg)).toEqual([
        `SKILL_SECRETS file ${secretsFile}: the value of PIN (4 characters) is shorter than 8 characters, the minimum for a secret (a shorter value would be replaced inside every command output and give itself away by the pattern); use a longer value or remove PIN; the file is refused and the values read before (VAULT_TOKEN, UNUSED_SECRET) stay in use — in the commands of skills with MCP servers and hidden in tool results and errors — until it is fixed`,
      ]);
      expect(said[0]).toMatchObject({ file: secretsFile });
      expect(JSON.stringify(logLines)).not.toContain(NEW_TOKEN);
      expect(JSON.stringify(logLines)).not.toContain('PIN=exit');
    } finally {
      writeFileSync(secretsFile, GOOD, { mode: 0o600 });
    }
    // Fixed in the file: the next command runs with its values, without a restart, and the log says so.
    expect((await vaultLookup('fixed')).output).toContain('value of greeting: hello from the vault');
    expect(logLines.filter((l) => l.level === 'info' && l.msg === 'SKILL_SECRETS file is valid again: its values are used')).toHaveLength(1);
  });

  it('a SKILL_SECRETS edit with a malformed line is refused the same way, the log naming the line number, never the line', async () => {
    const before = warnings().length;
    writeFileSync(secretsFile, `VAULT_TOKEN=${NEW_TOKEN}\nPastedSecretWithoutName123\n`, { mode: 0o600 });
    try {
      const done = await vaultLookup('malformed');
      expect(done.is_error).toBe(false);
      expect(done.output).toContain('value of greeting: hello from the vault');
      expect(done.output).toContain('token=[redacted:VAULT_TOKEN]');
      expect(warnings().slice(before).map((l) => l.msg)).toEqual([
        `SKILL_SECRETS file ${secretsFile}: line 2 is not NAME=value (it has no =); fix or remove that line (each line is NAME=value with NAME an environment variable name — letters, digits and _, not starting with a digit — and a value; blank lines and # comments are allowed); the file is refused and the values read before (VAULT_TOKEN, UNUSED_SECRET) stay in use — in the commands of skills with MCP servers and hidden in tool results and errors — until it is fixed`,
      ]);
      expect(JSON.stringify(logLines)).not.toContain('PastedSecretWithoutName123');
    } finally {
      writeFileSync(secretsFile, GOOD, { mode: 0o600 });
    }
  });

  it('a SKILL_SECRETS edit with a token pasted without NAME= or after "NAME: " is refused in the log by line numbers, never a part of the token', async () => {
    const before = warnings().length;
    const b64 = 'c2stbGl2ZS1zdXBlcnNlY3JldC10b2tlbg';
    const key = 'sk-live-abcdef1234567890';
    writeFileSync(secretsFile, `VAULT_TOKEN=${TOKEN}\n${b64}==\nAPI_KEY: ${key}=x\n`, { mode: 0o600 });
    try {
      const done = await vaultLookup('pasted');
      expect(done.output).toContain('value of greeting: hello from the vault');
      expect(warnings().slice(before).map((l) => l.msg)).toEqual([
        `SKILL_SECRETS file ${secretsFile}: line 3: its name is not an environment variable name; fix or remove that line (each line is NAME=value with NAME an environment variable name — letters, digits and _, not starting with a digit — and a value; blank lines and # comments are allowed); the file is refused and the values read before (VAULT_TOKEN, UNUSED_SECRET) stay in use — in the commands of skills with MCP servers and hidden in tool results and errors — until it is fixed`,
      ]);
      // Fixed the colon line, still the pasted token: refused again, by its line number.
      writeFileSync(secretsFile, `VAULT_TOKEN=${TOKEN}\n${b64}==\n`, { mode: 0o600 });
      await vaultLookup('pasted2');
      expect(warnings().slice(before + 1).map((l) => l.msg)).toEqual([
        `SKILL_SECRETS file ${secretsFile}: the value of the setting on line 2 (1 character) is shorter than 8 characters, the minimum for a secret (a shorter value would be replaced inside every command output and give itself away by the pattern); use a longer value or remove line 2; the file is refused and the values read before (VAULT_TOKEN, UNUSED_SECRET) stay in use — in the commands of skills with MCP servers and hidden in tool results and errors — until it is fixed`,
      ]);
      const log = JSON.stringify(logLines);
      for (const token of [b64, key]) for (let i = 0; i + 8 <= token.length; i++) expect(log).not.toContain(token.slice(i, i + 8));
    } finally {
      writeFileSync(secretsFile, GOOD, { mode: 0o600 });
    }
  });

  it('a secret rotated during a turn is hidden in every later tool result and model request: the new value, and the old one in files the turn wrote', async () => {
    const ROTATED = 'NewSecretValue222';
    const THIRD = 'ThirdSecretValue333';
    const home = path.join(harness.svc.dataDir, 'agents', 'rotating', 'home');
    const firstRequest = harness.model.requests.length;
    harness.model.push(
      { output: [functionCall('command', { command: 'env | grep VAULT > a.txt' })] },
      () => {
        // Rotated after the turn started (its tool results' redaction read the file then).
        writeFileSync(secretsFile, `VAULT_TOKEN=${ROTATED}\n`, { mode: 0o600 });
        return { output: [functionCall('command', { command: 'env | grep VAULT > b.txt' })] };
      },
      () => {
        // Rotated again: b.txt now holds a value that is no longer in the file.
        writeFileSync(secretsFile, `VAULT_TOKEN=${THIRD}\n`, { mode: 0o600 });
        return { output: [functionCall('read_file', { path: 'b.txt' })] };
      },
      { output: [functionCall('read_file', { path: 'a.txt' })] },
      { output: [functionCall('command', { command: 'cat a.txt b.txt; env | grep VAULT; echo "c=$VAULT_TOKEN" > c.txt' })] },
      { output: [functionCall('read_file', { path: 'c.txt' })] },
      { output: [message('rotated')] },
    );
    try {
      const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'rotate', agent_id: 'rotating', tools: ['computer'], skills: ['mcp-tools'] }, timeoutMs: 120_000 });
      expect(r.events.at(-1)!.json.type).toBe('turn.completed');
      // The commands did hold each value in turn (the files on the host have them in clear).
      expect(readFileSync(path.join(home, 'a.txt'), 'utf8')).toContain(`VAULT_TOKEN=${TOKEN}`);
      expect(readFileSync(path.join(home, 'b.txt'), 'utf8')).toContain(`VAULT_TOKEN=${ROTATED}`);
      expect(readFileSync(path.join(home, 'c.txt'), 'utf8')).toContain(`c=${THIRD}`);
      const done = r.events.filter((e) => e.event === 'tool.completed').map((e) => e.json);
      expect(done.map((d) => d.name)).toEqual(['command', 'command', 'read_file', 'read_file', 'command', 'read_file']);
      expect(done[2].output).toContain('VAULT_TOKEN=[redacted:VAULT_TOKEN]');
      expect(done[3].output).toContain('VAULT_TOKEN=[redacted:VAULT_TOKEN]');
      expect(done[4].output.match(/VAULT_TOKEN=\[redacted:VAULT_TOKEN\]/g)).toHaveLength(3);
      expect(done[5].output).toContain('c=[redacted:VAULT_TOKEN]');
      const events = JSON.stringify(r.events);
      const requests = harness.model.requests.slice(firstRequest).map((q) => q.rawBody);
      expect(requests).toHaveLength(7);
      for (const value of [TOKEN, ROTATED, THIRD]) {
        expect(events).not.toContain(value);
        for (const body of requests) expect(body).not.toContain(value);
      }
    } finally {
      writeFileSync(secretsFile, GOOD, { mode: 0o600 });
    }
  }, 120_000);

  it('a secret rotated during a turn is scrubbed from a later model error that echoes the old value: not in the events, the stored error nor the log', async () => {
    const ROTATED = 'NewSecretValue444';
    const firstLog = logLines.length;
    harness.model.push(
      // The command gets the value of the file then: the turn has seen it.
      { output: [functionCall('command', { command: 'env | grep -c VAULT' })] },
      () => {
        writeFileSync(secretsFile, `VAULT_TOKEN=${ROTATED}\n`, { mode: 0o600 });
        return { streamError: { code: 'invalid_request_error', message: `header echoed: Authorization: Bearer ${TOKEN} (and ${ROTATED})` } };
      },
    );
    try {
      const r = await readSse(`${harness.svc.url}/v1/turns`, { method: 'POST', body: { input: 'rotate then fail', agent_id: 'rotating-error', tools: ['computer'], skills: ['mcp-tools'] }, timeoutMs: 120_000 });
      const last = r.events.at(-1)!.json;
      expect(last.type).toBe('turn.failed');
      expect(last.error.message).toContain('header echoed: Authorization: Bearer [redacted:VAULT_TOKEN] (and [redacted:VAULT_TOKEN])');
      const turnId = r.events.find((e) => e.json.type === 'turn.started')!.json.turn_id as string;
      const stored = await api(harness.svc.url, 'GET', `/v1/turns/${turnId}`);
      expect(stored.status).toBe(200);
      const seen = [JSON.stringify(r.events), JSON.stringify(stored.body), JSON.stringify(logLines.slice(firstLog))];
      expect(seen[1]).toContain('[redacted:VAULT_TOKEN]');
      for (const text of seen) {
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain(ROTATED);
      }
    } finally {
      writeFileSync(secretsFile, GOOD, { mode: 0o600 });
    }
  }, 120_000);

  it('refuses a manifest with unknown fields', async () => {
    const bad = tarGz([
      { name: 'SKILL.md', data: skillMd('bad-mcp', 'x') },
      { name: 'agents/openai.yaml', data: 'dependencies:\n  tools:\n    - type: mcp\n      value: x\n      transport: stdio\n      command: x\n      env: {A: b}\n' },
    ]);
    const res = await api(harness.svc.url, 'GET', '/v1/skills');
    expect(res.status).toBe(200);
    const put = await fetch(`${harness.svc.url}/v1/skills/bad-mcp`, { method: 'PUT', headers: { 'content-type': 'application/gzip' }, body: new Uint8Array(bad) });
    expect(put.status).toBe(400);
    const body = (await put.json()) as any;
    expect(body.error.code).toBe('invalid_skill');
    expect(body.error.message).toContain('agents/openai.yaml');
    expect(body.error.message).toContain('env');
  });
});
