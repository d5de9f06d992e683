/**
 * Skill secrets: SKILL_SECRETS is the path of a dotenv-format file on the server (`NAME=value`
 * lines, NAME an environment variable name of either case as in an env file,
 * `[A-Za-z_][A-Za-z0-9_]*`; `#` comments, quotes and `export ` prefixes as dotenv parses them; a
 * line without `=`, such as a token pasted alone, refuses the file: {@link loadSecrets}). Values are handed to
 * a sandboxed command only through its environment (never argv, never the mcporter config, which
 * holds `${NAME}` placeholders), and every value is replaced by `[redacted:NAME]` wherever a tool
 * result, a progress message or an error would carry it ({@link redactSecrets}).
 */
import { readFile, stat } from 'node:fs/promises';
import { parse } from 'dotenv';

/** Secret name → value (never empty nor white space only: such a value refuses the file, {@link MalformedSecretsError}). */
export type Secrets = Map<string, string>;

/**
 * The fewest characters a SKILL_SECRETS value may have. Every value is replaced by
 * `[redacted:NAME]` in command outputs: a short one (`abc`) matches inside ordinary words, garbles
 * every output and gives itself away by where the replacements fall. Kept at or above
 * MIN_SECRET_CHARS (6, src/model/provider-text.ts: shorter values are not scrubbed from provider
 * errors), so every accepted value is scrubbed there too (test/skills/skill-secrets.test.ts checks it).
 */
export const MIN_SKILL_SECRET_CHARS = 8;

/**
 * Whether a message may show a SKILL_SECRETS setting's name: only a conventional variable name,
 * which cannot plausibly be a secret — upper-case letters, digits and `_`, starting with a letter,
 * at most {@link SHOWN_NAME_MAX_CHARS} characters — and only when the text after its `=` neither is
 * empty nor starts with `=`: a base64 or base32 token pasted without `NAME=` ends in `=` padding,
 * which would otherwise split it into a "name" (the token) and an empty value or a value of `=`.
 * Any other setting is named by its line number only.
 * @param name the name as read from the line.
 * @param rest the line's text after the first `=` (undefined: not known, e.g. a value read before).
 */
export function nameMayBeShown(name: string, rest: string | undefined): boolean {
  if (name.length > SHOWN_NAME_MAX_CHARS || !/^[A-Z][A-Z0-9_]*$/.test(name)) return false;
  if (rest === undefined) return true;
  const t = rest.trim();
  return t !== '' && !t.startsWith('=');
}

/** The longest SKILL_SECRETS name a message may show ({@link nameMayBeShown}). */
export const SHOWN_NAME_MAX_CHARS = 64;

/** A setting whose value is too short: its line, its length, and its name when {@link nameMayBeShown} allows. */
export interface ShortSetting {
  /** The setting's line (its last one, the one dotenv keeps); undefined when not found. */
  line?: number;
  /** Set only when the name may be shown. */
  name?: string;
  /** The value's length in characters. */
  length: number;
}

/** How a message names a setting: its name when it may be shown, else its line. */
function settingLabel(s: { name?: string; line?: number }): string {
  return s.name ?? (s.line !== undefined ? `line ${s.line}` : 'a setting');
}

/**
 * A SKILL_SECRETS file holding values shorter than {@link MIN_SKILL_SECRET_CHARS}: each named by
 * its name when {@link nameMayBeShown}, else by its line number; a value is never shown.
 */
export class ShortSecretError extends Error {
  constructor(
    readonly file: string,
    /** The settings whose values are too short. */
    readonly short: ShortSetting[],
  ) {
    const one = short.length === 1;
    const list = short
      .map((s) => `${s.name !== undefined ? s.name : `the setting on ${settingLabel(s)}`} (${s.length} character${s.length === 1 ? '' : 's'})`)
      .join(', ');
    const names = short.map(settingLabel).join(', ');
    super(
      `the value${one ? '' : 's'} of ${list} ${one ? 'is' : 'are'} shorter than ${MIN_SKILL_SECRET_CHARS} characters, the minimum for a secret ` +
        `(a shorter value would be replaced inside every command output and give itself away by the pattern); use ${one ? 'a longer value' : 'longer values'} or remove ${names}`,
    );
    this.name = 'ShortSecretError';
  }
}

