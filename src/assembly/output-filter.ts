/**
 * Output filters: a family may give the assembler a function that every tool result of the turn
 * passes through before the runtime sees it (the skills family uses one to replace secret values
 * with `[redacted:NAME]`). A filtered tool's text parts, `details`, presentation events, progress
 * messages and thrown error messages all go through the filter, so what reaches events, logs and
 * the model is the filtered text.
 */
import type { AgentToolResult, AnyWorkerAgentTool, ToolExecuteContext } from '../runtime/tool.js';

/** Maps a text to what may be shown; must be pure and must not throw. */
export type OutputFilter = (text: string) => string;

function filterJson<T>(value: T, f: OutputFilter): T {
  if (value === undefined) return value;
  const json = JSON.stringify(value);
  if (json === undefined) return value;
  const out = f(json);
  if (out === json) return value;
  try {
    return JSON.parse(out) as T;
  } catch {
    return value;
  }
}

/** `tool` with its results filtered by `f` (a new tool object; the original is unchanged). */
export function filterToolOutput(tool: AnyWorkerAgentTool, f: OutputFilter): AnyWorkerAgentTool {
  const execute = tool.execute;
  return {
    ...tool,
    async execute(params: unknown, ctx: ToolExecuteContext) {
      const emit: ToolExecuteContext['emit'] = (p) => ctx.emit({ message: f(p.message), data: filterJson(p.data, f) });
      let result: AgentToolResult;
      try {
        result = await execute(params, { ...ctx, emit });
      } catch (err) {
        if (err instanceof Error) {
          const message = f(err.message);
          if (message !== err.message) throw Object.assign(new Error(message), { name: err.name });
        }
        throw err;
      }
      return {
        ...result,
        content: result.content.map((c) => (c.type === 'text' ? { ...c, text: f(c.text) } : c)),
        details: filterJson(result.details, f),
        presentation: filterJson(result.presentation, f),
      };
    },
  };
}
