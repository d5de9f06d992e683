/**
 * Helpers for workflow tests: route scripted model responses by the turn's first user message
 * (each task's prompt, or a main turn's input), so concurrent task turns can interleave freely.
 */
import type { ResponsesRequestBody, ScriptEntry, ScriptedStep } from '../support/scripted-responses-server.js';

/** The first user message of a request (a task turn's prompt). */
export function firstUserText(body: ResponsesRequestBody): string {
  const first = (body.input as { role?: string; content?: unknown }[]).find((i) => i.role === 'user');
  const c = first?.content;
  return typeof c === 'string' ? c : JSON.stringify(c);
}

/** Outputs (function_call_output texts) the request carries, in order. */
export function toolOutputs(body: ResponsesRequestBody): string[] {
  return (body.input as { type?: string; output?: unknown }[])
    .filter((i) => i.type === 'function_call_output')
    .map((i) => (typeof i.output === 'string' ? i.output : JSON.stringify(i.output)));
}

/** Tool names offered in a request, sorted. */
export function toolNames(body: ResponsesRequestBody): string[] {
  return (body.tools as { name?: string; type: string }[]).map((t) => t.name ?? t.type).sort();
}

export type Route = ScriptedStep | ((body: ResponsesRequestBody) => ScriptedStep | Promise<ScriptedStep>);

/**
 * A script entry answering each request from the queue of its first user message. Push it once per
 * expected request (see {@link routedEntries}). An unexpected request gets HTTP 400 (not retried),
 * so the test sees a failed turn rather than a hang.
 */
export function router(routes: Record<string, Route[]>): ScriptEntry {
  return async (body) => {
    const key = firstUserText(body);
    const next = routes[key]?.shift();
    if (!next) {
      return { httpError: { status: 400, body: { error: { message: `no scripted step left for ${key}`, type: 'invalid_request_error', code: 'script_exhausted', param: null } } } };
    }
    return typeof next === 'function' ? next(body) : next;
  };
}

/** `n` copies of the router entry, where n = the number of scripted steps. */
export function routedEntries(routes: Record<string, Route[]>): ScriptEntry[] {
  const total = Object.values(routes).reduce((n, q) => n + q.length, 0);
  const entry = router(routes);
  return Array.from({ length: total }, () => entry);
}

export async function waitFor<T>(fn: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > end) throw new Error('waitFor timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A result schema used across tests: {name: string, count: integer, tags: string[]}. */
export const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    count: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name', 'count', 'tags'],
  additionalProperties: false,
};
