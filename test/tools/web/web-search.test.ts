import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSearchProvider, type SearchSettings } from '../../../src/tools/web/search-providers.js';
import { createWebSearchTool } from '../../../src/tools/web/web-search.js';
import { runTool, startServer, type LoopbackServer } from './support.js';

const KEY = 'sk-test-SECRET-key-123';

/** Brave Search API WebSearchApiResponse (abridged to the fields a real answer carries). */
function braveBody(n: number) {
  return {
    type: 'search',
    query: { original: 'solar panels' },
    web: {
      type: 'search',
      results: Array.from({ length: n }, (_, i) => ({
        type: 'search_result',
        title: `Solar result ${i + 1}`,
        url: `https://solar${i + 1}.example/`,
        description: `All about <strong>solar</strong> panels &amp; inverters, part ${i + 1}`,
        language: 'en',
      })),
    },
  };
}

/** Tavily POST /search response. */
function tavilyBody(query: string, n: number) {
  return {
    query,
    answer: null,
    images: [],
    results: Array.from({ length: n }, (_, i) => ({
      title: `Tavily hit ${i + 1}`,
      url: `https://tavily${i + 1}.example/page`,
      content: `Snippet ${i + 1} about ${query}`,
      score: 0.9 - i / 100,
      raw_content: null,
    })),
    response_time: 1.2,
  };
}

/** SearXNG /search?format=json response. */
function searxBody(query: string, n: number) {
  return {
    query,
    number_of_results: n,
    results: Array.from({ length: n }, (_, i) => ({
      url: `https://searx${i + 1}.example/`,
      title: `Searx hit ${i + 1}`,
      content: `Meta-search snippet ${i + 1}`,
      engine: 'duckduckgo',
      engines: ['duckduckgo', 'brave'],
      score: 1,
      category: 'general',
    })),
    answers: [],
    corrections: [],
    infoboxes: [],
    suggestions: [],
    unresponsive_engines: [],
  };
}

let server: LoopbackServer;
let mode: 'ok' | 'empty' | 'quota' | 'unauthorized' | 'slow' | 'not-json' = 'ok';

beforeAll(async () => {
  server = await startServer({
    '/res/v1/web/search': (req, res) => {
      if (mode === 'quota') return void res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'ErrorResponse', error: { code: 'RATE_LIMITED', detail: `Request rate limit exceeded for token ${req.headers['x-subscription-token']}` } }));
      if (mode === 'unauthorized') return void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}');
      if (req.headers['x-subscription-token'] !== KEY) return void res.writeHead(401).end();
      const count = Number(new URL(req.url!, 'http://x').searchParams.get('count'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(braveBody(mode === 'empty' ? 0 : count)));
    },
    '/search': (req, res, body) => {
      if (req.method === 'POST') {
        if (mode === 'slow') return; // never answers
        if (mode === 'quota') return void res.writeHead(432, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: { error: 'This request exceeds your plan\'s set usage limit.' } }));
        if (req.headers.authorization !== `Bearer ${KEY}`) return void res.writeHead(401).end('{"detail":{"error":"Unauthorized: missing or invalid API key."}}');
        const parsed = JSON.parse(body) as { query: string; max_results: number };
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(tavilyBody(parsed.query, mode === 'empty' ? 0 : parsed.max_results)));
      }
      const params = new URL(req.url!, 'http://x').searchParams;
      if (mode === 'not-json') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>format not allowed</html>');
      if (params.get('format') !== 'json') return void res.writeHead(403).end('Forbidden');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(searxBody(params.get('q') ?? '', mode === 'empty' ? 0 : 12)));
    },
  });
});

afterAll(async () => {
  await server.close();
});

function searchTool(settings: Partial<SearchSettings>) {
  const provider = createSearchProvider({ baseUrl: server.origin, timeoutMs: 1000, ...settings });
  if (!provider) throw new Error('provider not configured');
  return createWebSearchTool(provider, 1000);
}

