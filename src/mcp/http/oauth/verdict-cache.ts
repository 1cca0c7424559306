/** Verdicts on tokens, by the token's SHA-256 until each one's expiry, bounded and least recently used first out. */

/** Entries kept at most: past it, the least recently used goes. */
export const MAX_CACHED_VERDICTS = 10_000;

/**
 * Verdicts on tokens, keyed by the token's SHA-256 (the token itself is never kept), each until
 * its own expiry (seconds since the epoch, as in `exp`), least recently used dropped first. A
 * token seen again skips signature checks and introspection calls.
 */
export class VerdictCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly max = MAX_CACHED_VERDICTS,
    private readonly nowSeconds: () => number = () => Date.now() / 1000,
  ) {}

  static keyOf(token: string): string {
    return Bun.SHA256.hash(token, "base64");
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.nowSeconds()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V, expiresAt: number): void {
    if (expiresAt <= this.nowSeconds()) return;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt });
    while (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}
