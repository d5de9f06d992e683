/**
 * Edited arguments of an approval are checked by the tool's own schema before they are stored,
 * with the same validation a model's call gets (src/runtime/arguments.ts): invalid → 400
 * `invalid_arguments` whose message has one `<path> <what is wrong>` per problem (paths inside
 * the arguments, `; `-separated, as a 400 `invalid_request` reads) and whose details list
 * `{path, code, message}` per problem. What is stored (and
 * reported as `edited_arguments` / `approval.resolved.arguments`) is the validated form — what the
 * call runs with, e.g. `"timeout": "5"` becomes `5` where the schema wants a number.
 */
import { validateToolArguments } from '../../runtime/arguments.js';
import type { AnyWorkerAgentTool } from '../../runtime/tool.js';
import { HttpError } from '../../http/errors.js';
import { issueLine, issuePath } from '../../zod-messages.js';

/**
 * @returns `args` as the tool's schema parsed them (scalars coerced, defaults filled in): the
 *   arguments the call runs with.
 * @throws HttpError 400 `invalid_arguments` when `args` do not pass `tool`'s schema; 409
 *   `tool_unavailable` when the turn's tool cannot be built now to check them.
 */
export async function checkEditedArguments(tool: AnyWorkerAgentTool | undefined, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (!tool) {
    throw new HttpError(409, 'tool_unavailable', `tool ${name} of this turn is not available on this instance now, so edited arguments cannot be checked; approve without arguments or retry`);
  }
  const v = validateToolArguments(tool, JSON.stringify(args));
  if (v.ok) return v.params as Record<string, unknown>;
  const lines = v.problems.map((p) => issueLine(p)).join('; ');
  throw new HttpError(
    400,
    'invalid_arguments',
    `the edited arguments do not fit tool ${name}: ${lines}`,
    v.problems.map((p) => ({ path: issuePath(p.path), code: p.code, message: p.message })),
  );
}
