/**
 * Skill secrets: SKILL_SECRETS is the path of a dotenv-format file on the server (`NAME=value`
 * lines; `#` comments, quotes and `export ` prefixes as dotenv parses them). Values are handed to
 * a sandboxed command only through its environment (never argv, never the mcporter config, which
 * holds `${NAME}` placeholders), and every value is replaced by `[redacted:NAME]` wherever a tool
 * result, a progress message or an error would carry it ({@link redactSecrets}).
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'dotenv';

/** Secret name → value. Empty values are dropped (nothing to redact, nothing to resolve). */
export type Secrets = Map<string, string>;

/**
 * The fewest characters a SKILL_SECRETS value may have. Every value is replaced by
 * `[redacted:NAME]` in command outputs: a short one (`abc`) matches inside ordinary words, garbles
 * every output and gives itself away by where the replacements fall. Kept at or above
 * MIN_SECRET_CHARS (6, src/model/provider-text.ts: shorter values are not scrubbed from provider
 * errors), so every accepted value is scrubbed there too (test/skills/skill-secrets.test.ts checks it).
 */
export const MIN_SKILL_SECRET_CHARS = 8;

/** A SKILL_SECRETS file holding values shorter than {@link MIN_SKILL_SECRET_CHARS} (named, never shown). */
export class ShortSecretError extends Error {
  constructor(
    readonly file: string,
    /** The names whose values are too short, with their lengths in characters. */
    readonly short: { name: string; length: number }[],
  ) {
    const list = short.map((s) => `${s.name} (${s.length} character${s.length === 1 ? '' : 's'})`).join(', ');
    const names = short.map((s) => s.name).join(', ');
    const one = short.length === 1;
    super(
      `the value${one ? '' : 's'} of ${list} ${one ? 'is' : 'are'} shorter than ${MIN_SKILL_SECRET_CHARS} characters, the minimum for a secret ` +
        `(a shorter value would be replaced inside every command output and give itself away by the pattern); use ${one ? 'a longer value' : 'longer values'} or remove ${names}`,
    );
    this.name = 'ShortSecretError';
  }
}

/**
 * Read the SKILL_SECRETS file (`undefined` path → no secrets).
 * @throws Error naming the file when it cannot be read (`cause`: the file-system error);
 *   {@link ShortSecretError} (message prefixed by the file) when a value is shorter than
 *   {@link MIN_SKILL_SECRET_CHARS} — the whole file is refused, nothing of it is used.
 */
export async function loadSecrets(file: string | undefined): Promise<Secrets> {
  if (!file) return new Map();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`SKILL_SECRETS file ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  const secrets = new Map(Object.entries(parse(text)).filter(([, v]) => v !== ''));
  const short = [...secrets].filter(([, v]) => [...v].length < MIN_SKILL_SECRET_CHARS).map(([name, v]) => ({ name, length: [...v].length }));
  if (short.length > 0) {
    const err = new ShortSecretError(file, short);
    err.message = `SKILL_SECRETS file ${file}: ${err.message}`;
    throw err;
  }
  return secrets;
}

/**
 * `text` with every secret value replaced by `[redacted:NAME]` (longest values first, so a value
 * that contains another is replaced whole). `secrets`: a {@link Secrets} map, or any `[name, value]`
 * pairs (a name may repeat, e.g. several AUTH_TOKENS).
 */
export function redactSecrets(text: string, secrets: Iterable<readonly [name: string, value: string]>): string {
  if (text === '') return text;
  let out = text;
  const byLength = [...secrets].sort((a, b) => b[1].length - a[1].length);
  for (const [name, value] of byLength) if (out.includes(value)) out = out.split(value).join(`[redacted:${name}]`);
  return out;
}
