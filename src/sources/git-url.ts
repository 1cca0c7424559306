/** Repository URLs: which forms a config may give git (never `ext::`), and credentials redacted wherever a person reads one. */
import { shortHash } from "../storage/digest.ts";

/**
 * Repository URLs as a config may write them, and the only forms we hand to git: `https://`,
 * `http://`, `ssh://`, `git://`, `file://`, scp-like `user@host:path`, and absolute local paths.
 * Git's `<transport>::<address>` forms (`ext::` runs a command) and anything else are refused.
 */
export type GitUrlKind = "http" | "ssh" | "git" | "file" | "scp" | "local";

const SCHEMES: Record<string, GitUrlKind> = {
  "https:": "http",
  "http:": "http",
  "ssh:": "ssh",
  "git:": "git",
  "file:": "file",
};

/** The transport of `url`, or why it is not one we use. */
export function classifyGitUrl(url: string): { kind: GitUrlKind } | { problem: string } {
  if (url.startsWith("-")) return { problem: "is not a repository URL" };
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(url))
    return {
      problem: "uses a git remote helper (<transport>::); only https, http, ssh, git and file URLs are fetched",
    };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*:)\/\//.exec(url)?.[1]?.toLowerCase();
  if (scheme) {
    const kind = SCHEMES[scheme];
    return kind
      ? { kind }
      : { problem: `uses "${scheme.slice(0, -1)}://"; only https, http, ssh, git and file URLs are fetched` };
  }
  if (url.startsWith("/") || /^[A-Za-z]:[\\/]/.test(url)) return { kind: "local" };
  // scp-like: `host:path` where the part before the first colon has no slash (git's own rule).
  const colon = url.indexOf(":");
  if (colon > 0 && colon < url.length - 1 && !url.slice(0, colon).includes("/")) return { kind: "scp" };
  return { problem: "is not a repository URL (use https://…, ssh://…, user@host:path, or file:///path)" };
}

const SCHEME_USERINFO = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^/@]*)@/;

/**
 * For messages and files people read: credentials in a URL become `***`. An http(s) user name is
 * redacted too (tokens are often passed as the user name); an ssh user name (`git@`) is kept.
 */
export function redactUrl(url: string): string {
  const match = SCHEME_USERINFO.exec(url);
  if (!match) return url;
  const [, scheme, userinfo] = match as unknown as [string, string, string];
  const rest = url.slice(match[0].length);
  if (/^https?:\/\//i.test(scheme)) return `${scheme}***@${rest}`;
  const user = userinfo.split(":")[0];
  return userinfo.includes(":") ? `${scheme}${user}:***@${rest}` : url;
}

/**
 * The repository's identity, as written to the lockfile and used to key the cache: the URL with
 * its credentials removed (never redacted to `***`, which would still say a secret was there).
 */
export function canonicalUrl(url: string): string {
  const match = SCHEME_USERINFO.exec(url);
  if (!match) return url;
  const [, scheme, userinfo] = match as unknown as [string, string, string];
  const rest = url.slice(match[0].length);
  if (/^https?:\/\//i.test(scheme)) return `${scheme}${rest}`;
  return `${scheme}${userinfo.split(":")[0]}@${rest}`;
}

/** The secret parts of `url`: what must never appear in anything we print. */
function secretsOf(url: string): string[] {
  const userinfo = SCHEME_USERINFO.exec(url)?.[2];
  if (!userinfo) return [];
  const [user = "", password = ""] = userinfo.split(":");
  const secrets = /^https?:/i.test(url) ? [user, password] : [password];
  return secrets
    .filter((s) => s.length >= 3)
    .flatMap((s) => {
      let decoded = s;
      try {
        decoded = decodeURIComponent(s);
      } catch {
        // Not percent-encoded: the raw form is the only one.
      }
      return decoded === s ? [s] : [s, decoded];
    });
}

/**
 * Text from git (or built around a URL) made safe to print: any `scheme://user:pass@` becomes
 * `scheme://***@`, and the secrets of `url` are replaced wherever they appear.
 */
export function redactText(text: string, url?: string): string {
  let out = text
    .replace(/([A-Za-z][A-Za-z0-9+.-]*:\/\/)[^/@\s'"]*:[^/@\s'"]*@/g, "$1***@")
    .replace(/(https?:\/\/)[^/@\s'":]+@/gi, "$1***@");
  for (const secret of url ? secretsOf(url) : []) out = out.split(secret).join("***");
  return out;
}

/** A folder name for the repository's cache entry: readable, and unique by a hash of its identity. */
export function cacheKey(url: string): string {
  const canonical = canonicalUrl(url);
  const readable = canonical
    .replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, "")
    .replace(/\.git$/, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[-.]+|-+$/g, "")
    .slice(-48);
  return `${readable || "repo"}-${shortHash(canonical, 16)}`;
}
