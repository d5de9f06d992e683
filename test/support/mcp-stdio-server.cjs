/**
 * A small stdio MCP server (official @modelcontextprotocol/sdk) for tests. Tests put it into a
 * skill's scripts/ and declare it in agents/openai.yaml; it then runs INSIDE the sandbox, started
 * by mcporter with `/bin/sh -lc`, and finds the SDK through NODE_PATH (hence CommonJS).
 * Tools: `add {a, b}` → the sum as text; `fail {}` → a tool error (isError) "the calculator broke".
 */
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { z } = require('zod');

const server = new McpServer({ name: 'calc', version: '1.0.0' });
server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
  content: [{ type: 'text', text: `sum=${a + b}` }],
}));
server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => ({
  isError: true,
  content: [{ type: 'text', text: 'the calculator broke' }],
}));
server.connect(new StdioServerTransport());
