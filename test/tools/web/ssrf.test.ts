import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { blockedReason, embeddedIPv4 } from '../../../src/tools/web/address-policy.js';
import type { HostResolver } from '../../../src/tools/web/target-guard.js';
import { createWebFetchTool } from '../../../src/tools/web/web-fetch.js';
import { runTool, startServer, type LoopbackServer } from './support.js';

let server: LoopbackServer;
let metadataHits = 0;

beforeAll(async () => {
  server = await startServer({
    '/page': (_q, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('secret internal page'),
    '/to-metadata': (_q, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/iam/' }).end(),
    '/to-loopback-name': (_q, res) => res.writeHead(301, { location: 'http://internal.test/page' }).end(),
  });
});

afterAll(async () => {
  await server.close();
});

/** Resolver for made-up names; counts lookups. Unknown names fail like NXDOMAIN. */
function fakeResolver(table: Record<string, string>): HostResolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = (async (host: string) => {
    calls.push(host);
    if (host === '169.254.169.254') metadataHits++;
    const address = table[host];
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  }) as HostResolver & { calls: string[] };
  fn.calls = calls;
  return fn;
}

function fetchTool(resolver: HostResolver, allowHosts: string[] = []) {
  return createWebFetchTool({ allowHosts, timeoutMs: 2000, maxBytes: 1024 * 1024, resolver });
}

describe('web_fetch SSRF guard (no allowlist)', () => {
  const cases: [string, RegExp][] = [
    ['127.0.0.1', /refused to fetch 127\.0\.0\.1: loopback address/],
    ['[::1]', /refused to fetch ::1: loopback address/],
    ['[::ffff:127.0.0.1]', /refused to fetch ::ffff:7f00:1: IPv4-mapped form of loopback address 127\.0\.0\.1 — /], // the address named once
    ['2130706433', /refused to fetch 127\.0\.0\.1: loopback address/], // decimal
    ['0177.0.0.1', /refused to fetch 127\.0\.0\.1: loopback address/], // octal
    ['0x7f.0.0.1', /refused to fetch 127\.0\.0\.1: loopback address/], // hex
    ['169.254.169.254', /cloud metadata address/],
    ['[fd00:ec2::254]', /cloud metadata address/],
    ['10.1.2.3', /private address/],
    ['192.168.0.10', /private address/],
    ['172.20.0.1', /private address/],
    ['100.64.0.1', /CGNAT \(shared address space\) address/],
    ['0.0.0.0', /unspecified address/],
    ['224.0.0.1', /multicast address/],
    ['[fe80::1]', /link-local address/],
    ['[64:ff9b:1::a9fe:a9fe]', /NAT64 \(local-use\) form of cloud metadata address 169\.254\.169\.254/],
    ['[64:ff9b:1::7f00:1]', /NAT64 \(local-use\) form of loopback address 127\.0\.0\.1/],
    ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', /Teredo form of loopback address 127\.0\.0\.1/],
  ];
  for (const [host, expected] of cases) {
    it(`refuses http://${host}:port/ before connecting`, async () => {
      const url = `http://${host}:${server.port}/page`;
      const before = server.requests.length;
      const run = await runTool(fetchTool(fakeResolver({})), { urls: [url] });
      expect(run.output).toMatch(/^Error: /);
      expect(run.output).toMatch(expected);
      expect(run.output).not.toContain('secret internal page');
      expect(server.requests.length).toBe(before);
    });
  }

  it('refuses a hostname whose DNS answer is 127.0.0.1', async () => {
    const resolver = fakeResolver({ 'innocent.example': '127.0.0.1' });
    const run = await runTool(fetchTool(resolver), { urls: [`http://innocent.example:${server.port}/page`] });
    expect(run.output).toBe(
      'Error: http://innocent.example:' + server.port + '/page: refused to fetch innocent.example (resolves to 127.0.0.1): ' +
        'loopback address — web_fetch only reaches public internet addresses',
    );
    expect(resolver.calls).toEqual(['innocent.example']);
  });

  it('refuses a hostname when any of its DNS answers is private', async () => {
    const resolver: HostResolver = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ];
    const run = await runTool(fetchTool(resolver), { urls: ['http://mixed.example/'] });
    expect(run.output).toMatch(/refused to fetch mixed\.example \(resolves to 10\.0\.0\.5\): private address/);
  });

  it('refuses a redirect from an allowed host to the cloud metadata address', async () => {
    const resolver = fakeResolver({ 'public-looking.example': '127.0.0.1' });
    const run = await runTool(fetchTool(resolver, ['public-looking.example']), {
      urls: [`http://public-looking.example:${server.port}/to-metadata`],
    });
    expect(run.output).toMatch(/^Error: .*refused to fetch 169\.254\.169\.254: cloud metadata address/);
    expect(server.requests.at(-1)?.url).toBe('/to-metadata');
    expect(metadataHits).toBe(0);
  });

  it('re-checks a redirect to a hostname that resolves to loopback', async () => {
    const resolver = fakeResolver({ 'public-looking.example': '127.0.0.1', 'internal.test': '127.0.0.1' });
    const run = await runTool(fetchTool(resolver, ['public-looking.example']), {
      urls: [`http://public-looking.example:${server.port}/to-loopback-name`],
    });
    expect(run.output).toMatch(/refused to fetch internal\.test \(resolves to 127\.0\.0\.1\): loopback address/);
    expect(resolver.calls).toEqual(['public-looking.example', 'internal.test']);
  });

  it('reports a name that does not resolve', async () => {
    const run = await runTool(fetchTool(fakeResolver({})), { urls: ['http://no-such-host.invalid/'] });
    expect(run.output).toMatch(/could not resolve host no-such-host\.invalid \(ENOTFOUND\)/);
  });
});

