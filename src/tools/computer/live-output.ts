/**
 * Live output of a running command as `tool.progress` events, throttled:
 * - at most one event per `intervalMs` (default 250 ms → at most 4 per second);
 * - each event's text at most `maxBytes` UTF-8 bytes (default 2 KiB); when more arrived within
 *   one interval, the event keeps the newest text and says how many characters it skipped (the
 *   final tool output still has all of it);
 * - text is already ANSI-stripped (sandbox/output-capture.ts); here it is scrubbed with `scrub`
 *   (the same secret redaction as the final output). The last `holdBack` characters wait for the
 *   next event (or the end), so a secret split across two chunks of output is still whole when
 *   it is scrubbed.
 * Event shape: `{message: <output text>, data: {kind: 'output', skipped_chars?: n}}`.
 */
import { boundaryAtOrBefore, keepTail, keepTailBytes } from '../../runtime/text-cut.js';
import type { ToolProgress } from '../../runtime/tool.js';

export interface LiveOutputOptions {
  emit: (progress: ToolProgress) => void;
  /** Redaction applied to the text before it is emitted (pure, never throws). */
  scrub?: (text: string) => string;
  /** Characters kept back until more output or the end (longest secret length − 1). */
  holdBack?: number;
  intervalMs?: number;
  maxBytes?: number;
}

/** Default minimum gap between two output events, ms. */
export const LIVE_OUTPUT_INTERVAL_MS = 250;
/** Default maximum text per output event, UTF-8 bytes. */
export const LIVE_OUTPUT_MAX_BYTES = 2048;

/** The longest suffix of `text` that fits `maxBytes` UTF-8 bytes, never splitting a character (text-cut.ts). */
export const utf8Tail = keepTailBytes;

export class LiveOutput {
  private pending = '';
  /** Characters dropped from `pending` to bound memory, reported with the next event. */
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastAt = -Infinity;
  private done = false;
  private readonly intervalMs: number;
  private readonly maxBytes: number;
  private readonly holdBack: number;

  constructor(private readonly o: LiveOutputOptions) {
    this.intervalMs = o.intervalMs ?? LIVE_OUTPUT_INTERVAL_MS;
    this.maxBytes = o.maxBytes ?? LIVE_OUTPUT_MAX_BYTES;
    this.holdBack = Math.max(0, o.holdBack ?? 0);
  }

  /** More output (any size); an event follows within `intervalMs`. */
  write(text: string): void {
    if (this.done || text === '') return;
    this.pending += text;
    // Bound memory: only the newest text can be shown; keep enough for one event plus the hold-back.
    const keep = this.maxBytes * 2 + this.holdBack + 64;
    if (this.pending.length > keep * 2) {
      const kept = keepTail(this.pending, keep);
      this.dropped += this.pending.length - kept.length;
      this.pending = kept;
    }
    this.schedule();
  }

  /** The command ended: send what is left now (if the rate allows), then stop. */
  finish(): void {
    if (this.done) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    if (performance.now() - this.lastAt >= this.intervalMs) this.flush(true);
    this.done = true;
    this.pending = '';
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastAt + this.intervalMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush(false);
      if (this.pending !== '' && !this.done) this.schedule();
    }, wait);
  }

  private flush(final: boolean): void {
    if (this.pending === '') return;
    const scrubbed = this.o.scrub ? this.o.scrub(this.pending) : this.pending;
    const cut = final ? scrubbed.length : boundaryAtOrBefore(scrubbed, scrubbed.length - this.holdBack);
    if (cut <= 0) {
      this.pending = scrubbed;
      return;
    }
    const piece = scrubbed.slice(0, cut);
    this.pending = scrubbed.slice(cut);
    const shown = utf8Tail(piece, this.maxBytes);
    const skipped = piece.length - shown.length + this.dropped;
    this.dropped = 0;
    this.lastAt = performance.now();
    this.o.emit({ message: shown, data: skipped > 0 ? { kind: 'output', skipped_chars: skipped } : { kind: 'output' } });
  }
}
