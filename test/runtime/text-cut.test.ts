import { describe, expect, it } from 'vitest';
import { boundaryAtOrAfter, boundaryAtOrBefore, clip, keepHead, keepTail } from '../../src/runtime/text-cut.js';

const hasLoneSurrogate = (s: string) => /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);

describe('text cuts', () => {
  const astral = '😀'.repeat(10); // 20 UTF-16 units
  const family = '👨‍👩‍👧‍👦'; // one grapheme, 11 units
  const accented = 'e\u0301'; // é as e + combining acute

  it('never splits a surrogate pair at any cut length, head or tail', () => {
    for (let n = 0; n <= astral.length; n++) {
      const head = keepHead(astral, n);
      const tail = keepTail(astral, n);
      expect(hasLoneSurrogate(head), `head ${n}`).toBe(false);
      expect(hasLoneSurrogate(tail), `tail ${n}`).toBe(false);
      expect(head.length).toBeLessThanOrEqual(n);
      expect(tail.length).toBeLessThanOrEqual(n);
      expect(head.length).toBeGreaterThanOrEqual(n - 1);
    }
  });

  it('keeps emoji ZWJ sequences and combining marks whole', () => {
    const text = `ab${family}cd${accented}`;
    expect(keepHead(text, 5)).toBe('ab');
    expect(keepHead(text, 13)).toBe(`ab${family}`);
    expect(keepHead(text, 15)).toBe(`ab${family}cd`);
    expect(keepTail(text, 3)).toBe(`d${accented}`);
    expect(keepTail(text, 2)).toBe(accented);
    expect(keepTail(text, 1)).toBe('');
    expect(boundaryAtOrBefore(text, 7)).toBe(2);
    expect(boundaryAtOrAfter(text, 7)).toBe(13);
  });

  it('returns short text unchanged and appends the marker within the limit', () => {
    expect(keepHead('abc', 10)).toBe('abc');
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip(`x${astral}`, 4)).toBe('x😀…');
    expect(clip(`x${astral}`, 3)).toBe('x…');
    expect(clip('abc', 3)).toBe('abc');
  });

  it('falls back to code-point cuts inside a cluster longer than the search window', () => {
    const zalgo = 'a' + '\u0301'.repeat(200) + '😀';
    const cut = keepHead(zalgo, 100);
    expect(cut.length).toBe(100);
    expect(hasLoneSurrogate(keepHead(zalgo, zalgo.length - 1))).toBe(false);
  });
});

describe('byte-limited tails', () => {
  it('keeps the longest end within the UTF-8 byte limit without splitting a character', async () => {
    const { keepTailBytes } = await import('../../src/runtime/text-cut.js');
    expect(keepTailBytes('x😀😀', 5)).toBe('😀');
    expect(keepTailBytes('abc', 10)).toBe('abc');
    expect(keepTailBytes('aé😀', 6)).toBe('é😀');
    const long = 'ж'.repeat(5000) + '😀'.repeat(10);
    const tail = keepTailBytes(long, 2048);
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(2048);
    expect(Buffer.byteLength(tail)).toBeGreaterThan(2040);
    expect(tail.endsWith('😀'.repeat(10))).toBe(true);
  });
});
