/**
 * An agent id (`agent_id` in bodies, queries and paths): 1 to 64 letters, digits, `_` or `-`. It
 * owns the computer home (`DATA_DIR/agents/<agent_id>/home`), schedules, workflows and brain pages.
 * A refusal shows the value sent, escaped, and the first character not allowed
 * (src/name-pattern.ts): `must be 1 to 64 characters — letters, digits, "_" and "-"
 * (^[A-Za-z0-9_-]{1,64}$) — got "no spaces": " " is not allowed`.
 */
import type { NamePattern } from './name-pattern.js';

/** The agent id rule, for {@link namePatternString} and {@link namePatternProblem} of src/name-pattern.ts. */
export const AGENT_ID_RULE: NamePattern = {
  pattern: /^[A-Za-z0-9_-]{1,64}$/,
  char: /[A-Za-z0-9_-]/,
  first: /[A-Za-z0-9_-]/,
  maxChars: 64,
  words: 'letters, digits, "_" and "-"',
};
