/**
 * What one usage row may hold. Every string a row records (the client's `clientInfo.name`, the
 * caller's name, the skill, the layer, how it was used) comes from a client or a config and is
 * stored once per use: a 3 MB client name sent with every 2026-07-28 request would otherwise
 * grow the store by 3 MB a call, and sit in memory in every row waiting for its batch. Each is
 * cut here, when the use is recorded, before the row is queued. And the rows waiting for a store
 * that is down are bounded too (DEFAULT_BUFFER).
 */

/**
 * Rows kept in memory at most while the store is down, slow or locked (config `usage.buffer`):
 * past it a use is dropped and counted, so an outage cannot grow a server's memory without end.
 */
export const DEFAULT_BUFFER = 50_000;

/** The longest string a usage row keeps, in characters (UTF-16 code units, as JavaScript counts). */
export const MAX_RECORDED_CHARS = 256;
/** Ends a cut string, so a reader sees that it was cut. */
const CUT_MARK = "…";

/**
 * `text` as a row keeps it: at most `max` characters, a longer one cut on a code-point boundary
 * (never half a surrogate pair) and ended with `…`. A lone surrogate (JSON allows `"\ud800"`)
 * becomes U+FFFD, so what is stored is what is read back.
 */
export function recordedText(text: string, max = MAX_RECORDED_CHARS): string {
  if (text.length <= max) return text.isWellFormed() ? text : text.toWellFormed();
  let end = max - CUT_MARK.length;
  const last = text.charCodeAt(end - 1);
  // A high surrogate at the cut would lose its pair: cut before it.
  if (last >= 0xd800 && last <= 0xdbff) end--;
  // A copy, not a slice: a slice may keep the whole original string alive in memory.
  return Buffer.from(`${text.slice(0, end).toWellFormed()}${CUT_MARK}`, "utf8").toString("utf8");
}

/** A use with every string bounded (see the module header); fields it did not have stay absent. */
export function boundedUse<T extends { skill: string; layer: string; via: string; client?: string; caller?: string }>(
  use: T,
): T {
  const bounded = {
    ...use,
    skill: recordedText(use.skill),
    layer: recordedText(use.layer),
    via: recordedText(use.via),
  };
  if (use.client !== undefined) bounded.client = recordedText(use.client);
  if (use.caller !== undefined) bounded.caller = recordedText(use.caller);
  return bounded;
}
