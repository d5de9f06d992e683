import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assembleTools, MAIN_TURN_FAMILIES } from '../../../src/assembly/assemble.js';
import type { TurnContext } from '../../../src/assembly/context.js';
import { loadConfig, type ToolFamily } from '../../../src/config.js';
import { computerFamily } from '../../../src/tools/computer/index.js';
import { createWebFamily, webFamily, workflowTaskWebFamily } from '../../../src/tools/web/index.js';
import { runTool, startServer, type LoopbackServer } from './support.js';

let dataDir: string;
let server: LoopbackServer;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'web-family-'));
  server = await startServer({
    '/numbered': (_q, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end(Array.from({ length: 5000 }, (_, i) => `row ${i + 1}: ${'data '.repeat(4)}`).join('\n')),
    '/long': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('word '.repeat(20_000)),
  });
});

afterAll(async () => {
  await server.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

function context(env: Record<string, string>, families: ToolFamily[], kind: TurnContext['kind'] = 'main'): TurnContext {
  const config = loadConfig({ DATA_DIR: dataDir, ...env });
  return {
    turnId: 'turn_1',
    agentId: 'agent_1',
    kind,
    origin: { type: 'api' },
    families,
    brain: false,
    config,
    agentHome: path.join(config.DATA_DIR, 'agents', 'agent_1', 'home'),
    signal: new AbortController().signal,
    services: {},
    model: 'gpt-test',
    requestedTools: families,
  };
}

const names = (tools: { name: string }[]) => tools.map((t) => t.name);

describe('web family assembly', () => {
  it('is in the main turn families, after computer and before schedule', () => {
    const families = MAIN_TURN_FAMILIES.map((c) => c.family);
    expect(families.filter((f) => f === 'computer' || f === 'web' || f === 'schedule')).toEqual(['computer', 'web', 'schedule']);
  });

  it('gives no tools and says why when the turn does not enable web', async () => {
    const out = await assembleTools(context({}, ['todo']), [webFamily]);
    expect(out.tools).toEqual([]);
    expect(out.unavailable).toEqual([{ family: 'web', reason: 'not enabled for this turn' }]);
  });

  it('has web_fetch but no web_search when no search provider is configured, and says why', async () => {
    const out = await assembleTools(context({}, ['web']), [webFamily]);
    expect(names(out.tools)).toEqual(['web_fetch']);
    expect(out.unavailable).toEqual([{ family: 'web', reason: 'web_search: no search provider configured (WEB_SEARCH_PROVIDER)' }]);
  });

  it('never meets a provider without its key: the configuration is refused at start', () => {
    expect(() => context({ WEB_SEARCH_PROVIDER: 'brave' }, ['web'])).toThrow(/^WEB_SEARCH_PROVIDER=brave needs WEB_SEARCH_API_KEY: /);
  });

  it('adds web_search when a provider is configured', async () => {
    const out = await assembleTools(context({ WEB_SEARCH_PROVIDER: 'tavily', WEB_SEARCH_API_KEY: 'k' }, ['web']), [webFamily]);
    expect(names(out.tools)).toEqual(['web_fetch', 'web_search']);
    expect(out.unavailable).toEqual([]);
    expect(out.tools.every((t) => t.executionMode === 'parallel' && t.isReadOnly)).toBe(true);
  });

  it('gives workflow task turns the web tools currently available without web in their families', async () => {
    const ctx = context({ WEB_SEARCH_PROVIDER: 'searxng', WEB_SEARCH_URL: 'http://127.0.0.1:9/' }, [], 'workflow_task');
    const out = await assembleTools(ctx, [workflowTaskWebFamily]);
    expect(names(out.tools)).toEqual(['web_fetch', 'web_search']);
  });

  it('saves clipped pages in the agent home only when the computer family is in the turn', async () => {
    const family = createWebFamily();
    const env = { WEB_FETCH_ALLOW_HOSTS: '127.0.0.1' };
    const withComputer = context(env, ['computer', 'web']);
    const [fetchWith] = (await assembleTools(withComputer, [family])).tools;
    const saved = await runTool(fetchWith, { urls: [`${server.origin}/long`] });
    const savedPath = /Full text saved as (\S+);/.exec(saved.output)?.[1];
    expect(savedPath).toBeDefined();
    expect((await fs.readFile(path.join(withComputer.agentHome, savedPath!), 'utf8')).length).toBe(100_000);

    const [fetchWithout] = (await assembleTools(context(env, ['web']), [family])).tools;
    const notSaved = await runTool(fetchWithout, { urls: [`${server.origin}/long`] });
    expect(notSaved.output).toMatch(/characters omitted \(starting at line 1\)/);
    expect(notSaved.output).not.toContain('saved');
  });

  it('keeps the repeat cache per turn: a new turn fetches again', async () => {
    const env = { WEB_FETCH_ALLOW_HOSTS: '127.0.0.1' };
    const [first] = (await assembleTools(context(env, ['web']), [webFamily])).tools;
    await runTool(first, { urls: [`${server.origin}/long?cache`] });
    const again = await runTool(first, { urls: [`${server.origin}/long?cache`] });
    expect(again.output).toContain('Repeat: already fetched in this turn');
    const [nextTurn] = (await assembleTools(context(env, ['web']), [webFamily])).tools;
    const fresh = await runTool(nextTurn, { urls: [`${server.origin}/long?cache`] });
    expect(fresh.output).not.toContain('Repeat:');
    expect(server.requests.filter((r) => r.url === '/long?cache')).toHaveLength(2);
  });

  it('lets the computer family\'s read_file continue a clipped page at the offset web_fetch gives', async () => {
    const ctx = context({ WEB_FETCH_ALLOW_HOSTS: '127.0.0.1' }, ['computer', 'web']);
    const { tools } = await assembleTools(ctx, [computerFamily, webFamily]);
    const fetch = tools.find((t) => t.name === 'web_fetch')!;
    const readFile = tools.find((t) => t.name === 'read_file')!;
    const fetched = await runTool(fetch, { urls: [`${server.origin}/numbered`] });
    const args = JSON.parse(/continue with read_file (\{.*?\}) …\]/.exec(fetched.output)![1]) as { path: string; offset: number };
    const lastShown = /^row (\d+): .*\n\n\[…/m.exec(fetched.output)!;
    expect(args.offset).toBe(Number(lastShown[1]) + 1);
    const read = await runTool(readFile, { ...args, limit: 2 });
    expect(read.output).toContain(`row ${args.offset}: data`);
    expect(read.output).toContain(`row ${args.offset + 1}: data`);
    expect(read.output).not.toContain(`row ${args.offset - 1}: data`);
  });
});
