/**
 * Circuit breaker against tool-call loops: the same call (same tool identity, same raw
 * arguments) failing with the same output 3 times in one turn makes the third output say so,
 * and the tool is refused for the rest of the turn.
 */
export const CIRCUIT_BREAKER_THRESHOLD = 3;

/** The breaker's state as plain JSON (kept in the turn state, so it survives a restart). */
export interface CircuitBreakerSnapshot {
  failures: [string, { output: string; count: number }][];
  refused: string[];
}

export class CircuitBreaker {
  private readonly failures = new Map<string, { output: string; count: number }>();
  private readonly refused = new Set<string>();

  constructor(snapshot?: CircuitBreakerSnapshot) {
    for (const [k, v] of snapshot?.failures ?? []) this.failures.set(k, { ...v });
    for (const r of snapshot?.refused ?? []) this.refused.add(r);
  }

  /** The current state as JSON (see {@link CircuitBreakerSnapshot}). */
  snapshot(): CircuitBreakerSnapshot {
    return { failures: [...this.failures].map(([k, v]) => [k, { ...v }]), refused: [...this.refused] };
  }

  /** True when `identity` was refused earlier in this turn. */
  isRefused(identity: string): boolean {
    return this.refused.has(identity);
  }

  /**
   * Record a failed call; returns the output to send (the original, or with the refusal note
   * appended when this is the threshold-th identical failure).
   */
  recordFailure(identity: string, rawArguments: string, output: string): string {
    const key = `${identity}\u0000${rawArguments}`;
    const prev = this.failures.get(key);
    const count = prev && prev.output === output ? prev.count + 1 : 1;
    this.failures.set(key, { output, count });
    if (count < CIRCUIT_BREAKER_THRESHOLD) return output;
    this.refused.add(identity);
    return `${output}\nThis identical call has now failed the same way ${count} times in this turn, so ${identity} is refused for the rest of the turn. Do not retry it; use another approach or answer with what you have.`;
  }

  /** Output for a call to a refused tool. */
  refusal(identity: string): string {
    return `Error: tool ${identity} is refused for the rest of this turn after ${CIRCUIT_BREAKER_THRESHOLD} identical failures. Use another approach or answer with what you have.`;
  }
}
