/**
 * The DOM caps and the plain-text fallback of page extraction: pages too deep or too large for
 * readability/turndown come back as plain text saying why, and the fallback scan stays linear on
 * markup built to make tag-matching regular expressions backtrack.
 */
import { describe, expect, it } from 'vitest';
import { extractContent, htmlToPlainText, MAX_DOM_DEPTH, MAX_DOM_NODES } from '../../../src/tools/web/extract.js';

const page = (body: string) => Buffer.from(`<!doctype html><html><head><title>T</title></head><body>${body}</body></html>`);

describe('page extraction limits', () => {
  it(`gives a page nested deeper than ${MAX_DOM_DEPTH} elements as plain text`, () => {
    const r = extractContent(page(`${'<div>'.repeat(2000)}deep text${'</div>'.repeat(2000)}`), 'text/html', 'http://x.example/');
    expect(r).toMatchObject({ kind: 'html', title: 'T', plainTextReason: `the page is nested deeper than ${MAX_DOM_DEPTH} elements` });
    expect(r.text).toContain('deep text');
  });

  it(`gives a page with more than ${MAX_DOM_NODES.toLocaleString('en-US')} nodes as plain text`, () => {
    const r = extractContent(page('<span>x</span>'.repeat(60_000)), 'text/html', 'http://x.example/');
    expect(r.plainTextReason).toBe('the page is more than 100,000 DOM nodes');
  });

  it('converts an ordinary page to Markdown without a plain-text reason', () => {
    const r = extractContent(page(`${'<div>'.repeat(50)}<h1>Head</h1><p>para</p>${'</div>'.repeat(50)}`), 'text/html', 'http://x.example/');
    expect(r.plainTextReason).toBeUndefined();
    expect(r.text).toContain('# Head');
  });

  it('plain text drops tags, comments, scripts and styles and decodes basic entities', () => {
    expect(htmlToPlainText('<p>a &amp; b</p><!-- c --><script>var x = "<p>";</script><style>p{}</style><div>d&lt;e</div>')).toBe('a & b\n\nd<e');
  });

  it('plain text of hostile markup (a million unclosed tags, comments, scripts) finishes', () => {
    for (const unit of ['<', '<a', '<!--', '<script>', '<p x="']) {
      const out = htmlToPlainText(unit.repeat(1_000_000 / unit.length) + 'end');
      expect(typeof out).toBe('string');
    }
  });
});
