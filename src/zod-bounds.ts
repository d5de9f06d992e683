/**
 * The words of zod 4's bound and format issues for src/zod-messages.ts (which installs them as
 * the global error map): `too_small` / `too_big` by the kind of value (`must not be empty`,
 * `must be at most 500, got 501`, `must be at least 3 characters long, got 2`, `must have at most
 * 64 items, got 70`, `must be greater than 0`; a string's length in code points, as zod counts it) and `invalid_format` by format (`must match the
 * pattern /…/`, `must be a URL`, `must start with "x"`), never repeating a string's value (it may
 * hold a secret); messages follow the field's path.
 */

import { codePointCount } from './runtime/text-cut.js';

/** The fields of a raw zod 4 `too_small` / `too_big` / `invalid_format` issue read here. */
export interface BoundIssue {
  code: string;
  input?: unknown;
  origin?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  inclusive?: boolean;
  exact?: boolean;
  format?: string;
  pattern?: string;
  prefix?: string;
  suffix?: string;
  includes?: string;
}

const plural = (n: number | bigint, one: string, many = `${one}s`) => `${n} ${n === 1 || n === 1n ? one : many}`;

/** `too_small` / `too_big`: the bound in words, for the kind of value (`origin`), and what was given. */
export function sizeMessage(iss: BoundIssue): string | undefined {
  const small = iss.code === 'too_small';
  const bound = small ? iss.minimum : iss.maximum;
  if (bound === undefined) return undefined;
  const input = iss.input;
  const most = small ? 'at least' : 'at most';
  switch (iss.origin) {
    case 'string': {
      if (small && Number(bound) === 1 && !iss.exact) return 'must not be empty';
      // Counted as zod counts the bound: in code points (an emoji is 1), not UTF-16 units.
      const got = typeof input === 'string' ? `, got ${codePointCount(input)}` : '';
      return `must be ${iss.exact ? 'exactly' : most} ${plural(bound, 'character')} long${got}`;
    }
    case 'array':
    case 'set': {
      const got = Array.isArray(input) ? `, got ${input.length}` : input instanceof Set ? `, got ${input.size}` : '';
      if (small && Number(bound) === 1 && !iss.exact) return 'must not be empty: give at least 1 item';
      return `must have ${iss.exact ? 'exactly' : most} ${plural(bound, 'item')}${got}`;
    }
    case 'number':
    case 'int':
    case 'bigint': {
      const got = typeof input === 'number' || typeof input === 'bigint' ? `, got ${String(input)}` : '';
      if (iss.exact) return `must be ${String(bound)}${got}`;
      const word = iss.inclusive === false ? (small ? 'greater than' : 'less than') : most;
      return `must be ${word} ${String(bound)}${got}`;
    }
    case 'date':
      return `must be ${small ? 'on or after' : 'on or before'} ${new Date(Number(bound)).toISOString()}`;
    case 'file':
      return `must be ${most} ${plural(bound, 'byte')}`;
    default:
      return `must be ${most} ${String(bound)}`;
  }
}

const FORMATS: Record<string, string> = {
  email: 'an email address',
  url: 'a URL',
  uuid: 'a UUID',
  guid: 'a GUID',
  datetime: 'an ISO 8601 date-time (e.g. 2026-01-31T09:00:00Z)',
  date: 'an ISO 8601 date (YYYY-MM-DD)',
  time: 'a time of day (HH:MM[:SS])',
  duration: 'an ISO 8601 duration (e.g. PT5M)',
  ipv4: 'an IPv4 address',
  ipv6: 'an IPv6 address',
  cidrv4: 'an IPv4 range (CIDR)',
  cidrv6: 'an IPv6 range (CIDR)',
  base64: 'base64 text',
  base64url: 'base64url text',
  json_string: 'a JSON text',
  e164: 'a phone number in E.164 form (+…)',
  jwt: 'a JWT',
  lowercase: 'lower case',
  uppercase: 'upper case',
};

/** `invalid_format`: what the string must look like (the value itself is not repeated). */
export function formatMessage(iss: BoundIssue): string {
  switch (iss.format) {
    case 'regex':
      return iss.pattern ? `must match the pattern ${iss.pattern}` : 'is not in the accepted format';
    case 'starts_with':
      return `must start with ${JSON.stringify(iss.prefix ?? '')}`;
    case 'ends_with':
      return `must end with ${JSON.stringify(iss.suffix ?? '')}`;
    case 'includes':
      return `must contain ${JSON.stringify(iss.includes ?? '')}`;
    default: {
      const what = iss.format ? FORMATS[iss.format] : undefined;
      return what ? `must be ${what}` : `must be a valid ${iss.format ?? 'value'}`;
    }
  }
}
