/**
 * What a `clarify` call does to its turn — a policy the turn's kind (or a service) chooses:
 * - `end_turn` (main and scheduled turns; background job turns with their own output): the turn
 *   ends after this round with stop reason `clarify` and the question as its `output_text`; the
 *   answer arrives as the next turn (`previous_turn_id`).
 * - `continue`: the turn goes on; `onAsked` records the question (e.g. a background job marks
 *   itself waiting for the user) and returns the text the model sees as the call's output. The
 *   answer then arrives as a steering message (src/turns/inputs/).
 *
 * A service picks the policy for a turn with `ServiceRegistry.clarifyPolicy(turn)`; when it returns
 * undefined (or is absent), {@link defaultClarifyPolicy} applies.
 */
import type { TurnKind } from '../../turns/turn-kinds.js';

/** The facts about a turn a policy may look at (a leaf shape: no assembly types here). */
export interface ClarifyTurn {
  turnId: string;
  agentId: string;
  kind: TurnKind;
}

/** One choice offered with a question, as clients get it. */
export interface ClarifyChoice {
  /** ≤ 200 characters. */
  label: string;
  /** ≤ 500 characters. */
  description?: string;
}

/** A question to the user (validated: question 1..2000 characters, ≤ 4 choices). */
export interface ClarifyQuestion {
  question: string;
  choices: ClarifyChoice[];
}

export type ClarifyPolicy =
  | {
      type: 'end_turn';
      /**
       * The call's output for the model, when what happens to the question differs from "shown to
       * the user" (default: `ASKED_OUTPUT` of ./clarify-tool.ts; a throw keeps the default).
       */
      output?(question: ClarifyQuestion, turn: ClarifyTurn): Promise<string>;
    }
  | {
      type: 'continue';
      /**
       * Record the question; returns the call's output for the model. A throw becomes the call's
       * `Error:` output (the turn goes on).
       */
      onAsked(question: ClarifyQuestion, turn: ClarifyTurn): Promise<string>;
    };

/** Resolves the policy of one turn (a service's override); undefined → the default. */
export type ClarifyPolicyResolver = (turn: ClarifyTurn) => ClarifyPolicy | undefined;

/** `end_turn` for every kind that has the clarify family. */
export function defaultClarifyPolicy(_turn: ClarifyTurn): ClarifyPolicy {
  return { type: 'end_turn' };
}

/** The policy of `turn`: `resolver` (a service's override) first, then the default. */
export function clarifyPolicyFor(turn: ClarifyTurn, resolver: ClarifyPolicyResolver | undefined): ClarifyPolicy {
  return resolver?.(turn) ?? defaultClarifyPolicy(turn);
}
