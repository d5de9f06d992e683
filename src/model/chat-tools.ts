/**
 * Chat Completions adapter, tools: neutral {@link ToolDefinition}s → Chat Completions `tools`
 * (`{type: "function", function: {name, description, parameters, strict?}}`), and the names the
 * model calls mapped back.
 *
 * Chat Completions has no namespaces: a namespaced tool is flattened to `<namespace>__<name>` and a
 * call of that name is mapped back to `{namespace, name}`. The hosted tool search does not exist
 * there and is left out (the runtime's client-side `tool_search` function works anywhere);
 * `defer_loading` is dropped. `strict` is sent only when true (some servers reject the field).
 */
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { FunctionToolDefinition, ToolDefinition } from './port.js';

/** Separator of a flattened namespaced tool name. */
export const NAMESPACE_SEPARATOR = '__';

/** The flattened tools of one request and how to map a called name back. */
export interface ChatToolSet {
  tools: ChatCompletionFunctionTool[];
  /** Flattened name → the namespace and name the runtime knows (only namespaced tools). */
  namespaced: Map<string, { namespace: string; name: string }>;
}

function toChatTool(t: FunctionToolDefinition, name: string): ChatCompletionFunctionTool {
  return {
    type: 'function',
    function: { name, description: t.description, parameters: t.parameters, ...(t.strict ? { strict: true } : {}) },
  };
}

/** Flatten the request's tools (order kept). */
export function toChatTools(defs: ToolDefinition[]): ChatToolSet {
  const tools: ChatCompletionFunctionTool[] = [];
  const namespaced = new Map<string, { namespace: string; name: string }>();
  for (const d of defs) {
    if (d.type === 'function') tools.push(toChatTool(d, d.name));
    else if (d.type === 'namespace') {
      for (const t of d.tools) {
        const flat = `${d.name}${NAMESPACE_SEPARATOR}${t.name}`;
        namespaced.set(flat, { namespace: d.name, name: t.name });
        tools.push(toChatTool(t, flat));
      }
    }
  }
  return { tools, namespaced };
}

/** The name a function call of the transcript is sent back under. */
export function flatToolName(name: string, namespace?: string): string {
  return namespace ? `${namespace}${NAMESPACE_SEPARATOR}${name}` : name;
}
