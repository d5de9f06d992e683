/**
 * Collects a command's output (stdout and stderr interleaved in arrival order) for the model:
 * UTF-8 decoded, ANSI escape sequences stripped, capped at `maxChars` characters keeping the head
 * (`headRatio`, default 40 %) and the tail (the rest) with a marker saying how much was omitted.
 *
 * The whole (stripped) output also goes to a private temporary file once it exceeds the cap, up to
 * `maxLogBytes` (the per-command "max output bytes collected" limit; later output is counted and
 * dropped). {@link OutputCapture.finish} copies that file into the agent home after the command
 * has ended (so no sandboxed process can race the copy) and returns its home-relative path.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { stripVTControlCharacters } from 'node:util';
import { resolveInHome, type ResolvedPath } from '../home.js';
import { openInHome } from '../home-fs.js';
import { boundaryAtOrBefore, keepTail } from '../../../runtime/text-cut.js';

/**
 * Copy the private file `from` to a new file at `target` in the home, race-safely (home-fs.ts:
 * O_NOFOLLOW walk, O_EXCL create, descriptor verified inside the home).
 */
async function copyIntoHome(from: string, target: ResolvedPath): Promise<void> {
  const src = await open(from, 'r');
  try {
    const dst = await openInHome(target, 'create', target.relative);
    try {
      const buf = Buffer.alloc(1024 * 1024);
      let pos = 0;
      for (;;) {
        const { bytesRead } = await src.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) break;
        let off = 0;
        while (off < bytesRead) off += (await dst.handle.write(buf, off, bytesRead - off, pos + off)).bytesWritten;
        pos += bytesRead;
      }
    } finally {
      await dst.handle.close();
    }
  } finally {
    await src.close();
  }
}

export interface OutputCaptureOptions {
  /** Characters the model sees at most (default 50 000). */
  maxChars?: number;
  /** Share of `maxChars` kept from the start (default 0.4). */
  headRatio?: number;
  /** Bytes of output kept in the log at most (default 64 MiB). */
  maxLogBytes?: number;
  /** Called with each piece of decoded, ANSI-stripped output as it arrives (live output). */
  onText?: (text: string) => void;
}

export interface CapturedOutput {
  /** What the model sees (capped, with the omission marker when capped). */
  text: string;
  /** Characters of (stripped) output in total. */
  totalChars: number;
  /** Characters left out of `text`. */
  omittedChars: number;
  /** Home-relative path of the full log, when anything was omitted. */
  logPath?: string;
  /** True when the output exceeded `maxLogBytes`, so even the log is incomplete. */
  logTruncated: boolean;
}

const LOG_DIR = '.command-logs';

export class OutputCapture {
  private readonly maxChars: number;
  private readonly headChars: number;
  private readonly tailChars: number;
  private readonly maxLogBytes: number;
  private readonly decoder = new StringDecoder('utf8');
  private carry = '';
  /** All output while it fits; after that, only the head. */
  private head = '';
  private tail = '';
  private total = 0;
  private capped = false;
  private logDir: Promise<string> | null = null;
  private log: WriteStream | null = null;
  private logBytes = 0;
  private logTruncated = false;
  private pending: string[] = [];
  private readonly onText?: (text: string) => void;

  constructor(opts: OutputCaptureOptions = {}) {
    this.onText = opts.onText;
    this.maxChars = opts.maxChars ?? 50_000;
    this.headChars = Math.floor(this.maxChars * (opts.headRatio ?? 0.4));
    this.tailChars = this.maxChars - this.headChars;
    this.maxLogBytes = opts.maxLogBytes ?? 64 * 1024 * 1024;
  }

  /** Add a chunk of raw output. */
  write(chunk: Buffer): void {
    let text = this.carry + this.decoder.write(chunk);
    // Keep a possibly unfinished escape sequence for the next chunk.
    const esc = text.lastIndexOf('\x1b');
    if (esc !== -1 && text.length - esc < 64) {
      this.carry = text.slice(esc);
      text = text.slice(0, esc);
    } else {
      this.carry = '';
    }
    this.append(stripVTControlCharacters(text));
  }

  private append(text: string): void {
    if (text === '') return;
    this.onText?.(text);
    this.total += text.length;
    if (!this.capped) {
      this.head += text;
      if (this.head.length <= this.maxChars) return;
      // Cap reached: start the log with everything so far, split head and tail.
      this.capped = true;
      this.openLog();
      this.toLog(this.head);
      const cut = boundaryAtOrBefore(this.head, this.headChars);
      this.tail = this.head.slice(cut);
      this.head = this.head.slice(0, cut);
    } else {
      this.toLog(text);
      this.tail += text;
    }
    if (this.tail.length > 2 * this.tailChars) this.tail = keepTail(this.tail, this.tailChars);
  }

  private openLog(): void {
    this.logDir = mkdtemp(path.join(os.tmpdir(), 'command-log-'));
    this.logDir.then(
      (dir) => {
        this.log = createWriteStream(path.join(dir, 'output.log'));
        for (const p of this.pending) this.log.write(p);
        this.pending = [];
      },
      () => undefined,
    );
  }

  private toLog(text: string): void {
    if (this.logTruncated) return;
    const bytes = Buffer.byteLength(text);
    if (this.logBytes + bytes > this.maxLogBytes) {
      this.logTruncated = true;
      text = `\n[log truncated: output exceeded ${this.maxLogBytes} bytes; the rest was dropped]\n`;
    }
    this.logBytes += bytes;
    if (this.log) this.log.write(text);
    else this.pending.push(text);
  }

  /**
   * Finish after the command has ended. When output was capped, the log is copied into
   * `home/.command-logs/<name>.log` (race-safe, see home-fs.ts) and the temporary file removed.
   * The caller holds the home lock exclusively (home-lock.ts).
   */
  async finish(home: string, name: string): Promise<CapturedOutput> {
    const rest = this.carry + this.decoder.end();
    this.carry = '';
    this.append(stripVTControlCharacters(rest));
    if (!this.capped) {
      return { text: this.head, totalChars: this.total, omittedChars: 0, logTruncated: false };
    }
    const tail = keepTail(this.tail, this.tailChars);
    const omitted = this.total - this.head.length - tail.length;
    let logPath: string | undefined;
    let logNote: string;
    let dir: string | undefined;
    try {
      dir = await this.logDir!;
      const log = this.log!;
      await new Promise<void>((resolve, reject) => log.end((err?: Error | null) => (err ? reject(err) : resolve())));
      const target = await resolveInHome(home, `${LOG_DIR}/${name}.log`);
      await copyIntoHome(path.join(dir, 'output.log'), target);
      logPath = target.relative;
      logNote = `full output saved to ${logPath}${this.logTruncated ? ` (first ${this.maxLogBytes} bytes only)` : ''}; read it with read_file or grep`;
    } catch (err) {
      logNote = `the full output could not be saved: ${(err as Error).message}`;
    } finally {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
    const marker = `\n\n[... ${omitted} characters omitted (output was ${this.total} characters); ${logNote} ...]\n\n`;
    return { text: this.head + marker + tail, totalChars: this.total, omittedChars: omitted, logPath, logTruncated: this.logTruncated };
  }
}
