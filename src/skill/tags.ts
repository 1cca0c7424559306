/** Tags compare case-insensitively and without surrounding space: `" KMP "` is `kmp`. */
export function normaliseTag(tag: string): string {
  return tag.trim().toLowerCase();
}

/** Normalised, without blanks or repeats, in the order given. */
export function normaliseTags(tags: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const tag of tags) {
    const t = normaliseTag(tag);
    if (t !== "") out.add(t);
  }
  return [...out];
}

/** `" KMP, android ,,"` → `["kmp", "android"]`: a comma-separated list, as `skills:compose` takes it. */
export function parseTagList(list: string): string[] {
  return normaliseTags(list.split(","));
}
