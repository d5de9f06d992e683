/**
 * Bounds for model-written glob patterns before they reach tinyglobby/picomatch.
 *
 * picomatch compiles a glob to a JavaScript regular expression, and V8's backtracking engine
 * matches it synchronously: the event loop cannot be interrupted, so neither the tool timeout nor
 * an abort helps. The cost grows as n^k for a name of n characters and k `*` in one path segment
 * (measured on Node 20: `*a*a*a*a*a*a*b` against a 60-character name ≈ 5 s; `*a*a*a*b` against
 * 255 characters ≈ 0.3 s per file; `*a*a*b` ≈ 25 ms), across segments for several `**` combined
 * with in-segment stars (three `**` segments with `*a*` segments between them, on a 60-deep path
 * ≈ 0.8 s), and without bound for
 * extglobs with nested quantifiers (`+(a*)b`). So a pattern is refused (with an Error the model can
 * act on) when it has:
 * - more than {@link GLOB_LIMITS.maxLength} characters;
 * - more than {@link GLOB_LIMITS.maxStarsPerSegment} runs of `*` in one `/`-separated segment
 *   (a segment that is exactly `**` counts as a globstar, not as a star);
 * - more than {@link GLOB_LIMITS.maxStars} star runs plus globstars in the whole pattern, or more
 *   than {@link GLOB_LIMITS.maxGlobstars} globstars;
 * - more than {@link GLOB_LIMITS.maxQuestionMarks} `?` in one segment;
 * - more than {@link GLOB_LIMITS.maxBraces} brace groups `{…}`, or a numeric range `{1..N}` spanning
 *   more than {@link GLOB_LIMITS.maxRangeSpan} values;
 * - any extglob (`*(…)`, `+(…)`, `?(…)`, `@(…)`, `!(…)`): not supported at all.
 * Stars, `?` and braces are counted textually (also inside braces and brackets, and when escaped),
 * which errs on the side of refusing.
 */
import { keepHead } from '../../../runtime/text-cut.js';

export const GLOB_LIMITS = {
  maxLength: 256,
  maxStarsPerSegment: 3,
  maxStars: 4,
  maxGlobstars: 2,
  maxQuestionMarks: 16,
  maxBraces: 8,
  maxRangeSpan: 1000,
};

/**
 * Throws an Error explaining the limit when `pattern` could make picomatch's synchronous matching
 * take too long (see the module comment for the rules); returns normally otherwise.
 */
export function assertSafeGlob(pattern: string): void {
  const refuse = (why: string) => {
    throw new Error(`glob pattern ${JSON.stringify(pattern.length > 80 ? `${keepHead(pattern, 80)}…` : pattern)} refused: ${why}. Use a simpler pattern (e.g. "**/*.ts", "src/*.{js,ts}", "*test*") and filter the results, or use grep.`);
  };
  if (pattern.length > GLOB_LIMITS.maxLength) refuse(`it has ${pattern.length} characters; at most ${GLOB_LIMITS.maxLength} are allowed`);
  if (/[*+?@!]\(/.test(pattern)) refuse('extglobs such as *(…), +(…), ?(…), @(…) and !(…) are not supported; use {a,b} alternatives or several calls');
  let stars = 0;
  let globstars = 0;
  for (const segment of pattern.split('/')) {
    if (segment === '**') {
      globstars++;
      continue;
    }
    const runs = segment.match(/\*+/g)?.length ?? 0;
    if (runs > GLOB_LIMITS.maxStarsPerSegment) refuse(`the path segment ${JSON.stringify(segment)} has ${runs} "*" wildcards; at most ${GLOB_LIMITS.maxStarsPerSegment} per segment are allowed ("**" as a whole segment is fine)`);
    const questions = segment.split('?').length - 1;
    if (questions > GLOB_LIMITS.maxQuestionMarks) refuse(`the path segment ${JSON.stringify(segment)} has ${questions} "?" wildcards; at most ${GLOB_LIMITS.maxQuestionMarks} per segment are allowed`);
    stars += runs;
  }
  if (globstars > GLOB_LIMITS.maxGlobstars) refuse(`it has ${globstars} "**" segments; at most ${GLOB_LIMITS.maxGlobstars} are allowed`);
  if (stars + globstars > GLOB_LIMITS.maxStars) refuse(`it has ${stars + globstars} "*"/"**" wildcards in total; at most ${GLOB_LIMITS.maxStars} are allowed`);
  const braces = pattern.split('{').length - 1;
  if (braces > GLOB_LIMITS.maxBraces) refuse(`it has ${braces} brace groups; at most ${GLOB_LIMITS.maxBraces} are allowed`);
  for (const m of pattern.matchAll(/\{\s*(-?\w+)\s*\.\.\s*(-?\w+)/g)) {
    const [a, b] = [Number(m[1]), Number(m[2])];
    const span = Number.isFinite(a) && Number.isFinite(b) ? Math.abs(a - b) + 1 : 0;
    if (span > GLOB_LIMITS.maxRangeSpan) refuse(`the range {${m[1]}..${m[2]}} spans ${span} values; at most ${GLOB_LIMITS.maxRangeSpan} are allowed`);
  }
}
