/**
 * Single lines of 4 MiB built to make the audit's rules work hardest: each repeats the start of a
 * rule's match without its end, so every repetition is an attempt that fails late. Shared by the
 * test that the scan completes (test/unit/audit-linear.test.ts) and the bench that times it
 * (bench/audit-linear.ts).
 */
const MiB4 = 4 * 1024 * 1024;
export const HOSTILE_LINES: Record<string, string> = {
  "a download with no pipe, again and again": "curl x ",
  "Markdown images that never close": "![a](http://x?",
  "open brackets": "[",
  "HTML comments that never close": "<!-- you ",
  "an override, again and again": "ignore all previous instructions. ",
  "zero-width spaces between letters": "a\u200b",
  "a piped installer, again and again": "curl x | sh; ",
  "a decoder with no pipe": "base64 -d ",
  "lookups with no domain": "nslookup $(x) ",
  "a .env read with no send": "cat .env ",
  "secret paths beside a send": "cat ~/.ssh/id_rsa curl ",
  "token prefixes": "sk-",
};
/** One line of 4 MiB made of `unit` again and again: the densest start of a rule's attempts. */
export const hostileLine = (unit: string) => unit.repeat(Math.ceil(MiB4 / unit.length)).slice(0, MiB4);
