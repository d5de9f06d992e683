/**
 * Repeated identical calls: a model that makes the same call (same tool identity, same
 * arguments) again and again after getting the same result is stuck. After
 * {@link REPEAT_LIMIT} identical calls in a row that returned the identical result, the next
 * identical call is not run: it is answered with an `Error:` saying it repeats and what the last
 * result was ({@link repeatedCallMessage}), and so is every further identical call in a row.
 *
 * "Identical arguments" compares the arguments as JSON values (key order and whitespace do not
 * matter); arguments that are not JSON compare as trimmed text. "In a row" follows the order of
 * the calls in the model's responses, across rounds; any other call (or a different result)
 * starts a new streak. Pure: the streak is plain JSON kept in the turn state.
 */

/** Identical calls with identical results that run before the next identical one is refused. */
export const REPEAT_LIMIT = 3;

/** Longest part of the last result quoted in the refusal, characters. */
const MAX_QUOTED = 2_000;

/** The current run of identical calls (JSON, checkpointable). */
export interface RepeatStreak {
  /** {@link callKey} of the repeated call. */
  key: string;
  /** The tool identity (for messages). */
  identity: string;
  /** The output every call of the streak returned. */
  output: string;
  /** Calls in the streak that ran and returned `output`. */
  count: number;
}

/** A call as the policy sees it. */
export interface RepeatCall {
  identity: string;
  /** Raw arguments text. */
  arguments: string;
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}

/** The key two identical calls share: identity + canonical JSON of the arguments. */
export function callKey(call: RepeatCall): string {
  let args: string;
  try {
    args = JSON.stringify(canonical(JSON.parse(call.arguments)));
  } catch {
    args = call.arguments.trim();
  }
  return `${call.identity}\u0000${args}`;
}

/** The `Error:` output of a refused repeat. */
export function repeatedCallMessage(streak: RepeatStreak): string {
  const last = streak.output.length > MAX_QUOTED ? `${streak.output.slice(0, MAX_QUOTED)}… [cut]` : streak.output;
  return (
    `Error: this call repeats the previous ${streak.count} calls exactly (same tool ${streak.identity}, same arguments), ` +
    `which all returned the same result, so it was not run again. Do not repeat it: change the arguments, ` +
    `use another tool, or answer with what you have.\nThe last result was:\n${last}`
  );
}

/**
 * Which calls of a round to refuse, given the streak before the round.
 * @returns one entry per call: the refusal text, or undefined (run it).
 */
export function decideRepeats(streak: RepeatStreak | undefined, calls: readonly RepeatCall[]): (string | undefined)[] {
  if (!streak || streak.count < REPEAT_LIMIT) return calls.map(() => undefined);
  const message = repeatedCallMessage(streak);
  // Refuse the identical calls at the start of the round; once another call comes, the row is broken.
  const out: (string | undefined)[] = [];
  let inRow = true;
  for (const call of calls) {
    inRow = inRow && callKey(call) === streak.key;
    out.push(inRow ? message : undefined);
  }
  return out;
}

/**
 * The streak after a round, from its calls in order and what each returned (`refused` for calls
 * answered by {@link decideRepeats}: they keep the streak as it was).
 */
export function advanceStreak(
  streak: RepeatStreak | undefined,
  calls: readonly RepeatCall[],
  outputs: readonly { output: string; refused: boolean }[],
): RepeatStreak | undefined {
  let s = streak;
  calls.forEach((call, i) => {
    const o = outputs[i];
    if (!o || o.refused) return;
    const key = callKey(call);
    s = s && s.key === key && s.output === o.output ? { ...s, count: s.count + 1 } : { key, identity: call.identity, output: o.output, count: 1 };
  });
  return s;
}
