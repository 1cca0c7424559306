/**
 * The work one request may cause is bounded by what it sends, never multiplied by it. Each limit
 * is far above what a person or a model sends on purpose, and each refusal names the limit.
 */
import { SkillCentralError } from "../errors.ts";
import { nestingDepth } from "../storage/depth.ts";

export const LIMITS = {
  /** Arguments of one call, as JSON text (half the 16 MiB a frame may carry). */
  argumentChars: 8 * 1024 * 1024,
  /** Nesting of tool arguments (objects and arrays inside each other). */
  argumentDepth: 32,
  /** The text of one result (a rendered prompt, a tool's output, a composition): no larger than a frame we accept. */
  resultChars: 16 * 1024 * 1024,
  /** Arguments echoed as JSON are indented only below this size (indentation grows with depth). */
  prettyEchoChars: 64 * 1024,
  /** A value being completed (a tag list, an argument prefix). */
  completionChars: 1024,
  /** Block bodies one template renders for one call: `{{#each}}` inside `{{#each}}` multiplies them. */
  renderBlocks: 250_000,
} as const;

const MIB = 1024 * 1024;
function size(chars: number): string {
  return chars >= MIB ? `${chars / MIB} MiB` : `${chars / 1024} KiB`;
}

/** Throws when tool arguments are larger or deeper than a call may send. Returns their JSON length. */
export function checkArguments(args: unknown): number {
  const depth = nestingDepth(args, LIMITS.argumentDepth);
  if (depth > LIMITS.argumentDepth) {
    throw new SkillCentralError(
      "limit-exceeded",
      `Arguments nest more than ${LIMITS.argumentDepth} levels deep (the limit)`,
    );
  }
  const chars = JSON.stringify(args ?? {}).length;
  if (chars > LIMITS.argumentChars) {
    throw new SkillCentralError(
      "limit-exceeded",
      `Arguments are ${chars} characters of JSON, over the ${size(LIMITS.argumentChars)} limit`,
    );
  }
  return chars;
}

/** Throws when prompt arguments (strings) add up to more than a call may send. */
export function checkPromptArguments(args: Readonly<Record<string, unknown>>): void {
  let chars = 0;
  for (const key in args) {
    const value = args[key];
    chars += key.length + (typeof value === "string" ? value.length : 0);
  }
  if (chars > LIMITS.argumentChars) {
    throw new SkillCentralError(
      "limit-exceeded",
      `Arguments are ${chars} characters, over the ${size(LIMITS.argumentChars)} limit`,
    );
  }
}

/** `chars`: how far the result got before it was stopped, when that is known. */
export function resultTooLarge(chars?: number): SkillCentralError {
  const sofar = chars === undefined ? "" : ` (${chars} characters so far)`;
  return new SkillCentralError(
    "limit-exceeded",
    `The result would be over the ${size(LIMITS.resultChars)} limit${sofar}; pass smaller arguments`,
  );
}

export function tooManyBlocks(): SkillCentralError {
  return new SkillCentralError(
    "limit-exceeded",
    `The template renders more than ${LIMITS.renderBlocks} block bodies for these arguments (the limit): {{#each}} inside {{#each}} multiplies them; pass fewer items`,
  );
}

/** Throws when a finished result is over the limit. */
export function checkResult(text: string): string {
  if (text.length > LIMITS.resultChars) throw resultTooLarge(text.length);
  return text;
}

/**
 * Argument names are keys the caller chooses: `__proto__`, `constructor` or `toString` must be
 * plain names, neither reaching Object.prototype nor found there. A copy without a prototype
 * makes `name in args`, `args[name]` and rendering see only what was sent.
 */
export function ownArguments<T>(args: Readonly<Record<string, T>>): Record<string, T> {
  const own = Object.create(null) as Record<string, T>;
  for (const key of Object.keys(args)) {
    Object.defineProperty(own, key, { value: args[key], enumerable: true, writable: true, configurable: true });
  }
  return own;
}
