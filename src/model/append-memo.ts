/**
 * Memo of a result built item by item over an array that mostly grows by appending — a turn's
 * transcript, sent whole with every request: the next call extends the last result with the new
 * items instead of walking them all again.
 *
 * The memo is keyed by the array's first element (one per conversation; arrays whose first
 * element is not an object are not memoized) and trusted only as far as the new array holds the
 * very same elements (identity) at the same places — checked element by element, pointer
 * comparisons that cost far less than the per-item work saved. Anything else (an item replaced,
 * a transcript compacted, a different conversation starting with the same item) is walked whole
 * again, so the result is always what a full walk would give.
 *
 * Results are shared: the memo keeps the one it returns and later extends it into a NEW value,
 * so `extend` must never mutate the accumulator it is given, and callers must not mutate results.
 */
export interface AppendMemo<T, A> {
  /** The accumulated result for `items` (see the module doc). */
  over(items: readonly T[]): A;
}

/**
 * @param start the result for an empty array;
 * @param extend a new result: `acc` (the result for `items[0..from)`) extended over
 *   `items[from..]` (from < items.length); must not mutate `acc`.
 */
export function appendMemo<T, A>(start: A, extend: (acc: A, items: readonly T[], from: number) => A): AppendMemo<T, A> {
  /** Per first element: the items of the last walk (a copy) and the result for them. */
  const memos = new WeakMap<object, { items: T[]; acc: A }>();
  return {
    over(items) {
      const first = items[0];
      const key = typeof first === 'object' && first !== null ? first : undefined;
      const memo = key ? memos.get(key) : undefined;
      let acc = start;
      let from = 0;
      if (memo && memo.items.length <= items.length && samePrefix(memo.items, items)) {
        if (memo.items.length === items.length) return memo.acc;
        acc = memo.acc;
        from = memo.items.length;
      }
      if (from < items.length) acc = extend(acc, items, from);
      if (key) memos.set(key, { items: items.slice(), acc });
      return acc;
    },
  };
}

/** True when `items` starts with exactly the elements of `prefix` (identity). */
function samePrefix<T>(prefix: readonly T[], items: readonly T[]): boolean {
  for (let i = prefix.length - 1; i >= 0; i--) if (prefix[i] !== items[i]) return false;
  return true;
}
