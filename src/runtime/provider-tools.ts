/**
 * Provider tool definitions: a turn's tools → the model port's neutral {@link ToolDefinition}s
 * (src/model/port.ts, shaped like the Responses API `tools` array).
 *
 * - Function tools carry `strict` explicitly (false unless the tool sets true): when omitted the
 *   Responses API applies strict mode and the model fills optional fields with junk.
 * - Deterministic order for prompt caching: root tools by name first, then one `namespace` tool per
 *   namespace (by namespace name) with its functions by name. A namespace's description is the
 *   first `namespaceDescription` in assembly order.
 * - Deferred tools (`deferLoading`): in `client` mode they are left out until loaded by the
 *   `tool_search` function (added while any deferred tool exists); in `hosted` mode they are sent
 *   with `defer_loading: true` plus a `{type: "tool_search"}` tool.
 *
 * `POST /v1/tools/preview` shows exactly this output.
 */
import { toolIdentity } from './tool-identity.js';
import type { FunctionToolDefinition as FunctionTool, NamespaceToolDefinition as NamespaceTool, ToolDefinition as Tool } from '../model/port.js';
import { compileTool, type CompiledTool } from './compiled-tool.js';
import { TOOL_SEARCH_DESCRIPTION, TOOL_SEARCH_NAME, TOOL_SEARCH_PARAMETERS } from './tool-search.js';
import type { AnyWorkerAgentTool } from './tool.js';
import type { ToolSearchMode } from './turn-types.js';

export interface ProviderToolsOptions {
  /** [client] */
  toolSearchMode?: ToolSearchMode;
  /** Identities (`namespace.name` / `name`) of deferred tools already loaded (client mode). */
  loaded?: ReadonlySet<string>;
  /** Offer only these identities (e.g. from a final-answer guard); tool_search is then left out. */
  onlyTools?: readonly string[];
}

function byName(a: CompiledTool, b: CompiledTool): number {
  return a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0;
}

/**
 * Check the tool set: identities unique, schemas compilable. Returns compiled tools in assembly order.
 * @throws Error `two tools named X in one turn's tool set`, or ToolSchemaError.
 */
export function compileToolSet(tools: readonly AnyWorkerAgentTool[]): CompiledTool[] {
  const seen = new Set<string>();
  return tools.map((tool) => {
    const c = compileTool(tool);
    if (seen.has(c.identity)) throw new Error(`two tools named ${c.identity} in one turn's tool set`);
    seen.add(c.identity);
    return c;
  });
}

function functionDef(c: CompiledTool, deferred: boolean): FunctionTool {
  return {
    type: 'function',
    name: c.tool.name,
    description: c.tool.description,
    parameters: c.parameters,
    strict: c.tool.strict === true,
    ...(deferred ? { defer_loading: true } : {}),
  };
}

/**
 * Build the provider `tools` array for a tool set (see the module doc for the rules).
 * @throws like {@link compileToolSet}.
 */
export function buildProviderTools(tools: readonly AnyWorkerAgentTool[], options: ProviderToolsOptions = {}): Tool[] {
  const mode = options.toolSearchMode ?? 'client';
  const compiled = compileToolSet(tools);
  const only = options.onlyTools ? new Set(options.onlyTools) : undefined;
  const hasDeferred = compiled.some((c) => c.tool.deferLoading);
  const offered = compiled.filter((c) => {
    if (only && !only.has(c.identity)) return false;
    if (c.tool.deferLoading && mode === 'client') return options.loaded?.has(c.identity) === true;
    return true;
  });
  const nsDescriptions = new Map<string, string>();
  for (const c of compiled) {
    const ns = c.tool.namespace;
    if (ns && !nsDescriptions.has(ns) && c.tool.namespaceDescription) nsDescriptions.set(ns, c.tool.namespaceDescription);
  }
  const hosted = mode === 'hosted';
  const root: FunctionTool[] = offered
    .filter((c) => !c.tool.namespace)
    .sort(byName)
    .map((c) => functionDef(c, hosted && c.tool.deferLoading));
  if (hasDeferred && mode === 'client' && !only) {
    root.push({ type: 'function', name: TOOL_SEARCH_NAME, description: TOOL_SEARCH_DESCRIPTION, parameters: TOOL_SEARCH_PARAMETERS, strict: false });
    root.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const groups = new Map<string, CompiledTool[]>();
  for (const c of offered) {
    const ns = c.tool.namespace;
    if (!ns) continue;
    const g = groups.get(ns) ?? [];
    g.push(c);
    groups.set(ns, g);
  }
  const namespaces: NamespaceTool[] = [...groups.keys()].sort().map((ns) => ({
    type: 'namespace',
    name: ns,
    description: nsDescriptions.get(ns) ?? `Tools in the ${ns} namespace.`,
    tools: groups
      .get(ns)!
      .sort(byName)
      .map((c) => {
        const { type, name, description, parameters, strict, defer_loading } = functionDef(c, hosted && c.tool.deferLoading);
        return { type, name, description, parameters, strict, ...(defer_loading ? { defer_loading } : {}) };
      }),
  }));
  const out: Tool[] = [...root, ...namespaces];
  if (hasDeferred && hosted && !only) out.push({ type: 'tool_search' });
  return out;
}

/** Names of the functions in a provider tools array, in order (`namespace.name` inside namespaces). */
export function providerToolNames(tools: readonly Tool[]): string[] {
  const names: string[] = [];
  for (const t of tools) {
    if (t.type === 'function') names.push(t.name);
    else if (t.type === 'namespace') for (const f of t.tools) names.push(toolIdentity({ namespace: t.name, name: f.name }));
    else if (t.type === 'tool_search') names.push('tool_search');
  }
  return names;
}
