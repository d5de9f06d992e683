/** How a turn's terminal event and its stored record correspond (pure helpers of the turn service). */
import type { TurnEvent } from '../runtime/events.js';
import type { RunTurnResult } from '../runtime/turn-types.js';
import type { TurnOutcome } from '../store/turn-store.js';
import type { TurnRecord } from './turn-service-types.js';

/** True for completed, failed and cancelled. */
export function isFinished(rec: TurnRecord): boolean {
  return rec.status === 'completed' || rec.status === 'failed' || rec.status === 'cancelled';
}

/** The terminal event for a runTurn result whose loop did not emit one. */
export function terminalFromResult(r: RunTurnResult): TurnEvent {
  if (r.status === 'completed') {
    return { type: 'turn.completed', output_text: r.outputText, stop_reason: r.stopReason ?? 'stop', steps: r.steps, usage: r.usage };
  }
  if (r.status === 'cancelled') return { type: 'turn.cancelled', calls: [] };
  return { type: 'turn.failed', error: r.error ?? { code: 'failed', message: 'turn failed' } };
}

/** The stored outcome a terminal event implies (other fields kept from `rec`). */
export function outcomeFromEvent(event: TurnEvent, rec: TurnRecord): TurnOutcome {
  const base: TurnOutcome = {
    status: 'failed',
    completed_at: new Date().toISOString(),
    output_text: rec.output_text,
    stop_reason: rec.stop_reason,
    steps: rec.steps,
    usage: rec.usage,
    error: rec.error,
    transcript: null,
  };
  if (event.type === 'turn.completed') {
    return { ...base, status: 'completed', output_text: event.output_text, stop_reason: event.stop_reason, steps: event.steps, usage: event.usage, error: null };
  }
  if (event.type === 'turn.failed') return { ...base, status: 'failed', error: event.error };
  return { ...base, status: 'cancelled' };
}