/**
 * A SKILL_SECRETS file with lines that are no `NAME=value` setting: a line without `=`, a name that
 * is not an environment variable name, or an empty value. Each problem names its line number only:
 * no line, no part of one and no value is ever shown (a malformed line may be a secret).
 */
export class MalformedSecretsError extends Error {
  constructor(
    readonly file: string,
    /** One phrase per problem, in line order, e.g. `line 3 is not NAME=value`. */
    readonly problems: string[],
  ) {
    const one = problems.length === 1;
    super(
      `${problems.join('; ')}; ${one ? 'fix or remove that line' : 'fix or remove those lines'} (each line is NAME=value with NAME an environment variable name — letters, digits and _, not starting with a digit — and a value; blank lines and # comments are allowed)`,
    );
    this.name = 'MalformedSecretsError';
  }
}

/** An environment variable name, as a command's environment and an env file take it (either case: `vault_token` too). */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The lines of a dotenv text that are no setting (see {@link MalformedSecretsError}), and the line
 * of each name (its last one, the one dotenv keeps) with the text after its `=`. Blank lines, `#` comments, `export ` prefixes
 * and quoted values — also one spanning lines, as dotenv reads it — are allowed.
 */
function scanLines(text: string): { problems: { line: number; text: string }[]; lineOf: Map<string, { line: number; rest: string }> } {
  const lines = text.split(/\r\n|\r|\n/);
  const problems: { line: number; text: string }[] = [];
  const lineOf = new Map<string, { line: number; rest: string }>();
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const trimmed = lines[i].trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const m = /^\s*(?:export\s+)?([^=]*?)\s*=(.*)$/.exec(lines[i]);
    if (!m) {
      problems.push({ line: n, text: `line ${n} is not NAME=value (it has no =)` });
      continue;
    }
    const name = m[1];
    if (!ENV_NAME.test(name)) {
      // Never quoted: such a "name" may be a pasted secret (`API_KEY: sk-live-…=x`).
      problems.push({ line: n, text: name === '' ? `line ${n} has an empty name` : `line ${n}: its name is not an environment variable name` });
    } else {
      lineOf.set(name, { line: n, rest: m[2] });
    }
    // A quoted value that does not close on its line goes on to the line that closes it.
    const value = m[2].trimStart();
    const quote = value[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      const closes = (t: string) => (quote === '"' ? /(^|[^\\])"/.test(t) : t.includes(quote));
      if (!closes(value.slice(1))) {
        let j = i + 1;
        while (j < lines.length && !closes(lines[j])) j++;
        if (j < lines.length) i = j;
      }
    }
  }
  return { problems, lineOf };
}

/**
 * Read the SKILL_SECRETS file (`undefined` path → no secrets).
 * @throws Error naming the file when it cannot be read (`cause`: the file-system error);
 *   {@link MalformedSecretsError} (message prefixed by the file) when a line is no `NAME=value`
 *   setting with an environment variable name and a value;
 *   {@link ShortSecretError} (message prefixed by the file) when a value is shorter than
 *   {@link MIN_SKILL_SECRET_CHARS} — the whole file is refused, nothing of it is used. A message
 *   names a setting by its line number, and by its name only when {@link nameMayBeShown}; it
 *   never quotes a line, a part of one, or a value.
 */
