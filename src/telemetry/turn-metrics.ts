/**
 * Turn and tool metrics derived from the stored turn events (src/runtime/events.ts) — not from
 * the loop's internals, so any runner that emits the typed events is measured the same way:
 * - `tool.started` → remembered (stream, call_id, time); `tool.completed` → `tool_calls_total`
 *   with outcome `ok` (not is_error), `cancelled` (the cancel outputs of src/runtime/dispatch.ts)
 *   or `error`, and `tool_duration_seconds` when a `tool.started` preceded it;
 * - a terminal event → `turns_total{status, stop_reason}` and `turn_duration_seconds` from the
 *   record's `started_at` (the record is finished before its terminal event is appended).
 */
import type { LoggedEvent } from '../store/event-log.js';
import { isTerminalEvent, type TurnEvent } from '../runtime/events.js';
import type { ServiceMetrics } from './metrics.js';

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
  const started = new Map<string, number>();
  return (logged: LoggedEvent): void => {
    const event = logged.event as TurnEvent;
    const key = `${logged.streamId}\u0000${'call_id' in event ? event.call_id : ''}`;
    if (event.type === 'tool.started') {
      started.set(key, Date.parse(logged.createdAt));
    } else if (event.type === 'tool.completed') {
      metrics.toolCalls.inc({ tool: event.name, outcome: toolOutcome(event) });
      const t0 = started.get(key);
      if (t0 !== undefined) {
        metrics.toolDuration.observe({ tool: event.name }, Math.max(0, Date.parse(logged.createdAt) - t0) / 1000);
        started.delete(key);
      }
    } else if (isTerminalEvent(event) && event.type in TERMINAL_STATUS) {
      const stopReason = event.type === 'turn.completed' ? event.stop_reason : 'none';
      metrics.turnsTotal.inc({ status: TERMINAL_STATUS[event.type], stop_reason: stopReason });
      const t0 = startedAt(logged.streamId);
      if (t0) metrics.turnDuration.observe(Math.max(0, Date.parse(logged.createdAt) - Date.parse(t0)) / 1000);
      for (const k of started.keys()) if (k.startsWith(`${logged.streamId}\u0000`)) started.delete(k);
    }
  };
}
