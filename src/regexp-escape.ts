/**
 * `s` with every character that has a meaning in a JavaScript regular expression (`. * + ? ^ $ {
 * } ( ) | [ ] \`) escaped by a backslash, so `new RegExp(escapeRegExp(s))` matches `s` literally
 * (outside a character class; the `u` flag accepts these escapes too). Pure.
 */
export const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
