/**
 * Output filters: a family may give the assembler a function that every tool result of the turn
 * passes through before the runtime sees it (the skills family uses one to replace secret values
 * with `[redacted:NAME]`). A filtered tool's text parts, `details`, presentation events, progress
 * messages and thrown error messages all go through the filter, so what reaches events, logs and
 * the model is the filtered text.
 */
import type { AgentToolResult, AnyWorkerAgentTool, ToolExecuteContext } from '../runtime/tool.js';

/**
 * Maps a text to what may be shown; must not throw. `refresh`, when given, brings what the filter
 * hides up to date (e.g. secrets read again from their file): {@link filterToolOutput} awaits it
 * when a tool call starts and again before the call's result or error is filtered; it must not
 * throw (a failed refresh keeps what the filter hid before).
 */
export interface OutputFilter {
  (text: string): string;
  refresh?: () => Promise<void>;
}

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

/**
 * `tool` with its results filtered by `f` (a new tool object; the original is unchanged). `f.refresh`
 * is awaited before the call runs (its progress messages are filtered with what was current then)
 * and again after it, before its result or error is filtered.
 */
export function filterToolOutput(tool: AnyWorkerAgentTool, f: OutputFilter): AnyWorkerAgentTool {
  const execute = tool.execute;
  const refresh = async () => {
    await f.refresh?.().catch(() => {});
  };
  return {
    ...tool,
    async execute(params: unknown, ctx: ToolExecuteContext) {
      const emit: ToolExecuteContext['emit'] = (p) => ctx.emit({ message: f(p.message), data: filterJson(p.data, f) });
      await refresh();
      let result: AgentToolResult;
      try {
        result = await execute(params, { ...ctx, emit });
      } catch (err) {
        await refresh();
        if (err instanceof Error) {
          const message = f(err.message);
          if (message !== err.message) throw Object.assign(new Error(message), { name: err.name });
        }
        throw err;
      }
      await refresh();
      return {
        ...result,
        content: result.content.map((c) => (c.type === 'text' ? { ...c, text: f(c.text) } : c)),
        details: filterJson(result.details, f),
        presentation: filterJson(result.presentation, f),
      };
    },
  };
}
