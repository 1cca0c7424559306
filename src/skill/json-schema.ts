/** A JSON Schema as authored in a skill file: raw data, checked before it is trusted. */
export type JsonSchema = { [keyword: string]: unknown };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
