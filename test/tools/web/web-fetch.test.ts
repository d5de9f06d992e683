import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchCache } from '../../../src/tools/web/fetch-cache.js';
import { createWebFetchTool, type WebFetchOptions } from '../../../src/tools/web/web-fetch.js';
import { runTool, startServer, type LoopbackServer } from './support.js';

const ARTICLE = `<!doctype html><html><head><title>Solar Panels Explained</title></head><body>
<nav><a href="/">Home</a> | <a href="/about">About</a></nav>
<article><h1>Solar Panels Explained</h1>
${'<p>Photovoltaic cells convert sunlight into electricity through the photovoltaic effect, which frees electrons in a semiconductor. </p>'.repeat(8)}
<p>Read the <a href="/guide/install">installation guide</a> next.</p>
<h2>Efficiency</h2><ul><li>Monocrystalline: about 22%</li><li>Polycrystalline: about 17%</li></ul>
</article>
<script>window.tracking = "SCRIPT_SHOULD_NOT_APPEAR";</script>
<footer>Copyright</footer></body></html>`;

/** 6,000 numbered lines of plain text (~ 120 000 characters). */
const HUGE = Array.from({ length: 6000 }, (_, i) => `line ${String(i + 1).padStart(5, '0')} of the huge page`).join('\n');

let server: LoopbackServer;
let home: string;

beforeAll(async () => {
  home = await fs.mkdtemp(path.join(os.tmpdir(), 'web-fetch-home-'));
  server = await startServer({
    '/article': (_q, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE),
    '/latin1': (_q, res) =>
      res.writeHead(200, { 'content-type': 'text/plain; charset=iso-8859-1' }).end(Buffer.from('caf\xe9 cr\xe8me', 'latin1')),
    '/data.json': (_q, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"widget","sizes":[1,2,3]}'),
    '/notes.txt': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('plain notes, kept as is\n  indented line'),
    '/huge': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(HUGE),
    '/slow': (_q, res) => {
      const t = setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('too late'), 5000);
      res.on('close', () => clearTimeout(t));
    },
    '/image.png': (_q, res) =>
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d])),
    '/mystery': (_q, res) => res.writeHead(200).end(Buffer.from([0, 1, 2, 3, 0, 0, 0xff, 0xfe, 0, 7])),
    '/endless': (_q, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024) + '\n';
      let sent = 0;
      const pump = () => {
        while (sent < 400 && res.write(chunk)) sent++;
        if (sent < 400) res.once('drain', pump);
        else res.end();
      };
      pump();
    },
    '/gzipped': (_q, res) =>
      res
        .writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' })
        .end(zlib.gzipSync('this text travelled gzip-compressed')),
    '/r1': (_q, res) => res.writeHead(302, { location: '/r2' }).end(),
    '/r2': (_q, res) => res.writeHead(301, { location: '/r3' }).end(),
    '/r3': (_q, res) => res.writeHead(307, { location: '/r4' }).end(),
    '/r4': (_q, res) => res.writeHead(308, { location: '/r5' }).end(),
    '/r5': (_q, res) => res.writeHead(303, { location: '/notes.txt' }).end(),
    '/loop': (_q, res) => res.writeHead(302, { location: '/loop' }).end(),
    '/to-ftp': (_q, res) => res.writeHead(302, { location: 'ftp://files.example/x' }).end(),
    '/missing': (_q, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('no such page here'),
  });
});

afterAll(async () => {
  await server.close();
  await fs.rm(home, { recursive: true, force: true });
});

function tool(extra: Partial<WebFetchOptions> = {}) {
  return createWebFetchTool({ allowHosts: ['127.0.0.1'], timeoutMs: 2000, maxBytes: 5 * 1024 * 1024, ...extra });
}

