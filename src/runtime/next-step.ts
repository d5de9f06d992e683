/**
 * Leaf module: what follows a round ({@link NextStep}) and what the event log says about a call
 * of a resumed round ({@link PriorCall}). Plain JSON (stored in checkpoints).
 */

/**
 * What to do after a round (after openai-agents-js's NextStep): run another round, or end the
 * turn. `waiting` (a pause at a checkpoint, e.g. an approval) is the seam for interruptions.
 */
export type NextStep =
  /**
   * `rebuildable`: everything the round added to the state after its mid-round checkpoint can be
   * rebuilt from that checkpoint and the event log — every call ran and succeeded, its
   * `tool.completed` output is exactly the transcript's `function_call_output` text, and nothing
   * else (approvals, repairs, refusals, tool search, custom calls) changed the state. The loop then
   * stores no checkpoint after the round; the next one (or the final one) carries its items.
   */
  | { type: 'run_again'; rebuildable?: boolean }
  /**
   * `ignoredTools`: the answer had no text, only calls to tools the request did not offer (not run);
   * their names, for the failure message (src/runtime/policies/answerless-end.ts).
   */
  | { type: 'completed'; stopReason: string; ignoredTools?: string[] }
  | { type: 'failed'; error: { code: string; message: string } }
  | { type: 'cancelled'; calls: { call_id: string; state: 'completed' | 'cancelled' | 'not_started' }[] }
  | { type: 'waiting'; reason: string };

/** What the event log says about a call of a resumed round (events stored before the crash). */
export type PriorCall =
  | { state: 'started' }
  | { state: 'completed'; output: string; isError: boolean; endsTurn?: { stopReason: string; outputText?: string } };

