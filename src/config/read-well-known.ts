/**
 * A layer that takes its skills from an Agent Skills well-known index (docs/well-known.md):
 *
 *     - { name: vendor, priority: 30, url: https://example.com/.well-known/agent-skills/,
 *         skills: [code-review, pdf], tokenEnv: VENDOR_TOKEN }
 *
 * `url` is the index's folder (or the `index.json` itself, or a versioned `v1.2.0/` snapshot);
 * `skills` takes only those; `tokenEnv` names the environment variable holding a bearer token.
 * The URL is never echoed in a message (it may carry credentials).
 */
export interface WellKnownSource {
  /** The index's URL as configured, normalised to end in `index.json`. */
  url: string;
  /** Only these skills (absent: every skill the index lists). */
  skills?: readonly string[];
  /** The environment variable holding a bearer token sent with every request. */
  tokenEnv?: string;
  /** The allowed-signers file (absolute) whose keys must have signed `index.json` (docs/provenance.md). */
  signers?: string;
}

/** Keys that only a layer with `url` takes. */
export const WELL_KNOWN_ONLY_KEYS = ["skills", "tokenEnv"] as const;

const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The index's URL for a configured `url`: a folder gets `index.json`. */
export function indexUrlOf(url: string): string {
  const parsed = new URL(url);
  if (!parsed.pathname.endsWith(".json") && !parsed.pathname.endsWith("/")) parsed.pathname += "/";
  if (parsed.pathname.endsWith("/")) parsed.pathname += "index.json";
  return parsed.href;
}

/** The well-known keys of one layer, or undefined (after a warning) when the layer is ignored. */
export function readWellKnownSource(
  layer: Record<string, unknown>,
  name: string,
  warn: (message: string, field: string) => void,
): WellKnownSource | undefined {
  const { url, skills, tokenEnv } = layer;
  if (typeof url !== "string" || url.trim() === "")
    return void warn(`layer "${name}": "url" must be a well-known index URL (a string); layer ignored`, "url");
  if (!/^https?:\/\//i.test(url.trim()))
    return void warn(
      `layer "${name}": "url" must be an http:// or https:// URL (other schemes are refused); layer ignored`,
      "url",
    );
  let source: WellKnownSource;
  try {
    source = { url: indexUrlOf(url.trim()) };
  } catch {
    return void warn(`layer "${name}": "url" is not a valid URL; layer ignored`, "url");
  }
  if (skills !== undefined) {
    if (!Array.isArray(skills) || skills.some((s) => typeof s !== "string" || !SKILL_NAME.test(s)))
      return void warn(
        `layer "${name}": "skills" must be a list of skill names (lowercase, digits, hyphens); layer ignored`,
        "skills",
      );
    source.skills = [...new Set(skills as string[])].sort();
  }
  if (tokenEnv !== undefined) {
    if (typeof tokenEnv !== "string" || !ENV_NAME.test(tokenEnv))
      return void warn(
        `layer "${name}": "tokenEnv" must name an environment variable (letters, digits, _); layer ignored`,
        "tokenEnv",
      );
    source.tokenEnv = tokenEnv;
  }
  return source;
}
