/**
 * Test support for the web tools: a real HTTP server on a loopback port, and a helper that runs a
 * tool the way the dispatcher does (params validated by the tool's zod schema, a throw becomes an
 * `Error: …` output).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyWorkerAgentTool, AgentToolResult, ToolProgress } from '../../../src/runtime/tool.js';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export interface LoopbackServer {
  /** e.g. http://127.0.0.1:43210 */
  origin: string;
  port: number;
  /** Requests seen, in order: method, path with query, headers, body. */
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

/** Start a server on 127.0.0.1 (random port) routing exact paths (without query) to handlers. */
export async function startServer(routes: Record<string, Handler>): Promise<LoopbackServer> {
  const requests: LoopbackServer['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const path = (req.url ?? '/').split('?')[0];
      const handler = routes[path];
      if (!handler) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface ToolRun {
  /** The function_call_output text the model would see. */
  output: string;
  result?: AgentToolResult;
  progress: ToolProgress[];
  /** describeActivity / describeCompletedActivity labels. */
  label: string | null;
  completedLabel?: string | null;
}

/** Run `tool` like the dispatcher: validate, execute, map a throw to `Error: message`. */
export async function runTool(tool: AnyWorkerAgentTool, args: unknown, signal = new AbortController().signal): Promise<ToolRun> {
  const params = tool.schema.parse(args);
  const progress: ToolProgress[] = [];
  const label = tool.describeActivity(params);
  try {
    const result = await tool.execute(params, { callId: 'call_test', signal, turn: undefined, emit: (p: ToolProgress) => progress.push(p), outputMaxChars: 50_000 });
    const output = result.content.filter((c: { type: string }) => c.type === 'text').map((c: { text: string }) => c.text).join('\n');
    return { output, result, progress, label, completedLabel: tool.describeCompletedActivity?.(params, result) };
  } catch (err) {
    return { output: `Error: ${(err as Error).message}`, progress, label };
  }
}
