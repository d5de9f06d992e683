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
 * Read the SKILL_SECRETS file (`undefined` path → no secrets).
 * @throws Error naming the file when it cannot be read (`cause`: the file-system error).
 */
export async function loadSecrets(file: string | undefined): Promise<Secrets> {
  if (!file) return new Map();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`SKILL_SECRETS file ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  return new Map(Object.entries(parse(text)).filter(([, v]) => v !== ''));
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
