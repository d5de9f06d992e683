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
 */
export interface AppendMemo<T, A> {
  /**
   * The accumulated result for `items`: the memo's result extended over the items after the
   * longest prefix it already covers, or `start()` extended over all of them.
   */
  over(items: readonly T[]): A;
}

/**
 * @param start a fresh accumulator (for an empty array);
 * @param add `acc` extended by `item` (at index `index` of the array) — may mutate and return `acc`
 *   only when `copy` makes the memo's own accumulator safe from it;
 * @param copy a copy of an accumulator the memo keeps, taken before it is extended further.
 */
export function appendMemo<T, A>(start: () => A, add: (acc: A, item: T, index: number) => A, copy: (acc: A) => A): AppendMemo<T, A> {
  /** Per first element: the items of the last walk and the accumulator after them (a copy of its own). */
  const memos = new WeakMap<object, { items: T[]; acc: A }>();
  return {
    over(items) {
      const first = items[0];
      const key = typeof first === 'object' && first !== null ? first : undefined;
      const memo = key ? memos.get(key) : undefined;
      let acc: A;
      let from = 0;
      if (memo && memo.items.length <= items.length && samePrefix(memo.items, items)) {
        acc = copy(memo.acc);
        from = memo.items.length;
      } else {
        acc = start();
      }
      for (let i = from; i < items.length; i++) acc = add(acc, items[i], i);
      if (key) memos.set(key, { items: items.slice(), acc: copy(acc) });
      return acc;
    },
  };
}

/** True when `items` starts with exactly the elements of `prefix` (identity). */
function samePrefix<T>(prefix: readonly T[], items: readonly T[]): boolean {
  for (let i = prefix.length - 1; i >= 0; i--) if (prefix[i] !== items[i]) return false;
  return true;
}
