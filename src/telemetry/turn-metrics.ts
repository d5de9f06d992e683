/**
 * Turn and tool metrics derived from the stored turn events (src/runtime/events.ts) — not from
 * the loop's internals, so any runner that emits the typed events is measured the same way:
 * - `tool.started` → remembered (stream, call_id, time); `tool.completed` → `tool_calls_total`
 *   with outcome `ok` (not is_error), `cancelled` (the cancel outputs of src/runtime/dispatch.ts)
 *   or `error`, and `tool_duration_seconds` when a `tool.started` preceded it;
 * - the `tool` label is the call's name only when the tool is in the turn's tool set: named in
 *   the turn's `turn.started` `tools` or `deferred_tools` (seen by this process: so a call of a
 *   deferred tool, loaded or not, whose arguments did not validate keeps its name), or its
 *   `tool.started` carried parsed arguments (only a call that found its tool has them: a turn
 *   resumed after a restart); any other name — one the model made up — is `unknown`, so a
 *   model cannot add series at will;
 * - a terminal event → `turns_total{status, stop_reason}` and `turn_duration_seconds` from the
 *   record's `started_at` (the record is finished before its terminal event is appended);
 *   `turn.failed` also → `turn_failures_total{error_code}` ({@link errorCodeLabel}).
 */
import type { LoggedEvent } from '../store/event-log.js';
import { isTerminalEvent, type TurnEvent } from '../runtime/events.js';
import { errorCodeLabel, type ServiceMetrics } from './metrics.js';

const CANCELLED_OUTPUT = /^Error: the turn was cancelled (before|while) this tool call/;
const TERMINAL_STATUS: Record<string, string> = { 'turn.completed': 'completed', 'turn.failed': 'failed', 'turn.cancelled': 'cancelled' };

/** Outcome label of a `tool.completed` event. */
export function toolOutcome(event: { is_error: boolean; output: string }): 'ok' | 'error' | 'cancelled' {
  if (!event.is_error) return 'ok';
  return CANCELLED_OUTPUT.test(event.output) ? 'cancelled' : 'error';
}

/**
 * An event observer updating turn/tool metrics. `startedAt(turnId)` gives the record's
 * `started_at` (ISO) or null when the turn never ran.
 */
export function turnMetricsObserver(metrics: ServiceMetrics, startedAt: (turnId: string) => string | null | undefined) {
  /** Open calls by stream and call_id: when `tool.started` came, and whether the call found its tool. */
  const started = new Map<string, { at: number; found: boolean }>();
  /** The tool names of each turn's `turn.started`, until its terminal event. */
  const offered = new Map<string, Set<string>>();
  return (logged: LoggedEvent): void => {
    const event = logged.event as TurnEvent;
    const key = `${logged.streamId}\u0000${'call_id' in event ? event.call_id : ''}`;
    if (event.type === 'turn.started') {
      offered.set(logged.streamId, new Set([...event.tools, ...(event.deferred_tools ?? [])]));
    } else if (event.type === 'tool.started') {
      started.set(key, { at: Date.parse(logged.createdAt), found: event.arguments !== null && event.arguments !== undefined });
    } else if (event.type === 'tool.completed') {
      const start = started.get(key);
      const known = start?.found === true || offered.get(logged.streamId)?.has(event.name) === true;
      const tool = known ? event.name : 'unknown';
      metrics.toolCalls.inc({ tool, outcome: toolOutcome(event) });
      if (start !== undefined) {
        metrics.toolDuration.observe({ tool }, Math.max(0, Date.parse(logged.createdAt) - start.at) / 1000);
        started.delete(key);
      }
    } else if (isTerminalEvent(event) && event.type in TERMINAL_STATUS) {
      const stopReason = event.type === 'turn.completed' ? event.stop_reason : 'none';
      metrics.turnsTotal.inc({ status: TERMINAL_STATUS[event.type], stop_reason: stopReason });
      if (event.type === 'turn.failed') metrics.turnFailures.inc({ error_code: errorCodeLabel(event.error.code) });
      const t0 = startedAt(logged.streamId);
      if (t0) metrics.turnDuration.observe(Math.max(0, Date.parse(logged.createdAt) - Date.parse(t0)) / 1000);
      for (const k of started.keys()) if (k.startsWith(`${logged.streamId}\u0000`)) started.delete(k);
      offered.delete(logged.streamId);
    }
  };
}
