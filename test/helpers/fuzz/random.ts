import { mulberry32 } from "../random.ts";

/**
 * The fuzzer's source of choices. Every case draws from its own generator, seeded from the run's
 * seed and the case's number, so one case can be regenerated (and replayed) without the others.
 */
export class Random {
  private readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = mulberry32(seed);
  }

  /** A generator for case `index` of the run seeded `seed`. */
  static forCase(seed: number, index: number): Random {
    return new Random(mix(seed, index));
  }

  float(): number {
    return this.next();
  }

  /** A whole number in [0, max). */
  int(max: number): number {
    return Math.floor(this.next() * max);
  }

  /** A whole number in [min, max], both included. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[this.int(items.length)]!;
  }

  /** One of the choices, each as likely as its weight. */
  weighted<T>(choices: readonly (readonly [number, T])[]): T {
    const total = choices.reduce((sum, [weight]) => sum + weight, 0);
    let at = this.next() * total;
    for (const [weight, value] of choices) {
      at -= weight;
      if (at < 0) return value;
    }
    return choices[choices.length - 1]![1];
  }

  /** A length that is usually small and now and then large: the sizes bugs hide at. */
  size(max: number): number {
    const roll = this.next();
    if (roll < 0.6) return this.int(Math.min(8, max + 1));
    if (roll < 0.9) return this.int(Math.min(200, max + 1));
    return this.int(max + 1);
  }

  /** A new generator, for work whose amount of drawing must not shift this one's later choices. */
  fork(): Random {
    return new Random(mix(this.seed, this.int(0x7fffffff)));
  }
}

/** Two numbers into one seed (a 32-bit integer hash, so nearby cases get unrelated seeds). */
export function mix(a: number, b: number): number {
  let h = Math.imul((a >>> 0) ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul((b >>> 0) + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}
