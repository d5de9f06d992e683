/** Small helpers over neutral transcript items (src/model/port.ts). */
import type { TranscriptItem } from '../model/port.js';

/** Assistant text of response items, concatenated. */
export function messageText(items: readonly TranscriptItem[]): string {
  return items
    .map((i) => {
      if (i.type !== 'message' || i.role !== 'assistant') return '';
      if (typeof i.content === 'string') return i.content;
      return i.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    })
    .join('');
}

/** A developer message (instructions the runtime adds between rounds). */
export function developerMessage(text: string): TranscriptItem {
  return { type: 'message', role: 'developer', content: text };
}
