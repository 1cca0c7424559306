/**
 * The o200k_base rank table behind `countTokens` (token-count.ts), in a module of its own: the
 * compiled binary embeds it as a separate entrypoint (script/build.ts), so the megabytes of the
 * table are read only by the process that counts, never by one that just serves.
 */
export { countTokens } from "gpt-tokenizer/encoding/o200k_base";
