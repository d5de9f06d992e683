/**
 * A small streamable-HTTP MCP server (official @modelcontextprotocol/sdk, stateless mode: one
 * server + transport per request) on a loopback port, for tests. It requires
 * `Authorization: Bearer <token>` (401 otherwise) and, on every tool call, scans every process's
 * /proc/<pid>/cmdline for the token — the call is in flight then, so mcporter, bwrap and the
 * command's shell are all alive — recording the pids whose command line holds it.
 * Tools: `lookup {key}` → `value of <key>: …`; `fail {}` → a tool error.
 */
import { readdirSync, readFileSync } from 'node:fs';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface McpHttpServer {
  url: string;
  /** Tool calls served, in order. */
  calls: { tool: string; args: unknown }[];
  /** Per tool call: pids (with their command lines) that held the token in /proc/<pid>/cmdline. */
  cmdlineLeaks: { pid: string; cmdline: string }[][];
  /** Processes scanned per call (to show the scan saw the running call). */
  scanned: number[];
  /** Requests refused for a wrong or missing bearer token. */
  unauthorized: number;
  close(): Promise<void>;
}

function scanCmdlines(token: string): { leaks: { pid: string; cmdline: string }[]; count: number } {
  const leaks: { pid: string; cmdline: string }[] = [];
  let count = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      count++;
      if (cmdline.includes(token)) leaks.push({ pid, cmdline: cmdline.replace(/\0/g, ' ') });
    } catch {
      // the process ended meanwhile
    }
  }
  return { leaks, count };
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

export async function startMcpHttpServer(token: string, values: Record<string, string>): Promise<McpHttpServer> {
  const state: McpHttpServer = { url: '', calls: [], cmdlineLeaks: [], scanned: [], unauthorized: 0, close: async () => {} };
  const build = () => {
    const server = new McpServer({ name: 'vault', version: '1.0.0' });
    server.registerTool('lookup', { description: 'Look a value up by key', inputSchema: { key: z.string() } }, async ({ key }) => {
      state.calls.push({ tool: 'lookup', args: { key } });
      const scan = scanCmdlines(token);
      state.cmdlineLeaks.push(scan.leaks);
      state.scanned.push(scan.count);
      return { content: [{ type: 'text', text: `value of ${key}: ${values[key] ?? '(none)'}` }] };
    });
    server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => {
      state.calls.push({ tool: 'fail', args: {} });
      return { isError: true, content: [{ type: 'text', text: 'the vault is sealed' }] };
    });
    return server;
  };
  const httpServer = http.createServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      state.unauthorized++;
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.method === 'POST' ? await readBody(req) : undefined);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  state.url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
  state.close = () =>
    new Promise<void>((r) => {
      httpServer.closeAllConnections();
      httpServer.close(() => r());
    });
  return state;
}
