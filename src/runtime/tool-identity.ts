/**
 * The one definition of a tool's identity: `namespace.name` for a namespaced tool, else `name`.
 * Two tools of one turn must not share it; dispatch looks calls up by it, events name calls by it,
 * and `onlyTools` / loaded-tool sets hold it. A leaf module (no imports) so every layer can use it.
 */

/** Anything that names a tool: a tool spec, a compiled tool, or a model's function call. */
export interface ToolName {
  name: string;
  /** Omitted, undefined or '' for a root tool. */
  namespace?: string | null;
}

/** `namespace.name`, or `name` when there is no namespace. Pure. */
export function toolIdentity(tool: ToolName): string {
  return tool.namespace ? `${tool.namespace}.${tool.name}` : tool.name;
}
