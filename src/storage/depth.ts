/**
 * How deeply `value` nests (a scalar is 0, `{a: 1}` is 1), counted without recursion so that a
 * hostile document cannot exhaust the stack while being measured. Stops counting past `limit`.
 */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    const inner = depth + 1;
    if (inner > deepest) {
      deepest = inner;
      if (deepest > limit) return deepest;
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === "object" && child !== null) stack.push([child, inner]);
    }
  }
  return deepest;
}
