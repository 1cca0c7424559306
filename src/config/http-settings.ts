/**
 * The `http:` key of a config file: what `mcp --http` needs beyond its flags (docs/sign-in.md).
 * Read with the rest of the file (so `validate` and the server's start-up report its warnings
 * with positions), and once more when the HTTP server starts, which refuses to start on a value
 * it cannot use: a sign-in setting silently ignored would leave the server open or locked. So a
 * problem readBlock (or the URL policy after it) reports under a key refuses that key, while an
 * unknown key is only a warning; each problem says so with the schema's `consequence`.
 */
import type { SourcePosition } from "../diagnostics.ts";
import { ENV_NAME_PATTERN } from "./config-names.ts";
import type { ConfigPath, ConfigProblem, ReportProblem } from "./config-problem.ts";
import { type BlockOf, declares, NON_BLANK, readBlock } from "./config-schema.ts";
import { type MergeRules, mergeSettings } from "./merge-settings.ts";
import { secureUrlProblem } from "./config-url.ts";

/** Said after every problem of a sign-in value: the server refuses it rather than drop it. */
const REFUSED = { consequence: "mcp --http will not start with it" } as const;
const SIGN_IN_DOC = "see docs/sign-in.md";
const CLAIM_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;
/** RFC 6749 scope tokens; a string of them is space-separated. */
const SCOPE = "[\\x21\\x23-\\x5B\\x5D-\\x7E]";

/** A URL as written (non-blank); its policy is config-url.ts's, checked after the schema. */
const url = (example: string) =>
  ({ ...NON_BLANK, errorMessage: "must be a URL (a string)", hint: example, ...REFUSED }) as const;

/** RFC 7662 introspection of opaque access tokens, as the resource server's own client. */
const IntrospectionBlock = {
  type: "object",
  additionalProperties: false,
  required: ["url", "clientId", "clientSecretEnv"],
  properties: {
    url: url("e.g. https://login.example.com/realms/eng"),
    clientId: { ...NON_BLANK, errorMessage: "must be a string", ...REFUSED },
    /** The environment variable holding the client secret (never the secret itself, never in a file). */
    clientSecretEnv: {
      type: "string",
      pattern: ENV_NAME_PATTERN.source,
      errorMessage: "must name an environment variable",
      hint: "the secret stays in the environment, e.g. clientSecretEnv: SKILLS_INTROSPECTION_SECRET",
      ...REFUSED,
    },
  },
  errorMessage: "must be a mapping { url, clientId, clientSecretEnv }",
  hint: SIGN_IN_DOC,
  ...REFUSED,
} as const;

const OAuthBlock = {
  type: "object",
  additionalProperties: false,
  required: ["issuer"],
  properties: {
    /** The authorization server's issuer, exactly as its tokens' `iss` says it. */
    issuer: url("e.g. https://login.example.com/realms/eng"),
    /** What `aud` must contain; absent: the public URL. */
    audience: {
      ...NON_BLANK,
      errorMessage: "must be a string",
      hint: "e.g. api://skills",
      ...REFUSED,
    },
    /** Scopes every token must carry: a list, or one space-separated string; absent or empty: none. */
    scopes: {
      anyOf: [
        { type: "null" },
        { type: "string", pattern: `^(${SCOPE}|\\s)*$` },
        {
          type: "array",
          items: { type: "string", pattern: `^${SCOPE}+$`, errorMessage: "must be a scope name", ...REFUSED },
        },
      ],
      errorMessage: "must be a list of scope names",
      hint: "e.g. scopes: [skills:read]",
      ...REFUSED,
    },
    /** The claim the access log names the caller by (default `sub`). */
    callerClaim: {
      type: "string",
      pattern: CLAIM_NAME.source,
      errorMessage: "must be a claim name",
      hint: "e.g. email",
      ...REFUSED,
    },
    introspection: IntrospectionBlock,
  },
  errorMessage: 'must be a mapping with at least "issuer"',
  hint: SIGN_IN_DOC,
  ...REFUSED,
} as const;

const MetricsMapping = {
  type: "object",
  additionalProperties: false,
  properties: {
    /** Absolute once read: resolved against the config file's folder. */
    tokenFile: {
      ...NON_BLANK,
      errorMessage: "must be a file path",
      hint: "e.g. ./metrics-token",
      ...REFUSED,
    },
  },
} as const;

/** `http:` in a config file. */
export const HttpBlock = {
  $id: "http",
  type: "object",
  additionalProperties: false,
  properties: {
    /** The canonical URL clients use, e.g. https://skills.example.com/mcp. */
    publicUrl: url("e.g. publicUrl: https://skills.example.com/mcp"),
    oauth: OAuthBlock,
    metrics: {
      anyOf: [{ type: "null" }, MetricsMapping],
      errorMessage: "must be a mapping { tokenFile }",
      ...REFUSED,
    },
  },
  errorMessage: "must be a mapping with keys like publicUrl, oauth",
} as const;

/** OAuth as declared, with `scopes` as a list (deduplicated) and `callerClaim` defaulted to `sub`. */
export type OAuthSettings = Omit<BlockOf<typeof OAuthBlock>, "scopes" | "callerClaim"> & {
  scopes: readonly string[];
  callerClaim: string;
};

export type MetricsSettings = BlockOf<typeof MetricsMapping>;

/** The `http:` settings in effect: the project's config over the user's, key by key (publicUrl, oauth, metrics). */
export type HttpSettings = Pick<BlockOf<typeof HttpBlock>, "publicUrl"> & {
  oauth?: OAuthSettings;
  metrics?: MetricsSettings;
};

