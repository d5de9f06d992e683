/**
 * The SKILL_SECRETS values of one turn run: every reader of the turn (the environment of each
 * command of a skill with MCP servers, src/tools/computer/family.ts; the redaction of the turn's
 * tool results, src/tools/skills/index.ts) reads through the same {@link TurnSecrets}, which keeps
 * every value any of those reads returned. A tool result is redacted with all of them, so a value
 * rotated out of the file during the turn still reads `[redacted:NAME]` where a command of the turn
 * wrote it (a file, then `read_file`), and a value rotated in is redacted from the first result
 * after the rotation — not only in the output of the command that held it. The turn's model
 * requests pass the same values to the cleaning of their errors ({@link withTurnSecrets}), so a
 * provider error echoing a value rotated out during the turn is scrubbed as well.
 */
import type { TurnContext } from '../assembly/context.js';
import { readSkillSecrets } from '../assembly/services.js';
import type { ModelPort } from '../model/port.js';
import type { Secrets } from './secrets.js';

/** The values one turn run has seen, and reads of the current ones that add to them. */
export class TurnSecrets {
  /** value → name, every value a read returned (the last name it had). */
  private readonly seen = new Map<string, string>();

  /** @param readNow the values now (a service's SkillSecrets, or the file as it is). */
  constructor(private readonly readNow: () => Promise<Secrets>) {}

  /**
   * The values now, also kept for {@link values}.
   * @throws as `readNow` (src/skills/secrets.ts loadSecrets when there are no values to fall back on).
   */
  async read(): Promise<Secrets> {
    const secrets = await this.readNow();
    for (const [name, value] of secrets) this.seen.set(value, name);
    return secrets;
  }

  /** Every value a {@link read} of this turn returned, as `[name, value]` pairs (for redactSecrets). */
  values(): [name: string, value: string][] {
    return [...this.seen].map(([value, name]) => [name, value]);
  }
}

const perTurn = new WeakMap<TurnContext, TurnSecrets>();

/**
 * The {@link TurnSecrets} of `ctx` (one per TurnContext — a turn run assembles its tools once with
 * one context — made on first use), reading `ctx.services`' SkillSecrets or else the file
 * `ctx.config.SKILL_SECRETS` as it is at each read.
 */
export function turnSecrets(ctx: TurnContext): TurnSecrets {
  let t = perTurn.get(ctx);
  if (!t) perTurn.set(ctx, (t = new TurnSecrets(() => readSkillSecrets(ctx.services, ctx.config.SKILL_SECRETS))));
  return t;
}

/**
 * `port` whose requests give the cleaning of their errors (src/model/clean-errors.ts, which the
 * service wraps every model client in) every value `secrets` has seen, as `options.secrets`
 * (src/model/port.ts ModelStreamOptions): with the values the file holds when the error is cleaned,
 * which that cleaning reads itself, a provider error of the turn is scrubbed of the current values
 * and of every one the turn saw before a rotation — the same set that redacts its tool results.
 * Other stream options are passed on.
 */
export function withTurnSecrets(port: ModelPort, secrets: TurnSecrets): ModelPort {
  return {
    endpoint: port.endpoint,
    stream: (request, signal, options) => port.stream(request, signal, { ...options, secrets: () => secrets.values().map(([name, value]) => ({ name, value })) }),
  };
}
