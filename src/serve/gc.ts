/**
 * The GC policy of the serving process: a young collection (well under a millisecond) right after
 * each step that leaves a large batch of garbage, before the next step allocates. After the
 * start-up index is opened (its listing's JSON text) and after every load (what it read and threw
 * away): the heap, and so peak RSS, stays small, and the first answers do not pay for a
 * collection. Full collections are left to the runtime.
 */
export function collectLoadGarbage(): void {
  Bun.gc(false);
}
