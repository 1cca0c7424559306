import type { Random } from "./random.ts";

/** Keys that reach prototypes or shadow their methods when code treats argument names as keys. */
export const PROTO_KEYS = [
  "__proto__",
  "constructor",
  "toString",
  "prototype",
  "hasOwnProperty",
  "valueOf",
  "__defineGetter__",
] as const;

/** Inputs that make backtracking patterns (`^(a+)+$` and friends) run for seconds. */
export const BACKTRACKING_INPUTS = [
  `${"a".repeat(30)}!`,
  `${"x".repeat(28)}z`,
  `${"ab".repeat(20)}c`,
  `${"a ".repeat(25)}!`,
  `${"0".repeat(40)}x`,
];

const WORDS = [
  "alpha",
  "kmp",
  "android",
  "review",
  "x",
  "a",
  "b",
  "tags",
  "id",
  "name",
  "value",
  "main",
  "ok",
  "skill",
  "null",
  "true",
  "1",
  "",
];

/** Own properties, `__proto__` included (plain assignment would set the prototype instead). */
export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A string a client might send, from the ordinary to the hostile. */
export function randomString(rng: Random, options: { huge?: boolean } = {}): string {
  const kind = rng.weighted<string>([
    [30, "word"],
    [10, "words"],
    [8, "unicode"],
    [6, "template"],
    [5, "control"],
    [5, "proto"],
    [4, "backtrack"],
    [4, "path"],
    [3, "number"],
    [options.huge === false ? 0 : 2, "huge"],
    [3, "long"],
  ]);
  switch (kind) {
    case "word":
      return rng.pick(WORDS);
    case "words":
      return Array.from({ length: rng.range(1, 6) }, () => rng.pick(WORDS)).join(rng.pick([" ", ",", ", ", "-", "\n"]));
    case "unicode":
      return (
        rng.pick([
          "ü",
          "日本語",
          "👩‍💻",
          "\u202eevil",
          "e\u0301",
          "\ud800",
          "\udfff",
          "\u0000",
          "\uffff",
          "ß".repeat(10),
          "Ω≈ç√∫",
        ]) + rng.pick(WORDS)
      );
    case "template":
      return rng.pick([
        "{{x}}",
        "{{{x}}}",
        "{{#each a}}",
        "{{/if}}",
        "{{> p}}",
        "{{constructor.constructor}}",
        "{{__proto__}}",
        "}}{{",
        "{{!--",
        "\\{{x}}",
      ]);
    case "control":
      return rng.pick(["\r\n", "\r", "\n", "\t", '"', "\\", "\u0007", "\u001b[31mred", "\u2028\u2029", '\\"}']);
    case "proto":
      return rng.pick(PROTO_KEYS);
    case "backtrack":
      return rng.pick(BACKTRACKING_INPUTS);
    case "path":
      return rng.pick([
        "../../etc/passwd",
        "/etc/passwd",
        "skill://skills/../registry",
        "skill://registry",
        "file:///etc/passwd",
        "C:\\Windows",
        "%2e%2e%2f",
        "*",
        "?",
      ]);
    case "number":
      return String(rng.pick([0, -1, 1e21, 2 ** 53, Number.MAX_VALUE, 0.1]));
    case "huge":
      return rng.pick(["y", "ab", "{{", "ü", "a,"]).repeat(rng.pick([10_000, 100_000, 1_100_000]));
    default:
      return "z".repeat(rng.range(200, 5000));
  }
}

export interface JsonOptions {
  /** Strings of megabytes (default: now and then). */
  huge?: boolean;
  /** The deepest a deliberately deep value goes (default 5,000; a YAML writer takes seconds past a few hundred). */
  maxLevels?: number;
}

/** Any JSON value, mostly small; `depth` bounds ordinary nesting. */
export function randomJson(rng: Random, depth = 3, options: JsonOptions = {}): unknown {
  const kind = rng.weighted<string>([
    [20, "string"],
    [10, "number"],
    [5, "boolean"],
    [5, "null"],
    [depth > 0 ? 15 : 0, "object"],
    [depth > 0 ? 10 : 0, "array"],
    [depth > 0 ? 1 : 0, "deep"],
    [depth > 0 ? 1 : 0, "wide"],
  ]);
  switch (kind) {
    case "string":
      return randomString(rng, options);
    case "number":
      return rng.pick([0, 1, -1, 42, 3.5, -0.5, 1e300, -1e300, 2 ** 53 + 1, Number.MIN_VALUE, 1e-7]);
    case "boolean":
      return rng.chance(0.5);
    case "null":
      return null;
    case "object": {
      const object: Record<string, unknown> = {};
      for (let i = rng.size(6); i > 0; i--)
        setKey(
          object,
          rng.chance(0.15) ? rng.pick(PROTO_KEYS) : randomString(rng, { huge: false }),
          randomJson(rng, depth - 1, options),
        );
      return object;
    }
    case "array":
      return Array.from({ length: rng.size(8) }, () => randomJson(rng, depth - 1, options));
    case "deep":
      return deepValue(rng, Math.min(options.maxLevels ?? 5000, rng.pick([33, 100, 1000, 5000])));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = 0; i < 2000; i++) object[`k${i}`] = i;
      return object;
    }
  }
}

/** A value nested `levels` deep: arrays, objects, or both. */
export function deepValue(rng: Random, levels: number): unknown {
  let value: unknown = rng.pick(["leaf", 1, null]);
  const style = rng.pick(["array", "object", "mixed"]);
  for (let i = 0; i < levels; i++) {
    const asArray = style === "array" || (style === "mixed" && i % 2 === 0);
    value = asArray ? [value] : { a: value };
  }
  return value;
}
