/**
 * A turn's trace identity, fixed when the turn is created and stored with it (turns table,
 * `trace_id` and `trace_parent`): every run of the turn — also one after a restart — puts its
 * `invoke_agent` span into that trace.
 *
 * - With a valid W3C `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header) the
 *   turn joins the caller's trace: `trace_id` is the caller's and `trace_parent` the header (the
 *   `invoke_agent` span becomes a child of the caller's span).
 * - Without one (or with a malformed one, which is ignored as the spec asks) the turn starts its
 *   own trace: a random 16-byte `trace_id`, `trace_parent` null (`invoke_agent` is a root span).
 * The trace id is assigned also when tracing is off, so logs, records and events stay correlatable.
 */
import { randomBytes } from 'node:crypto';
import { ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import { parseTraceParent } from '@opentelemetry/core';

export interface TurnTrace {
  /** 32 lowercase hex digits. */
  trace_id: string;
  /** The caller's `traceparent` header value, or null for a root trace. */
  parent: string | null;
}

/** The trace of a new turn, from an optional `traceparent` header value. */
export function newTurnTrace(traceparent?: string | string[] | null): TurnTrace {
  const header = Array.isArray(traceparent) ? traceparent[0] : traceparent;
  const parsed = header ? parseTraceParent(header.trim()) : null;
  if (parsed) return { trace_id: parsed.traceId, parent: header!.trim() };
  return { trace_id: randomBytes(16).toString('hex'), parent: null };
}

/** The OpenTelemetry context holding a stored trace's remote parent (ROOT_CONTEXT for a root trace). */
export function parentContext(t: TurnTrace | null | undefined): Context {
  const parsed = t?.parent ? parseTraceParent(t.parent) : null;
  return parsed ? trace.setSpanContext(ROOT_CONTEXT, { ...parsed, isRemote: true }) : ROOT_CONTEXT;
}