describe('web_search providers against local servers speaking their documented formats', () => {
  it('brave: GET /res/v1/web/search with q, count and X-Subscription-Token; numbered results', async () => {
    mode = 'ok';
    const run = await runTool(searchTool({ provider: 'brave', apiKey: KEY }), { query: 'solar panels', limit: 3 });
    const req = server.requests.at(-1)!;
    expect(req.method).toBe('GET');
    expect(req.url).toBe('/res/v1/web/search?q=solar+panels&count=3');
    expect(req.headers['x-subscription-token']).toBe(KEY);
    expect(run.output).toBe(
      'Search results for “solar panels”:\n\n' +
        '1. Solar result 1\n   https://solar1.example/\n   All about solar panels & inverters, part 1\n\n' +
        '2. Solar result 2\n   https://solar2.example/\n   All about solar panels & inverters, part 2\n\n' +
        '3. Solar result 3\n   https://solar3.example/\n   All about solar panels & inverters, part 3',
    );
  });

  it('tavily: POST /search with Bearer key and {query, max_results}', async () => {
    mode = 'ok';
    const run = await runTool(searchTool({ provider: 'tavily', apiKey: KEY }), { query: 'heat pumps' });
    const req = server.requests.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(JSON.parse(req.body)).toEqual({ query: 'heat pumps', max_results: 5 });
    expect(run.output.match(/^\d+\. Tavily hit \d+$/gm)).toHaveLength(5);
    expect(run.output).toContain('5. Tavily hit 5\n   https://tavily5.example/page\n   Snippet 5 about heat pumps');
  });

  it('searxng: GET /search?format=json, keeping the first `limit` results', async () => {
    mode = 'ok';
    const run = await runTool(searchTool({ provider: 'searxng' }), { query: 'open source maps', limit: 4 });
    const req = server.requests.at(-1)!;
    expect(req.url).toBe('/search?q=open+source+maps&format=json');
    expect(req.headers.authorization).toBeUndefined();
    expect(run.output.match(/^\d+\. Searx hit \d+$/gm)).toHaveLength(4);
    expect(run.result?.details).toMatchObject({ provider: 'searxng', results: [{ url: 'https://searx1.example/' }, {}, {}, {}] });
  });

  it('says plainly when there are no results', async () => {
    mode = 'empty';
    for (const settings of [{ provider: 'brave' as const, apiKey: KEY }, { provider: 'tavily' as const, apiKey: KEY }, { provider: 'searxng' as const }]) {
      const run = await runTool(searchTool(settings), { query: 'xyzzy plugh' });
      expect(run.output).toBe('No results found for “xyzzy plugh”.');
      expect(run.completedLabel).toBe('Found 0 results for “xyzzy plugh”');
    }
  });

  it('names provider and status on failure and never shows the key, even when the provider echoes it', async () => {
    mode = 'quota';
    const brave = await runTool(searchTool({ provider: 'brave', apiKey: KEY }), { query: 'q' });
    expect(brave.output).toMatch(/^Error: brave search failed: HTTP 429 \(rate limit or quota exceeded\)/);
    expect(brave.output).toContain('RATE_LIMITED');
    expect(brave.output).not.toContain(KEY);
    expect(brave.output).toContain('[redacted]');
    const tavily = await runTool(searchTool({ provider: 'tavily', apiKey: KEY }), { query: 'q' });
    expect(tavily.output).toMatch(/^Error: tavily search failed: HTTP 432/);
    mode = 'unauthorized';
    const bad = await runTool(searchTool({ provider: 'brave', apiKey: KEY }), { query: 'q' });
    expect(bad.output).toMatch(/^Error: brave search failed: HTTP 401 \(check WEB_SEARCH_API_KEY\)/);
    expect(bad.output).not.toContain(KEY);
  });

  it('reports a provider that does not answer in time', async () => {
    mode = 'slow';
    const run = await runTool(searchTool({ provider: 'tavily', apiKey: KEY }), { query: 'q' });
    expect(run.output).toBe('Error: tavily search timed out after 1 s');
  });

  it('reports a body that is not JSON (searxng without the json format enabled)', async () => {
    mode = 'not-json';
    const run = await runTool(searchTool({ provider: 'searxng' }), { query: 'q' });
    expect(run.output).toBe('Error: searxng search failed: HTTP 200 with a body that is not JSON');
  });

  it('reports an unreachable provider', async () => {
    const provider = createSearchProvider({ provider: 'searxng', baseUrl: 'http://127.0.0.1:1', timeoutMs: 1000 })!;
    const run = await runTool(createWebSearchTool(provider, 1000), { query: 'q' });
    expect(run.output).toMatch(/^Error: searxng search request failed: ECONNREFUSED/);
  });

  it('labels: "Searching the web for “…”" then "Found N results for “…”"', async () => {
    mode = 'ok';
    const run = await runTool(searchTool({ provider: 'brave', apiKey: KEY }), { query: 'solar panels' });
    expect(run.label).toBe('Searching the web for “solar panels”');
    expect(run.completedLabel).toBe('Found 5 results for “solar panels”');
  });

  it('validates query length and limit range', () => {
    const tool = searchTool({ provider: 'searxng' });
    expect(tool.schema.safeParse({ query: '' }).success).toBe(false);
    expect(tool.schema.safeParse({ query: 'x'.repeat(501) }).success).toBe(false);
    expect(tool.schema.safeParse({ query: 'x', limit: 21 }).success).toBe(false);
    expect(tool.schema.safeParse({ query: 'x', limit: 0 }).success).toBe(false);
    expect(tool.schema.safeParse({ query: 'x', limit: 20 }).success).toBe(true);
  });
});

describe('search provider configuration', () => {
  it('is absent without a provider, without a required key, or without a SearXNG URL', () => {
    expect(createSearchProvider({ timeoutMs: 1000 })).toBeNull();
    expect(createSearchProvider({ provider: 'brave', timeoutMs: 1000 })).toBeNull();
    expect(createSearchProvider({ provider: 'tavily', timeoutMs: 1000 })).toBeNull();
    expect(createSearchProvider({ provider: 'searxng', timeoutMs: 1000 })).toBeNull();
    expect(createSearchProvider({ provider: 'brave', apiKey: KEY, timeoutMs: 1000 })?.name).toBe('brave');
    expect(createSearchProvider({ provider: 'searxng', baseUrl: 'http://search.local', timeoutMs: 1000 })?.name).toBe('searxng');
  });
});