describe('web_fetch connects to the address it checked', () => {
  it('uses the pre-resolved address without a second DNS lookup (a name only the injected resolver knows)', async () => {
    // The system resolver cannot resolve "pinned.test": the fetch only succeeds if the connection
    // goes to the address the guard resolved and checked.
    const resolver = fakeResolver({ 'pinned.test': '127.0.0.1' });
    const run = await runTool(fetchTool(resolver, ['pinned.test']), { urls: [`http://pinned.test:${server.port}/page`] });
    expect(run.output).toContain('secret internal page');
    expect(resolver.calls).toEqual(['pinned.test']);
    expect(server.requests.at(-1)?.headers.host).toBe(`pinned.test:${server.port}`);
  });

  it('allows allowlisted IP literals and *.suffix patterns', async () => {
    const resolver = fakeResolver({ 'api.corp.test': '127.0.0.1' });
    const tool = fetchTool(resolver, ['127.0.0.1', '*.corp.test']);
    const run = await runTool(tool, { urls: [`http://127.0.0.1:${server.port}/page`, `http://api.corp.test:${server.port}/page`, `http://corp.test:${server.port}/page`] });
    expect(run.output.match(/secret internal page/g)).toHaveLength(2);
    expect(run.output).toMatch(/\[3\] .*\nError: could not resolve host corp\.test/);
  });
});

