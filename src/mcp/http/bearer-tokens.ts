/** Static bearer tokens: read from `--token-file` or `SKILL_CENTRAL_TOKEN`, refused when short, compared in constant time. */
import { timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { sha256Bytes } from "../../storage/digest.ts";

/** The environment variable that may hold one token (label `env`), for containers and CI. */
export const TOKEN_ENV_VAR = "SKILL_CENTRAL_TOKEN";
/** Shorter tokens are refused at start-up: they can be guessed. */
export const MIN_TOKEN_CHARS = 16;

const LABEL = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
/** RFC 6750 `b64token`: what may follow `Bearer ` in an Authorization header. */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** A token file or variable that cannot be used; the message never contains a token. */
export class TokenConfigError extends Error {
  override readonly name = "TokenConfigError";
}

interface Entry {
  label: string;
  digest: Buffer;
}

export type Verdict = { ok: true; label: string } | { ok: false; reason: "missing" | "malformed" | "invalid" };

/**
 * The bearer tokens that may use the server, each with the label the access log shows instead of
 * it. Only SHA-256 digests are kept; a presented token is compared with every one of them in
 * constant time (equal-length digests, `timingSafeEqual`, no early exit), so neither its content
 * nor which token it resembles leaks through timing.
 */
export class BearerTokens {
  private constructor(private readonly entries: readonly Entry[]) {}

  /** Lines `LABEL TOKEN`; blank lines and `#` comments are skipped. `where` names the source in errors. */
  static parse(text: string, where: string): BearerTokens {
    const entries: Entry[] = [];
    const labels = new Set<string>();
    const digests = new Set<string>();
    text.split(/\r?\n/).forEach((raw, index) => {
      const line = raw.trim();
      if (line === "" || line.startsWith("#")) return;
      const at = `${where}:${index + 1}`;
      const parts = line.split(/\s+/);
      if (parts.length !== 2)
        throw new TokenConfigError(`${at}: expected "LABEL TOKEN" (two fields separated by spaces)`);
      const [label, token] = parts as [string, string];
      if (!LABEL.test(label))
        throw new TokenConfigError(`${at}: the label must be letters, digits, ".", "_", "@" or "-" (at most 64)`);
      if (labels.has(label)) throw new TokenConfigError(`${at}: the label "${label}" is used twice`);
      const entry = BearerTokens.entry(label, token, at);
      const hex = entry.digest.toString("hex");
      if (digests.has(hex)) throw new TokenConfigError(`${at}: this token is also given to another label`);
      entries.push(entry);
      labels.add(label);
      digests.add(hex);
    });
    return new BearerTokens(entries);
  }

  /** One token under one label (the environment variable). */
  static single(label: string, token: string, where: string): BearerTokens {
    return new BearerTokens([BearerTokens.entry(label, token.trim(), where)]);
  }

  private static entry(label: string, token: string, at: string): Entry {
    if (!TOKEN.test(token))
      throw new TokenConfigError(
        `${at}: the token has characters an Authorization header cannot carry (use letters, digits and -._~+/)`,
      );
    if (token.length < MIN_TOKEN_CHARS)
      throw new TokenConfigError(`${at}: the token is shorter than ${MIN_TOKEN_CHARS} characters`);
    return { label, digest: sha256Bytes(token) };
  }

  /** Both sources together; a label may not appear in both. */
  merge(other: BearerTokens): BearerTokens {
    const labels = new Set(this.entries.map((e) => e.label));
    const clash = other.entries.find((e) => labels.has(e.label));
    if (clash) throw new TokenConfigError(`the label "${clash.label}" is given twice`);
    return new BearerTokens([...this.entries, ...other.entries]);
  }

  get size(): number {
    return this.entries.length;
  }

  /** The label of the token an `Authorization` header carries, or why there is none. */
  check(authorization: string | null): Verdict {
    if (authorization === null || authorization.trim() === "") return { ok: false, reason: "missing" };
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return { ok: false, reason: "malformed" };
    const label = this.labelOf(match[1]!);
    return label === undefined ? { ok: false, reason: "invalid" } : { ok: true, label };
  }

  /** Whether `value` is one of the tokens (to refuse tokens put in a URL). */
  matches(value: string): boolean {
    return this.labelOf(value) !== undefined;
  }

  private labelOf(token: string): string | undefined {
    const presented = sha256Bytes(token);
    let found: string | undefined;
    for (const entry of this.entries) {
      if (timingSafeEqual(presented, entry.digest) && found === undefined) found = entry.label;
    }
    return found;
  }
}

/**
 * The tokens from `--token-file` and the environment variable, or undefined when neither gives
 * any. A token file others may read is used, with a warning.
 */
export async function loadBearerTokens(
  tokenFile: string | undefined,
  env: Record<string, string | undefined>,
  warn: (message: string) => void,
): Promise<BearerTokens | undefined> {
  let tokens: BearerTokens | undefined;
  if (tokenFile !== undefined) {
    warnIfOthersCanRead(tokenFile, warn);
    let text: string;
    try {
      text = await Bun.file(tokenFile).text();
    } catch (error) {
      throw new TokenConfigError(
        `--token-file: cannot read ${tokenFile} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
    tokens = BearerTokens.parse(text, tokenFile);
    if (tokens.size === 0) throw new TokenConfigError(`${tokenFile}: no tokens (lines "LABEL TOKEN")`);
  }
  const fromEnv = env[TOKEN_ENV_VAR];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    const single = BearerTokens.single("env", fromEnv, TOKEN_ENV_VAR);
    tokens = tokens ? tokens.merge(single) : single;
  }
  return tokens;
}

/**
 * The one token `/metrics` takes, from its file (trimmed), under the label `metrics`: only its
 * digest is kept and a presented token is compared in constant time (`BearerTokens`). A file
 * others may read is used, with a warning.
 */
export function loadMetricsToken(path: string, warn: (message: string) => void): BearerTokens {
  warnIfOthersCanRead(path, warn);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new TokenConfigError(
      `metrics token file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    );
  }
  if (text.trim() === "") throw new TokenConfigError(`${path}: no token (the metrics token file holds one token)`);
  return BearerTokens.single("metrics", text, path);
}

/** A file of secrets that users other than the owner may read is used, with this warning. */
export function warnIfOthersCanRead(path: string, warn: (message: string) => void): void {
  try {
    if ((statSync(path).mode & 0o077) !== 0) warn(`${path} can be read by other users: chmod 600 it`);
  } catch {
    // Reported by the read that follows.
  }
}