describe('web_fetch on allowlisted loopback servers', () => {
  it('turns an HTML page into readable Markdown with the title and absolute links', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/article`] });
    expect(run.output).toContain('Title: Solar Panels Explained');
    expect(run.output).toContain('Status: 200 · text/html');
    expect(run.output).toMatch(/Photovoltaic cells convert sunlight/);
    expect(run.output).toContain(`[installation guide](${server.origin}/guide/install)`);
    expect(run.output).toMatch(/^## Efficiency$/m);
    expect(run.output).toMatch(/^- Monocrystalline: about 22%$/m);
    expect(run.output).not.toContain('SCRIPT_SHOULD_NOT_APPEAR');
    expect(run.output).not.toContain('<p>');
  });

  it('passes plain text through and pretty-prints JSON', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/notes.txt`, `${server.origin}/data.json`] });
    expect(run.output).toContain('plain notes, kept as is\n  indented line');
    expect(run.output).toContain('{\n  "name": "widget",\n  "sizes": [\n    1,');
    expect(run.output).toContain('Status: 200 · application/json');
  });

  it('decodes the charset named in Content-Type and gzip content encoding', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/latin1`, `${server.origin}/gzipped`] });
    expect(run.output).toContain('café crème');
    expect(run.output).toContain('this text travelled gzip-compressed');
  });

  it('refuses binary content naming its content type, without failing the other URLs', async () => {
    const run = await runTool(tool(), {
      urls: [`${server.origin}/image.png`, `${server.origin}/notes.txt`, `${server.origin}/mystery`],
    });
    expect(run.output).toMatch(/\[1\] .*\/image\.png\nError: unsupported content type image\/png/);
    expect(run.output).toContain('plain notes, kept as is');
    expect(run.output).toMatch(/\[3\] .*\/mystery\nError: unsupported content type/);
    expect(run.result?.details).toMatchObject({ errors: [{ url: `${server.origin}/image.png` }, { url: `${server.origin}/mystery` }] });
  });

  it('fails the call with every URL named when all URLs fail', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/image.png`, 'not a url', 'file:///etc/passwd'] });
    expect(run.output).toMatch(/^Error: /);
    expect(run.output).toContain('/image.png: unsupported content type image/png');
    expect(run.output).toContain('not a url: not a valid URL');
    expect(run.output).toContain('file:///etc/passwd: only http and https URLs can be fetched (got file)');
  });

  it('shows a non-2xx status with the page text', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/missing`] });
    expect(run.output).toContain('Status: 404');
    expect(run.output).toContain('no such page here');
  });

  it('follows a chain of five redirects and names the final URL', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/r1`] });
    expect(run.output).toContain(`Redirected to: ${server.origin}/notes.txt`);
    expect(run.output).toContain('plain notes, kept as is');
  });

  it('stops after five redirects', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/loop`] });
    expect(run.output).toMatch(/^Error: .*too many redirects \(more than 5\)/);
    expect(server.requests.filter((r) => r.url === '/loop')).toHaveLength(6);
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/to-ftp`] });
    expect(run.output).toMatch(/^Error: .*only http and https URLs can be fetched \(got ftp\)/);
  });

  it('gives up on a slow page at the timeout', async () => {
    const started = Date.now();
    const run = await runTool(tool({ timeoutMs: 300 }), { urls: [`${server.origin}/slow`] });
    expect(run.output).toMatch(/^Error: .*timed out after 0\.3 s/);
    expect(Date.now() - started).toBeLessThan(4000);
  });

  it('cuts a body at the byte limit and says so', async () => {
    const run = await runTool(tool({ maxBytes: 100_000 }), { urls: [`${server.origin}/endless`] });
    expect(run.output).toContain('Note: the response was cut at 100,000 bytes (WEB_FETCH_MAX_BYTES).');
    expect(run.result?.details).toMatchObject({ pages: [{ chars: 100_000 }] });
  });

  it('keeps head and tail of a huge page and saves the full text with the read_file offset to continue', async () => {
    const run = await runTool(tool({ saveHome: home }), { urls: [`${server.origin}/huge`] });
    const marker = /\[… ([\d,]+) characters omitted\. Full text saved as (web_fetch\/[^;]+\.md); continue with read_file \{"path": "([^"]+)", "offset": (\d+)\} …\]/.exec(run.output);
    expect(marker).not.toBeNull();
    const [, omitted, saved, pathArg, offset] = marker!;
    expect(pathArg).toBe(saved);
    const full = await fs.readFile(path.join(home, saved), 'utf8');
    expect(full).toBe(HUGE);
    const body = run.output.slice(run.output.indexOf('\n\n') + 2);
    expect(body.length).toBeLessThanOrEqual(40_000);
    expect(body.startsWith('line 00001 of the huge page')).toBe(true);
    expect(body.endsWith('line 06000 of the huge page')).toBe(true);
    // The offset names exactly the first line not shown in the head.
    const headLines = body.slice(0, body.indexOf('\n\n[…')).split('\n');
    expect(headLines.at(-1)).toBe(`line ${String(Number(offset) - 1).padStart(5, '0')} of the huge page`);
    expect(full.split('\n')[Number(offset) - 1]).toBe(`line ${String(Number(offset)).padStart(5, '0')} of the huge page`);
    expect(Number(omitted.replace(/,/g, ''))).toBeGreaterThan(HUGE.length - 40_000);
  });

  it('does not write through a web_fetch symlink that points outside the home', async () => {
    const ownHome = await fs.mkdtemp(path.join(os.tmpdir(), 'web-fetch-home-'));
    const outside = await fs.mkdtemp(path.join(os.tmpdir(), 'web-fetch-outside-'));
    await fs.symlink(outside, path.join(ownHome, 'web_fetch'));
    const run = await runTool(tool({ saveHome: ownHome }), { urls: [`${server.origin}/huge?planted=1`] });
    expect(run.output).toMatch(/\[… [\d,]+ characters omitted \(starting at line \d+\) …\]/);
    expect(run.output).not.toContain('Full text saved');
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('does not save anything when the computer family is not in the turn', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/huge`] });
    expect(run.output).toMatch(/\[… [\d,]+ characters omitted \(starting at line \d+\) …\]/);
    expect(run.output).not.toContain('read_file');
  });

  it('shares the 40,000-character budget: a short page stays whole, the long one gets the rest', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/notes.txt`, `${server.origin}/huge`, `${server.origin}/huge?copy=2`] });
    expect(run.output).toContain('plain notes, kept as is\n  indented line');
    const total = run.output.length;
    expect(total).toBeLessThan(40_000 + 1_000);
    expect(total).toBeGreaterThan(39_000);
    expect(run.output.match(/characters omitted/g)).toHaveLength(2);
  });

  it('marks a URL fetched again in the same turn as a repeat and does not fetch it twice', async () => {
    let now = 1_000_000;
    const cache = new FetchCache(15 * 60 * 1000, () => now);
    const t = tool({ cache });
    const url = `${server.origin}/notes.txt?repeat-test`;
    const first = await runTool(t, { urls: [url] });
    expect(first.output).not.toContain('Repeat:');
    now += 3 * 60 * 1000;
    const second = await runTool(t, { urls: [url] });
    expect(second.output).toContain('Repeat: already fetched in this turn 3 min ago; same content as then (cached).');
    expect(second.output).toContain('plain notes, kept as is');
    expect(server.requests.filter((r) => r.url === '/notes.txt?repeat-test')).toHaveLength(1);
    now += 16 * 60 * 1000;
    const third = await runTool(t, { urls: [url] });
    expect(third.output).not.toContain('Repeat:');
    expect(server.requests.filter((r) => r.url === '/notes.txt?repeat-test')).toHaveLength(2);
  });

  it('labels the activity "Reading host" and the completion "Read «Title» · host"', async () => {
    const run = await runTool(tool(), { urls: [`${server.origin}/article`] });
    expect(run.label).toBe('Reading 127.0.0.1');
    expect(run.completedLabel).toBe('Read «Solar Panels Explained» · 127.0.0.1');
    const multi = await runTool(tool(), { urls: [`${server.origin}/article`, `${server.origin}/notes.txt`, `${server.origin}/image.png`] });
    expect(multi.label).toBe('Reading 127.0.0.1 and 2 more');
    expect(multi.completedLabel).toBe('Read «Solar Panels Explained» · 127.0.0.1 and 1 more (1 failed)');
    expect(multi.progress.map((p) => p.message)).toEqual(['fetched 1 of 3 pages', 'fetched 2 of 3 pages', 'fetched 3 of 3 pages']);
  });

  it('rejects an empty URL list and more than five URLs at validation', () => {
    const t = tool();
    expect(t.schema.safeParse({ urls: [] }).success).toBe(false);
    expect(t.schema.safeParse({ urls: Array(6).fill(`${server.origin}/notes.txt`) }).success).toBe(false);
  });

  it('stops fetching when the call is aborted', async () => {
    const controller = new AbortController();
    const pending = runTool(tool({ timeoutMs: 10_000 }), { urls: [`${server.origin}/slow`] }, controller.signal);
    setTimeout(() => controller.abort(new Error('turn cancelled')), 100);
    const run = await pending;
    expect(run.output).toBe('Error: turn cancelled');
  });
});
