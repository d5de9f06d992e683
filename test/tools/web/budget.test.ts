import { describe, expect, it } from 'vitest';
import { allocateBudget, clipHeadTail } from '../../../src/tools/web/budget.js';
import { extractContent, UnsupportedContentError } from '../../../src/tools/web/extract.js';

describe('sharing the character budget', () => {
  it('gives short pages all they need and splits the rest among the long ones', () => {
    expect(allocateBudget([100, 50_000, 80_000], 40_000)).toEqual([100, 19_950, 19_950]);
    expect(allocateBudget([10_000, 10_000], 40_000)).toEqual([10_000, 10_000]);
    expect(allocateBudget([30_000, 5_000, 30_000], 40_000)).toEqual([17_500, 5_000, 17_500]);
  });
});

describe('clipping a page to its share', () => {
  const text = Array.from({ length: 1000 }, (_, i) => `L${i + 1}`).join('\n');
  const marker = (o: { omittedChars: number; fromLine: number }) => `\n[omitted ${o.omittedChars} from line ${o.fromLine}]\n`;

  it('leaves text that fits alone', () => {
    expect(clipHeadTail('short', 10, marker)).toEqual({ text: 'short' });
  });

  it('keeps about three quarters head and one quarter tail, cut at line breaks, within the limit', () => {
    const out = clipHeadTail(text, 1000, marker);
    expect(out.text.length).toBeLessThanOrEqual(1000);
    const [head, tail] = out.text.split(/\n\[omitted \d+ from line \d+\]\n/);
    expect(head.startsWith('L1\nL2\n')).toBe(true);
    expect(tail.endsWith('L999\nL1000')).toBe(true);
    expect(head.length).toBeGreaterThan(tail.length * 2);
    const lastHeadLine = Number(head.split('\n').at(-1)!.slice(1));
    expect(out.omitted!.fromLine).toBe(lastHeadLine + 1);
    expect(tail.split('\n')[0]).toMatch(/^L\d+$/);
    expect(out.omitted!.omittedChars).toBe(text.length - head.length - 1 - tail.length);
  });
});

describe('recognizing content without a Content-Type', () => {
  it('sniffs HTML, accepts text, refuses binary', () => {
    const html = extractContent(Buffer.from('<!DOCTYPE html><html><head><title>Sniffed</title></head><body><p>Body text here.</p></body></html>'), '', 'http://x.example/');
    expect(html).toMatchObject({ kind: 'html', title: 'Sniffed' });
    expect(html.text).toContain('Body text here.');
    expect(extractContent(Buffer.from('just words'), '', 'http://x.example/')).toMatchObject({ kind: 'text', text: 'just words' });
    expect(() => extractContent(Buffer.from([0x25, 0x50, 0x44, 0x46, 0, 1, 2]), 'application/pdf', 'http://x.example/')).toThrow(
      new UnsupportedContentError('application/pdf'),
    );
    expect(() => extractContent(Buffer.from([1, 0, 2, 0]), '', 'http://x.example/')).toThrow(/unsupported content type \(none: binary data\)/);
  });
});
