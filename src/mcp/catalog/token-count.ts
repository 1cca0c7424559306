/**
 * Tokens of text as a model would count them: o200k_base (GPT-4o and later) through
 * `gpt-tokenizer`, a documented stand-in for Claude, whose current tokenizer is not published.
 * Its rank table is megabytes of JavaScript that takes a second or more to load, so it is loaded
 * on first use only (`skill-central budget`, or a budget decision too close to call), never at
 * start-up. Bounds that need no table come first: every piece o200k's pre-tokenizer cuts is at
 * least one token, and no token is shorter than one UTF-8 byte.
 */
import { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants";

export const TOKENIZER = "o200k_base";

type Count = (text: string, options: { disallowedSpecial: Set<string> }) => number;
let count: Count | undefined;

/** Text that spells a special token (`<|endoftext|>`) is counted as the plain text it is. */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * Where the rank table's module is: beside this one from source; in the binary, an entrypoint of
 * its own that Bun embeds at its path below the bundle root (`src/`), as the validation worker is.
 * A computed path, so the bundler leaves the table out of the main bundle.
 */
function tableModule(): string {
  return Bun.isStandaloneExecutable
    ? "./mcp/catalog/o200k-table.ts"
    : new URL("./o200k-table.ts", import.meta.url).pathname;
}

/** The tokens of `text`; the first call loads the rank table (synchronously, from a file of the binary). */
export function countTokens(text: string): number {
  if (text === "") return 0;
  count ??= (require(tableModule()) as { countTokens: Count }).countTokens;
  return count(text, AS_TEXT);
}

export interface TokenBounds {
  /** Pre-tokenizer pieces: each is at least one token. */
  low: number;
  /** UTF-8 bytes: no token is shorter than one. */
  high: number;
}

/** Sure bounds on `countTokens(text)`, without the rank table. */
export function tokenBounds(text: string): TokenBounds {
  let low = 0;
  for (const _ of text.matchAll(O200K_TOKEN_SPLIT_REGEX)) low++;
  return { low, high: Buffer.byteLength(text) };
}
