/**
 * The mcporter configuration of one command: `{mcpServers: {…}, imports: []}` with the turn's
 * usable MCP servers sorted by name (`imports: []` keeps mcporter from merging editor configs).
 * - streamable_http → `{baseUrl, bearerToken: "${VAR}"}`: mcporter resolves the placeholder from
 *   its environment when it sends the request, so the file never holds the secret;
 * - stdio → `{command: "/bin/sh", args: ["-lc", <command>]}` (run inside the sandbox).
 * `enabled_tools`/`disabled_tools` become mcporter's `allowedTools`/`blockedTools`.
 */
import type { McpServerDecl } from './mcp-manifest.js';

export interface McporterServerEntry {
  description?: string;
  baseUrl?: string;
  bearerToken?: string;
  command?: string;
  args?: string[];
  allowedTools?: string[];
  blockedTools?: string[];
}

export interface McporterConfig {
  mcpServers: Record<string, McporterServerEntry>;
  imports: [];
}

/** The config for `servers` (any order in, sorted out). */
export function mcporterConfig(servers: McpServerDecl[]): McporterConfig {
  const mcpServers: Record<string, McporterServerEntry> = {};
  for (const s of [...servers].sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))) {
    const entry: McporterServerEntry = {};
    if (s.description) entry.description = s.description;
    if (s.transport === 'streamable_http') {
      entry.baseUrl = s.url;
      if (s.bearer_token_env_var) entry.bearerToken = `\${${s.bearer_token_env_var}}`;
    } else {
      entry.command = '/bin/sh';
      entry.args = ['-lc', s.command];
    }
    if (s.enabled_tools) entry.allowedTools = [...s.enabled_tools];
    if (s.disabled_tools) entry.blockedTools = [...s.disabled_tools];
    mcpServers[s.value] = entry;
  }
  return { mcpServers, imports: [] };
}

/** Names of secrets a server needs in the command environment: its bearer variable and `${NAME}`s in a stdio command. */
export function secretNames(s: McpServerDecl): string[] {
  if (s.transport === 'streamable_http') return s.bearer_token_env_var ? [s.bearer_token_env_var] : [];
  return [...s.command.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]);
}
