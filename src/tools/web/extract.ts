/**
 * Response body → text the model reads.
 * - HTML (`text/html`, `application/xhtml+xml`): parsed with linkedom, main content picked by
 *   @mozilla/readability (whole body when readability finds no article), converted to Markdown by
 *   turndown; links and images made absolute against the page URL.
 * - Plain text (`text/*`) passed through; JSON (`application/json`, `*+json`) passed through,
 *   re-indented when it parses so that line offsets are useful.
 * - Anything else is refused, naming the content type.
 * Charset: the Content-Type `charset` parameter, else an HTML `<meta charset>`, else UTF-8.
 *
 * Untrusted pages can make readability and turndown take minutes (their cost grows much faster
 * than the page: 600 nested `<div>`s already take seconds). So a page whose DOM is deeper than
 * {@link MAX_DOM_DEPTH} or has more than {@link MAX_DOM_NODES} nodes is returned as plain text
 * instead, and the service calls this only in a worker thread with a time limit (extract-pool.ts).
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
  /** Why an HTML page was given as plain text instead of Markdown (too deep, too many nodes, too slow). */
  plainTextReason?: string;
}

/** Max element nesting converted to Markdown; deeper pages are returned as plain text. */
export const MAX_DOM_DEPTH = 200;
/** Max DOM nodes converted to Markdown; larger pages are returned as plain text. */
export const MAX_DOM_NODES = 100_000;

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

/** Node count and max depth of the tree under `root`, stopping early once past the caps (iterative). */
function domSize(root: Node): { nodes: number; depth: number } {
  let nodes = 0;
  let depth = 0;
  const stack: [Node, number][] = [[root, 0]];
  while (stack.length > 0) {
    const [node, d] = stack.pop()!;
    nodes++;
    if (d > depth) depth = d;
    if (nodes > MAX_DOM_NODES || depth > MAX_DOM_DEPTH) break;
    const children = node.childNodes;
    for (let i = 0; i < children.length; i++) stack.push([children[i], d + 1]);
  }
  return { nodes, depth };
}

function collapse(text: string): string {
  return text
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/ ?\n[ \n]*/g, (m) => (m.split('\n').length > 2 ? '\n\n' : '\n'))
    .trim();
}

/** Tags after which the plain text gets a line break. */
const BLOCK_TAGS = new Set(['p', 'div', 'br', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'tr', 'section', 'article', 'header', 'footer', 'pre', 'blockquote', 'ul', 'ol', 'table']);

/**
 * Plain text of an HTML string without a DOM: tags dropped (and the contents of script and style
 * elements), comments dropped, a few entities decoded, white space collapsed. One forward scan
 * (every search starts where the last one ended), so linear in the input even for hostile markup;
 * used when a page is too complex or too slow to convert.
 */
export function htmlToPlainText(html: string): string {
  const lower = html.toLowerCase();
  const out: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      out.push(html.slice(i));
      break;
    }
    out.push(html.slice(i, lt));
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    const gt = html.indexOf('>', lt + 1);
    if (gt < 0) break;
    const tag = /^<(\/?)([a-z][a-z0-9]*)/.exec(lower.slice(lt, Math.min(gt + 1, lt + 32)));
    i = gt + 1;
    if (tag && !tag[1] && (tag[2] === 'script' || tag[2] === 'style')) {
      const close = lower.indexOf(`</${tag[2]}`, i);
      i = close < 0 ? html.length : close;
      continue;
    }
    out.push(tag && BLOCK_TAGS.has(tag[2]) ? '\n' : ' ');
  }
  const text = out
    .join('')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
  return collapse(text);
}

/** Decode `body` as HTML (charset from `contentType`, else `<meta charset>`, else UTF-8). */
export function decodeHtml(body: Buffer, contentType: string): string {
  let charset = charsetOf(contentType);
  if (!charset) charset = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(body.subarray(0, 2048).toString('latin1'))?.[1];
  return decode(body, charset);
}

/** The body's kind (html, text, json); throws UnsupportedContentError like {@link extractContent}. */
export function contentKind(contentType: string, body: Buffer): 'html' | 'text' | 'json' {
  return classify(contentType, body);
}

function htmlToMarkdown(html: string, pageUrl: string): { title: string | null; text: string; plainTextReason?: string } {
  const { document } = parseHTML(html);
  const docTitle = document.querySelector('title')?.textContent?.trim() || null;
  const size = domSize(document.documentElement as unknown as Node);
  if (size.depth > MAX_DOM_DEPTH || size.nodes > MAX_DOM_NODES) {
    const why = size.depth > MAX_DOM_DEPTH ? `nested deeper than ${MAX_DOM_DEPTH} elements` : `more than ${MAX_DOM_NODES.toLocaleString('en-US')} DOM nodes`;
    return { title: docTitle, text: htmlToPlainText(html), plainTextReason: `the page is ${why}` };
  }
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
