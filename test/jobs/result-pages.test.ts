/** Result pages: segments of at most 8,000 UTF-8 bytes that never split a character and concatenate to the exact text. */
import { describe, expect, it } from 'vitest';
import { RESULT_PAGE_BYTES, resultPage } from '../../src/jobs/result-pages.js';

function allPages(text: string, maxBytes?: number) {
  const pages = [];
  for (let offset: number | null = 0; offset !== null; ) {
    const p = resultPage(text, offset, maxBytes);
    pages.push(p);
    offset = p.next_offset;
  }
  return pages;
}

describe('job result pages', () => {
  it('concatenate to the exact text, each within the byte budget, for multi-byte text', () => {
    const text = 'Résumé ✓ 日本語 🧪🏳️‍🌈 '.repeat(900) + 'end';
    const pages = allPages(text);
    expect(pages.length).toBeGreaterThan(2);
    expect(pages.map((p) => p.output_text).join('')).toBe(text);
    for (const p of pages) expect(Buffer.byteLength(p.output_text, 'utf8')).toBeLessThanOrEqual(RESULT_PAGE_BYTES);
    expect(pages.at(-1)!.next_offset).toBeNull();
    expect(pages.every((p) => !p.output_text.includes('\uFFFD'))).toBe(true);
  });

  it('backs off to a character boundary instead of splitting a 4-byte character', () => {
    const text = 'ab' + '🧪'.repeat(10);
    const [first, second] = allPages(text, 5);
    expect(first).toEqual({ offset: 0, output_text: 'ab', next_offset: 2 });
    expect(second.output_text).toBe('🧪');
  });

  it('gives an empty last page for an empty result and refuses offsets past the end or inside a character', () => {
    expect(resultPage('', 0)).toEqual({ offset: 0, output_text: '', next_offset: null });
    expect(() => resultPage('abc', 4)).toThrow(/past the end/);
    expect(() => resultPage('é', 1)).toThrow(/inside a character/);
  });
});
