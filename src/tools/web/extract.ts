/**
 * Response body → text the model reads.
 * - HTML (`text/html`, `application/xhtml+xml`): parsed with linkedom, main content picked by
 *   @mozilla/readability (whole body when readability finds no article), converted to Markdown by
 *   turndown; links and images made absolute against the page URL.
 * - Plain text (`text/*`) passed through; JSON (`application/json`, `*+json`) passed through,
 *   re-indented when it parses so that line offsets are useful.
 * - Anything else is refused, naming the content type.
 * Charset: the Content-Type `charset` parameter, else an HTML `<meta charset>`, else UTF-8.
 */
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** Readable content of one response. */
export interface ExtractedContent {
  kind: 'html' | 'text' | 'json';
  /** Page title (HTML `<title>` or readability's), null when none. */
  title: string | null;
  text: string;
}

/** The body's type is not one web_fetch reads; message names the type. */
export class UnsupportedContentError extends Error {
  constructor(public readonly contentType: string) {
    super(`unsupported content type ${contentType}: web_fetch reads HTML, plain text and JSON only`);
    this.name = 'UnsupportedContentError';
  }
}

function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

function charsetOf(contentType: string): string | undefined {
  const m = /charset\s*=\s*"?([^";\s]+)/i.exec(contentType);
  return m?.[1];
}

function decode(body: Buffer, charset: string | undefined): string {
  if (charset) {
    try {
      return new TextDecoder(charset).decode(body);
    } catch {
      // unknown label: fall through to UTF-8
    }
  }
  return new TextDecoder('utf-8').decode(body);
}

function looksBinary(body: Buffer): boolean {
  const head = body.subarray(0, 1024);
  let control = 0;
  for (const b of head) {
    if (b === 0) return true;
    if (b < 9 || (b > 13 && b < 32)) control++;
  }
  return head.length > 0 && control / head.length > 0.1;
}

function classify(contentType: string, body: Buffer): 'html' | 'text' | 'json' {
  const type = mediaType(contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type.startsWith('text/')) return 'text';
  if (type === 'application/xml' || type.endsWith('+xml') || type === 'application/javascript') return 'text';
  if (type === '' || type === 'application/octet-stream') {
    if (looksBinary(body)) throw new UnsupportedContentError(type || '(none: binary data)');
    const start = body.subarray(0, 512).toString('latin1').trimStart().toLowerCase();
    if (start.startsWith('<!doctype html') || start.startsWith('<html')) return 'html';
    if (type === '') return 'text';
  }
  throw new UnsupportedContentError(type);
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.remove(['script', 'style', 'noscript', 'iframe', 'template']);
// List items with one space after the marker ("- item", "1. item") instead of turndown's padding.
turndown.addRule('listItem', {
  filter: 'li',
  replacement(content, node) {
    const parent = node.parentNode as HTMLElement | null;
    let prefix = '- ';
    if (parent?.nodeName === 'OL') {
      const start = Number(parent.getAttribute('start') ?? '1') || 1;
      prefix = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
    }
    const indent = ' '.repeat(prefix.length);
    const body = content.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n/gm, `\n${indent}`);
    return prefix + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
  },
});

function absolutize(document: Document, pageUrl: string): void {
  for (const [selector, attr] of [['a[href]', 'href'], ['img[src]', 'src']] as const) {
    for (const el of Array.from(document.querySelectorAll(selector))) {
      const value = el.getAttribute(attr);
      if (!value || value.startsWith('#') || /^(javascript|data):/i.test(value)) continue;
      try {
        el.setAttribute(attr, new URL(value, pageUrl).href);
      } catch {
        // leave unparsable links as they are
      }
    }
  }
}

function htmlToMarkdown(html: string, pageUrl: string): { title: string | null; text: string } {
  const { document } = parseHTML(html);
  const docTitle = document.querySelector('title')?.textContent?.trim() || null;
  absolutize(document as unknown as Document, pageUrl);
  const bodyHtml = document.body?.innerHTML ?? html;
  let article: ReturnType<Readability['parse']> = null;
  try {
    article = new Readability(document as unknown as Document, { keepClasses: false }).parse();
  } catch {
    article = null;
  }
  const source = article?.content && article.textContent?.trim() ? article.content : bodyHtml;
  const text = turndown
    .turndown(source)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return { title: article?.title?.trim() || docTitle, text };
}

/**
 * Convert a response body to readable text.
 * @param contentType the Content-Type header ('' when absent: sniffed)
 * @param pageUrl the final URL (base for relative links)
 * @throws UnsupportedContentError for images, PDFs, archives and other non-text types
 */
export function extractContent(body: Buffer, contentType: string, pageUrl: string): ExtractedContent {
  const kind = classify(contentType, body);
  let charset = charsetOf(contentType);
  if (kind === 'html' && !charset) {
    const m = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(body.subarray(0, 2048).toString('latin1'));
    charset = m?.[1];
  }
  const raw = decode(body, charset);
  if (kind === 'html') return { kind, ...htmlToMarkdown(raw, pageUrl) };
  if (kind === 'json') {
    try {
      return { kind, title: null, text: JSON.stringify(JSON.parse(raw), null, 2) };
    } catch {
      return { kind, title: null, text: raw };
    }
  }
  return { kind, title: null, text: raw };
}