export async function loadSecrets(file: string | undefined): Promise<Secrets> {
  if (!file) return new Map();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`SKILL_SECRETS file ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
  }
  const { problems, lineOf } = scanLines(text);
  const parsed = parse(text);
  for (const [name, value] of Object.entries(parsed)) {
    const at = lineOf.get(name);
    if (value.trim() === '' && at !== undefined) {
      const who = nameMayBeShown(name, at.rest) ? `line ${at.line}: ${name} has` : `line ${at.line} has`;
      problems.push({ line: at.line, text: `${who} an empty value${value === '' ? '' : ' (only white space)'}` });
    }
  }
  if (problems.length > 0) {
    const err = new MalformedSecretsError(file, problems.sort((a, b) => a.line - b.line).map((p) => p.text));
    err.message = `SKILL_SECRETS file ${file}: ${err.message}`;
    throw err;
  }
  const secrets = new Map(Object.entries(parsed).filter(([, v]) => v !== ''));
  const short: ShortSetting[] = [...secrets]
    .filter(([, v]) => [...v].length < MIN_SKILL_SECRET_CHARS)
    .map(([name, v]) => {
      const at = lineOf.get(name);
      return {
        ...(at ? { line: at.line } : {}),
        ...(at && nameMayBeShown(name, at.rest) ? { name } : {}),
        length: [...v].length,
      };
    });
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

/** Where {@link SkillSecrets} says that a file was refused or is valid again (the service logger). */
export interface SecretsLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/**
 * The SKILL_SECRETS values of one service, looked up again at every use (the file is read again
 * when it changed, {@link SkillSecrets.read}) so an edit applies without a restart — and a bad edit
 * never half-applies. Every reader (the environment of a command of a
 * skill with MCP servers, src/skills/command-setup.ts; the redaction of a turn's tool results,
 * src/tools/skills/index.ts; the scrubbing of model errors, src/services.ts) gets the same values:
 * those of the last file {@link loadSecrets} accepted. A file it refuses (unreadable, a malformed
 * line, a value under {@link MIN_SKILL_SECRET_CHARS}) changes nothing: the previous values stay in
 * use everywhere, and the log says so once per refusal (warn, `{file}`): `SKILL_SECRETS file
 * <path>: <why>; the file is refused and the values read before (<names>: those {@link nameMayBeShown}
 * allows, the others counted) stay in use — … — until
 * it is fixed` — as nginx keeps its configuration when a reload is refused. The file valid again: info `SKILL_SECRETS file is valid
 * again: its values are used`. The start (src/skills/startup-paths.ts, through the first
 * {@link SkillSecrets.read} of the service's instance) refuses a bad file, so a
 * running service always has values to keep; before its first good read {@link read} throws the
 * refusal instead (a command is then refused, README "Skills").
 */
export class SkillSecrets {
  private lastGood: Secrets | undefined;
  /** The message of the refusal last logged (logged again only when it changes). */
  private refused: string | undefined;
  /** The file as it was at the last read (inode, size, times), and whether that may be trusted to say "unchanged". */
  private lastStat: { key: string; settled: boolean } | undefined;

  /** @param file SKILL_SECRETS, resolved (undefined: no secrets). */
  constructor(
    readonly file: string | undefined,
    private readonly log?: SecretsLog,
  ) {}

  /**
   * The values now: the file's when {@link loadSecrets} accepts it, else the last accepted ones.
   * The file is read again only when it changed since the last read (device, inode, size,
   * modification or change time differ) — or when that read came less than
   * {@link SETTLE_MS} after the file's last change, since a write within the same tick of the
   * file system's clock may leave all of those unchanged.
   * @throws the refusal of {@link loadSecrets} when no version of the file was accepted yet.
   */
  async read(): Promise<Secrets> {
    if (!this.file) return new Map();
    const now = Date.now();
    const st = await stat(this.file).catch(() => undefined);
    const key = st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : undefined;
    if (key !== undefined && this.lastGood && this.lastStat?.settled && this.lastStat.key === key) return this.lastGood;
    this.lastStat = key !== undefined && st ? { key, settled: now - Math.max(st.mtimeMs, st.ctimeMs) > SETTLE_MS } : undefined;
    try {
      const secrets = await loadSecrets(this.file);
      if (this.refused !== undefined) this.log?.info({ file: this.file }, 'SKILL_SECRETS file is valid again: its values are used');
      this.refused = undefined;
      this.lastGood = secrets;
      return secrets;
    } catch (err) {
      if (!this.lastGood) throw err;
      const why = (err as Error).message;
      if (why !== this.refused) {
        this.refused = why;
        this.log?.warn(
          { file: this.file },
          `${why}; the file is refused and the values read before (${shownNames(this.lastGood)}) stay in use — in the commands of skills with MCP servers and hidden in tool results and errors — until it is fixed`,
        );
      }
      return this.lastGood;
    }
  }
}

/**
 * How long after a change of the SKILL_SECRETS file {@link SkillSecrets} keeps reading it at every
 * use (file-system times move in ticks of up to a second or two, so a second write within the
 * tick of the first could leave size and times as they were).
 */
export const SETTLE_MS = 2_000;

/** The names of `secrets` a log line may show ({@link nameMayBeShown}), the others counted. */
function shownNames(secrets: Secrets): string {
  const names = [...secrets].filter(([name, value]) => nameMayBeShown(name, value)).map(([name]) => name);
  const hidden = secrets.size - names.length;
  if (hidden > 0) names.push(`${hidden} setting${hidden === 1 ? '' : 's'} whose name is not shown`);
  return names.join(', ') || 'none';
}
