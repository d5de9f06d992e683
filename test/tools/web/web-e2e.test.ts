/**
 * The web family through the real service: POST /v1/tools/preview shows which web tools a turn
 * gets, and a real turn (scripted Responses server + real openai SDK) calls web_fetch against a
 * loopback page and web_search against a local Brave-format server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionCall, message, startScriptedResponsesServer, type ScriptedResponsesServer } from '../../support/scripted-responses-server.js';
import { api, startTestService, type TestService } from '../../e2e/support/service.js';
import { readSse } from '../../e2e/support/sse-client.js';
import { startServer, type LoopbackServer } from './support.js';

const KEY = 'brave-key-NEVER-SHOWN-42';

let pages: LoopbackServer;

beforeAll(async () => {
  pages = await startServer({
    '/article': (_q, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><head><title>Tide Tables</title></head><body><article><h1>Tide Tables</h1><p>High tide is at 06:42 and low tide at 12:55 on the harbour gauge today.</p></article></body></html>'),
    '/res/v1/web/search': (req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          type: 'search',
          web: { type: 'search', results: [{ title: 'Harbour tides', url: 'https://tides.example/harbour', description: 'Tide times for the harbour' }] },
          echo: req.headers['x-subscription-token'] === KEY ? 'key ok' : 'bad key',
        }),
      ),
  });
});

afterAll(async () => {
  await pages.close();
});

describe('POST /v1/tools/preview with the web family', () => {
  let svc: TestService;
  afterAll(async () => svc?.close());

  it('lists web_fetch but not web_search when no search provider is configured', async () => {
    svc = await startTestService();
    const r = await api(svc.url, 'POST', '/v1/tools/preview', { tools: ['web'] });
    expect(r.status).toBe(200);
    expect(r.body.tools).toContain('web_fetch');
    expect(r.body.tools).not.toContain('web_search');
    expect(JSON.stringify(r.body.definitions)).not.toContain('web_search');
    await svc.close();

    svc = await startTestService({ env: { WEB_SEARCH_PROVIDER: 'brave', WEB_SEARCH_API_KEY: KEY } });
    const withSearch = await api(svc.url, 'POST', '/v1/tools/preview', { tools: ['web'] });
    expect(withSearch.body.tools).toEqual(expect.arrayContaining(['web_fetch', 'web_search']));
    expect(JSON.stringify(withSearch.body)).not.toContain(KEY);
    const none = await api(svc.url, 'POST', '/v1/tools/preview', { tools: ['todo'] });
    expect(none.body.tools).not.toContain('web_fetch');
  });
});

describe('a turn that searches and reads the web', () => {
  let svc: TestService;
  let model: ScriptedResponsesServer;

  beforeAll(async () => {
    model = await startScriptedResponsesServer([
      { output: [functionCall('web_search', JSON.stringify({ query: 'harbour tides', limit: 3 }), { callId: 'call_search' })] },
      { output: [functionCall('web_fetch', JSON.stringify({ urls: [`${pages.origin}/article`, 'http://169.254.169.254/latest/meta-data/'] }), { callId: 'call_fetch' })] },
      () => ({ output: [message('High tide is at 06:42.')] }),
    ]);
    svc = await startTestService({
      modelBaseURL: model.baseURL,
      env: { WEB_FETCH_ALLOW_HOSTS: '127.0.0.1', WEB_SEARCH_PROVIDER: 'brave', WEB_SEARCH_API_KEY: KEY, WEB_SEARCH_URL: pages.origin },
    });
  });

  afterAll(async () => {
    await svc?.close();
    await model?.close();
  });

  it('gives the model the search results and the page text, refuses the metadata URL, and labels both calls', async () => {
    const created = await api(svc.url, 'POST', '/v1/turns?wait=true', { input: 'When is high tide?', tools: ['web'] });
    expect(created.status).toBe(200);
    expect(created.body.status).toBe('completed');

    const outputs = (i: number) =>
      (model.requests[i].body.input as { type: string; call_id?: string; output?: string }[]).filter((x) => x.type === 'function_call_output');
    const searchOut = outputs(1).find((x) => x.call_id === 'call_search')!.output!;
    expect(searchOut).toContain('1. Harbour tides\n   https://tides.example/harbour\n   Tide times for the harbour');
    const fetchOut = outputs(2).find((x) => x.call_id === 'call_fetch')!.output!;
    expect(fetchOut).toContain('Title: Tide Tables');
    expect(fetchOut).toContain('High tide is at 06:42 and low tide at 12:55');
    expect(fetchOut).toMatch(/\[2\] http:\/\/169\.254\.169\.254\/latest\/meta-data\/\nError: refused to fetch 169\.254\.169\.254: cloud metadata address/);

    const sse = await readSse(`${svc.url}/v1/turns/${created.body.id}/events`);
    const events = sse.events.map((e) => e.json);
    const started = events.filter((e) => e.type === 'tool.started').map((e) => e.label);
    const completed = events.filter((e) => e.type === 'tool.completed').map((e) => e.label);
    expect(started).toEqual(['Searching the web for “harbour tides”', 'Reading 127.0.0.1 and 1 more']);
    expect(completed).toEqual(['Found 1 result for “harbour tides”', 'Read «Tide Tables» · 127.0.0.1 (1 failed)']);
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(JSON.stringify(model.requests.map((r) => r.body))).not.toContain(KEY);
  });
});
