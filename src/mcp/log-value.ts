/**
 * A client's value as one field of a log line, for the HTTP access log and the stdio transport's
 * warnings alike: a client must not be able to forge a line, move the cursor, or fill the log.
 */

/** Longest stretch of a client-supplied value a log line shows; the rest is only counted. */
export const MAX_LOGGED_CHARS = 64;
/** Longest stretch of an error message a warning line shows (it may quote a client's input). */
export const MAX_LOGGED_MESSAGE_CHARS = 200;
const BARE = /^[\x21-\x7e]+$/;

/**
 * `value` as one field of a log line: as it is when it is short printable ASCII without quotes
 * or backslashes (`tools/call`); otherwise in double quotes with `\n`, `\"`, `\\` and `\uXXXX`
 * escapes for everything outside printable ASCII, so the field never spans lines and never
 * contains a bare space or quote. Beyond `max` characters it ends `…(N chars)` inside the quotes;
 * the `…` is the only character a quoted field shows unescaped outside ASCII, so it cannot be
 * forged.
 */
export function logValue(value: string, max = MAX_LOGGED_CHARS): string {
  if (value.length <= max && BARE.test(value) && !value.includes('"') && !value.includes("\\")) return value;
  const shown = value.length > max ? value.slice(0, max) : value;
  let out = '"';
  for (let i = 0; i < shown.length; i++) {
    const code = shown.charCodeAt(i);
    if (code === 0x22) out += '\\"';
    else if (code === 0x5c) out += "\\\\";
    else if (code >= 0x20 && code <= 0x7e) out += shown[i];
    else if (code === 0x0a) out += "\\n";
    else if (code === 0x0d) out += "\\r";
    else if (code === 0x09) out += "\\t";
    else out += `\\u${code.toString(16).padStart(4, "0")}`;
  }
  return `${out}${value.length > max ? `…(${value.length} chars)` : ""}"`;
}
