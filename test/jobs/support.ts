/**
 * Helpers for background job tests: the scripted model routed by a turn's first user message
 * (test/workflows/support.ts), the output of the last tool call a request carries, the developer
 * messages it carries, and finding turns by origin.
 */
import type { ResponsesRequestBody } from '../support/scripted-responses-server.js';
import { api } from '../e2e/support/service.js';

export { routedEntries, waitFor } from '../workflows/support.js';

/** The output the model got back for its last function call, parsed as JSON when it is JSON. */
export function lastToolOutput(body: ResponsesRequestBody): any {
  const outputs = (body.input as { type?: string; output?: unknown }[]).filter((i) => i.type === 'function_call_output');
  const o = outputs[outputs.length - 1]?.output;
  const text = typeof o === 'string' ? o : JSON.stringify(o);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Texts of the developer and user messages in a request's input, in order. */
export function messageTexts(body: ResponsesRequestBody, role: 'developer' | 'user'): string[] {
  return (body.input as { role?: string; content?: unknown }[])
    .filter((i) => i.role === role)
    .map((i) => (typeof i.content === 'string' ? i.content : JSON.stringify(i.content)));
}

/** Turns of `agentId`, newest first. */
export async function turnsOf(base: string, agentId: string): Promise<any[]> {
  return (await api(base, 'GET', `/v1/turns?agent_id=${agentId}&limit=100`)).body.data;
}

/** A job as GET /v1/jobs/{id} returns it. */
export async function job(base: string, id: string): Promise<any> {
  return (await api(base, 'GET', `/v1/jobs/${id}`)).body;
}
