/** Script entries for the scripted Responses server (test/support/) shared by the e2e tests. */
import { functionCall, message, type ResponsesRequestBody, type ScriptEntry } from '../../support/scripted-responses-server.js';

/** True when the request already carries a function_call_output (the tool round is done). */
export function hasToolOutput(body: ResponsesRequestBody): boolean {
  return Array.isArray(body.input) && body.input.some((i: { type?: string }) => i.type === 'function_call_output');
}

/** The text of the last user message in a request. */
export function lastUserText(body: ResponsesRequestBody): string {
  const msgs = (body.input as { type?: string; role?: string; content?: unknown }[]).filter((i) => i.role === 'user');
  const c = msgs[msgs.length - 1]?.content;
  return typeof c === 'string' ? c : JSON.stringify(c);
}

/**
 * One order-independent entry: first request of a turn → a `todo` call; once the tool output is
 * there → a final message echoing the user's text. Safe with many turns interleaving.
 */
export const todoThenAnswer: ScriptEntry = (body) =>
  hasToolOutput(body)
    ? { output: [message(`done: ${lastUserText(body)}`, { chunks: ['done: ', lastUserText(body)] })] }
    : { output: [functionCall('todo', { todos: [{ id: '1', content: lastUserText(body), status: 'in_progress' }] })] };

/**
 * Like {@link todoThenAnswer} with the `todo` call streamed slowly (`callDelayMs` before each of
 * its events, so an outage can fall inside the round) and the answer at once, in one piece.
 */
export function slowTodoThenAnswer(callDelayMs: number): ScriptEntry {
  return (body) =>
    hasToolOutput(body)
      ? { output: [message(`done: ${lastUserText(body)}`)] }
      : { output: [functionCall('todo', { todos: [{ id: '1', content: lastUserText(body), status: 'in_progress' }] })], delayMs: callDelayMs };
}
