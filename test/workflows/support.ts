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

/** Every route registered by {@link routedEntries} in this test file, by first user message. */
const ROUTES = new Map<string, Route[]>();

/**
 * A script entry answering a request from the queue of its first user message, whichever test
 * registered it (entries are interchangeable, so one left over by a test cannot misroute another's
 * request). An unexpected request gets HTTP 400 (not retried): the test sees a failed turn, not a hang.
 */
const routedEntry: ScriptEntry = async (body) => {
  const key = firstUserText(body);
  const next = ROUTES.get(key)?.shift();
  if (!next) {
    return { httpError: { status: 400, body: { error: { message: `no scripted step left for ${key}`, type: 'invalid_request_error', code: 'script_exhausted', param: null } } } };
  }
  return typeof next === 'function' ? next(body) : next;
};

/** Register `routes` (prompt → steps in order) and return one script entry per step to push. */
export function routedEntries(routes: Record<string, Route[]>): ScriptEntry[] {
  let total = 0;
  for (const [prompt, steps] of Object.entries(routes)) {
    ROUTES.set(prompt, [...(ROUTES.get(prompt) ?? []), ...steps]);
    total += steps.length;
  }
  return Array.from({ length: total }, () => routedEntry);
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