/** One key as a file declared it: a usable value, or why not (`file:line:col: message`). */
export type Declared<T> = { ok: true; value: T } | { ok: false; problem: string };

/** What one file's `http:` says, each key usable or not; a key it does not have is absent. */
export type DeclaredHttpSettings = { [Key in keyof HttpSettings]?: Declared<NonNullable<HttpSettings[Key]>> };

export const HTTP_KEYS = ["publicUrl", "oauth", "metrics"] as const;

/**
 * Each key whole from the later file that declares it, `oauth` too (see mergeHttpSettings); no key
 * is ranked or the user's alone, so both files merge as plain declarations in order.
 */
const HTTP_RULES: MergeRules<DeclaredHttpSettings> = { publicUrl: "later", oauth: "later", metrics: "later" };

export interface HttpReadContext {
  file: string;
  /** A path as written, made absolute against the config file's folder (`~` expanded). */
  resolvePath: (path: string) => string;
  /** Where a key is in the file (`["http", "oauth", "issuer"]`), computed only for a message. */
  locate: (path: ConfigPath) => SourcePosition | undefined;
  /** Every problem, paths within `http:` (`["oauth", "issuer"]`). */
  report: ReportProblem;
}

/**
 * The `http:` value of one config file, checked; every problem is a positioned warning, and a
 * key with a problem in its value (not an unknown key) is declared unusable, with the first.
 */
export function readHttpSettings(value: unknown, ctx: HttpReadContext): DeclaredHttpSettings {
  const refusals = new Map<string, ConfigProblem>();
  const report: ReportProblem = (problem) => {
    const key = problem.path[0];
    if (typeof key === "string" && declares(HttpBlock, problem.path) && !refusals.has(key)) refusals.set(key, problem);
    ctx.report(problem);
  };
  const block = readBlock(HttpBlock, value, report, { key: "http" });
  if (block === undefined) return {};
  // What the schema cannot say: the URL policy, trimming, scopes as a list, paths made absolute.
  const url = (text: string, path: ConfigPath, problemOf = secureUrlProblem) => {
    const problem = problemOf(text.trim(), `"${["http", ...path].join(".")}"`);
    if (problem !== undefined) report({ message: `${problem}; ${REFUSED.consequence}`, path });
    return text.trim();
  };
  const values: HttpSettings = {};
  if (block.publicUrl !== undefined) values.publicUrl = url(block.publicUrl, ["publicUrl"], publicUrlProblem);
  if (block.oauth !== undefined) {
    const { issuer, audience, scopes, callerClaim, introspection } = block.oauth;
    const list = typeof scopes === "string" ? scopes.split(/\s+/).filter((s) => s !== "") : (scopes ?? []);
    values.oauth = {
      issuer: url(issuer, ["oauth", "issuer"]),
      scopes: [...new Set(list)],
      callerClaim: callerClaim ?? "sub",
      ...(audience !== undefined && { audience: audience.trim() }),
      ...(introspection !== undefined && {
        introspection: {
          url: url(introspection.url, ["oauth", "introspection", "url"]),
          clientId: introspection.clientId.trim(),
          clientSecretEnv: introspection.clientSecretEnv,
        },
      }),
    };
  }
  if (block.metrics !== undefined) {
    const tokenFile = block.metrics?.tokenFile;
    values.metrics = tokenFile === undefined ? {} : { tokenFile: ctx.resolvePath(tokenFile.trim()) };
  }
  // A key is declared as its value, or refused with its first problem.
  const declared = <T>(key: (typeof HTTP_KEYS)[number], read: T | undefined): Declared<T> | undefined => {
    const refused = refusals.get(key);
    if (refused === undefined) return read === undefined ? undefined : { ok: true, value: read };
    const at = ctx.locate(["http", ...refused.path]);
    return { ok: false, problem: `${ctx.file}${at ? `:${at.line}:${at.column}` : ""}: ${refused.message}` };
  };
  const publicUrl = declared("publicUrl", values.publicUrl);
  const oauth = declared("oauth", values.oauth);
  const metrics = declared("metrics", values.metrics);
  return { ...(publicUrl && { publicUrl }), ...(oauth && { oauth }), ...(metrics && { metrics }) };
}

/** `--public-url` and `http.publicUrl`: the canonical URL of the MCP endpoint, or why not. */
export function publicUrlProblem(text: string, what = "the public URL"): string | undefined {
  const problem = secureUrlProblem(text, what);
  if (problem !== undefined) return problem;
  if (new URL(text).search !== "") return `${what} must not have a query string`;
  return undefined;
}

/**
 * The settings in effect: for each of publicUrl, oauth and metrics, the project's declaration if
 * it has one, else the user's (the `oauth` block is taken whole: an issuer from one file and an
 * audience from another would be a token policy nobody wrote). `problems` are the declarations in
 * effect that cannot be used: the HTTP server refuses to start on any.
 */
export function mergeHttpSettings(...files: readonly (DeclaredHttpSettings | undefined)[]): {
  settings: HttpSettings;
  problems: string[];
} {
  const merged = mergeSettings(HTTP_RULES, {}, files);
  const settings: HttpSettings = {};
  const problems: string[] = [];
  for (const key of HTTP_KEYS) {
    const declared: Declared<unknown> | undefined = merged[key];
    if (declared === undefined) continue;
    if (!declared.ok) problems.push(declared.problem);
    else Object.assign(settings, { [key]: declared.value });
  }
  return { settings, problems };
}