describe('address policy', () => {
  it('lets public addresses through', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e']) {
      expect(blockedReason(a)).toBeNull();
    }
  });

  it('refuses IPv6 forms that embed a refused IPv4 address', () => {
    expect(blockedReason('::ffff:10.0.0.1')).toBe('IPv4-mapped form of private address 10.0.0.1');
    expect(blockedReason('::ffff:a9fe:a9fe')).toBe('IPv4-mapped form of cloud metadata address 169.254.169.254');
    expect(blockedReason('64:ff9b::7f00:1')).toBe('NAT64 form of loopback address 127.0.0.1');
    expect(blockedReason('2002:c0a8:0101::1')).toBe('6to4 form of private address 192.168.1.1');
    expect(blockedReason('::ffff:8.8.8.8')).toBeNull();
    expect(embeddedIPv4('2001:db8::1')).toBeNull();
  });

  it('decodes local-use NAT64 (64:ff9b:1::/48, RFC 8215) at each RFC 6052 prefix length that fits', () => {
    expect(blockedReason('64:ff9b:1::a9fe:a9fe')).toBe('NAT64 (local-use) form of cloud metadata address 169.254.169.254'); // /96
    expect(blockedReason('64:ff9b:1:7f00:0:100::')).toBe('NAT64 (local-use) form of loopback address 127.0.0.1'); // /48: bits 48–63 and 72–87
    expect(blockedReason('64:ff9b:1:a:c0:a801:100:0')).toBe('NAT64 (local-use) form of private address 192.168.1.1'); // /64: bits 72–103
    expect(blockedReason('64:ff9b:1::808:808')).toBeNull();
    expect(blockedReason('64:ff9b:1:abcd::8.8.8.8')).toBeNull();
  });

  it('decodes Teredo (2001::/32, RFC 4380): the client (last 32 bits XOR 0xffffffff) and the server (bits 32–63)', () => {
    expect(blockedReason('2001:0:4136:e378:8000:63bf:80ff:fffe')).toBe('Teredo form of loopback address 127.0.0.1');
    expect(blockedReason('2001:0:4136:e378:8000:63bf:5601:5601')).toBe('Teredo form of cloud metadata address 169.254.169.254');
    expect(blockedReason('2001:0:a00:1:8000:63bf:f7f7:f7f7')).toBe('Teredo server form of private address 10.0.0.1');
    expect(blockedReason('2001:0:4136:e378:8000:63bf:f7f7:f7f7')).toBeNull(); // client 8.8.8.8 via 65.54.227.120
  });

  it('refuses unique-local, multicast, documentation and broadcast ranges', () => {
    expect(blockedReason('fc00::1')).toBe('private');
    expect(blockedReason('ff02::1')).toBe('multicast');
    expect(blockedReason('2001:db8::1')).toBe('reserved');
    expect(blockedReason('255.255.255.255')).toBe('reserved');
    expect(blockedReason('::')).toBe('unspecified');
  });
});

describe('web_fetch name resolution limits', () => {
  it('gives up on a resolver that never answers at the timeout', async () => {
    const hanging: HostResolver = () => new Promise(() => undefined);
    const tool = createWebFetchTool({ allowHosts: [], timeoutMs: 200, maxBytes: 1024, resolver: hanging });
    const run = await runTool(tool, { urls: ['http://slow-dns.example/'] });
    expect(run.output).toBe('Error: http://slow-dns.example/: timed out after 0.2 s (resolving slow-dns.example)');
  });
});

describe('web_fetch over HTTPS with a pinned address', () => {
  it('verifies the certificate against the host name (SNI) while connecting to the checked address', async () => {
    const https = await import('node:https');
    const fs = await import('node:fs');
    const fixtures = new URL('./fixtures/', import.meta.url);
    const cert = fs.readFileSync(new URL('pinned-test.cert.pem', fixtures), 'utf8');
    const key = fs.readFileSync(new URL('pinned-test.key.pem', fixtures), 'utf8');
    const tlsServer = https.createServer({ cert, key }, (req, res) => {
      const sni = (req.socket as unknown as { servername?: string }).servername;
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`tls page; sni=${sni}`);
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    const port = (tlsServer.address() as { port: number }).port;
    try {
      const resolver = fakeResolver({ 'pinned.test': '127.0.0.1' });
      const tool = createWebFetchTool({ allowHosts: ['pinned.test', '127.0.0.1'], timeoutMs: 2000, maxBytes: 1024, resolver, ca: cert });
      const ok = await runTool(tool, { urls: [`https://pinned.test:${port}/`] });
      expect(ok.output).toContain('tls page; sni=pinned.test');
      expect(resolver.calls).toEqual(['pinned.test']);
      // The same server by IP: the certificate does not name 127.0.0.1, so verification fails.
      const mismatch = await runTool(tool, { urls: [`https://127.0.0.1:${port}/`] });
      expect(mismatch.output).toMatch(/^Error: .*ERR_TLS_CERT_ALTNAME_INVALID/);
    } finally {
      tlsServer.closeAllConnections();
      await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
    }
  });
});
