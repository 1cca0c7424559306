/**
 * `policy.sources` patterns (docs/governance.md): which repositories and well-known origins a git
 * or url layer may come from. A pattern is read once, when its config is; matching a layer's URL
 * is a few string compares. The rules fail closed: anything this module cannot place exactly (a
 * `..` segment, an unknown transport, a pattern it cannot parse) matches nothing.
 *
 * - A pattern is a URL: `https://host[:port][/path]`, `ssh://`, `http://`, `git://` or `file:///path`.
 * - Its host is compared without case; a leading `*.` matches any sub-domain (not the domain itself).
 *   A default port (443, 22, 80, 9418) is the same as none; any other must be the same.
 * - Its path is compared with case, segment by segment: `*` within one segment, `**` any number of
 *   whole segments (none included). A trailing `/` or `.git` is left out on both sides.
 * - No path (or `/`): every repository and index of that origin.
 * - A git layer's path must match the whole pattern path; a url layer's index path must start
 *   with it (an index lives below the folder a pattern names).
 * - Transport: an `https://` or `ssh://` pattern names a secure host: it matches the repository over
 *   https, ssh:// and scp-like `git@host:path`, never over plain `http://` or `git://`, which anyone
 *   on the way can change. An `http://` or `git://` pattern also allows that plaintext transport.
 *   A `file://` pattern matches `file://` URLs and absolute local paths only.
 * - Credentials in a layer's URL are ignored (a pattern carrying a password is refused as a pattern).
 */

type Transport = "https" | "ssh" | "http" | "git" | "file";

/** A repository or index location reduced to what a pattern compares. */
interface Place {
  transport: Transport;
  /** Lower case, no port; "" for a local path. */
  host: string;
  port: string;
  /** Decoded segments, no empty ones. */
  segments: string[];
}

export interface SourcePattern {
  /** As written in the config. */
  text: string;
  transport: Transport;
  /** Lower case; `*.` prefix kept. */
  host: string;
  port: string;
  segments: string[];
}

const DEFAULT_PORTS: Record<Transport, string> = { https: "443", ssh: "22", http: "80", git: "9418", file: "" };
const SCHEMES: Record<string, Transport> = {
  "https:": "https",
  "ssh:": "ssh",
  "http:": "http",
  "git:": "git",
  "file:": "file",
  "git+ssh:": "ssh",
  "ssh+git:": "ssh",
};

/** Path segments, decoded, with a trailing `/` and `.git` left out; undefined when a segment is `.`, `..` or hides a `/`. */
function segmentsOf(path: string): string[] | undefined {
  const parts = path
    .replace(/\/+$/, "")
    .replace(/\.git$/, "")
    .split("/")
    .filter((s) => s !== "");
  const decoded: string[] = [];
  for (const part of parts) {
    let text: string;
    try {
      text = decodeURIComponent(part);
    } catch {
      return undefined;
    }
    if (text === "." || text === ".." || text.includes("/") || text.includes("\\")) return undefined;
    decoded.push(text);
  }
  return decoded;
}

/** `host[:port]` split; the port empty when it is the transport's default. */
function hostPort(authority: string, transport: Transport): { host: string; port: string } | undefined {
  const at = authority.lastIndexOf("@");
  const hostPart = authority.slice(at + 1);
  const match = /^(\[[^\]]+\]|[^:]*)(?::(\d*))?$/.exec(hostPart);
  if (!match) return undefined;
  const host = match[1]!.toLowerCase();
  const port = match[2] ?? "";
  return { host, port: port === DEFAULT_PORTS[transport] ? "" : port };
}

/** Where a git or well-known URL points, or undefined when it cannot be placed (matches no pattern). */
export function placeOf(url: string): Place | undefined {
  const text = url.trim();
  if (text.startsWith("/")) {
    const segments = segmentsOf(text);
    return segments && { transport: "file", host: "", port: "", segments };
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*:)\/\/([^/?#]*)([^?#]*)([?#].*)?$/.exec(text);
  if (scheme) {
    const transport = SCHEMES[scheme[1]!.toLowerCase()];
    if (transport === undefined) return undefined;
    const where = hostPort(scheme[2]!, transport);
    const segments = segmentsOf(scheme[3]!);
    if (where === undefined || segments === undefined) return undefined;
    if (transport === "file" && where.host !== "" && where.host !== "localhost") return undefined;
    if (transport !== "file" && where.host === "") return undefined;
    return { transport, host: transport === "file" ? "" : where.host, port: where.port, segments };
  }
  // A drive-letter path is git's local path on Windows: no pattern places it (refused).
  if (/^[A-Za-z]:[\\/]/.test(text)) return undefined;
  // scp-like `[user@]host:path` (git's rule: no slash before the first colon): ssh.
  const colon = text.indexOf(":");
  if (colon <= 0 || text.slice(0, colon).includes("/") || text.includes("::")) return undefined;
  const where = hostPort(text.slice(0, colon).replace(/:.*/, ""), "ssh");
  const segments = segmentsOf(text.slice(colon + 1));
  if (where === undefined || where.host === "" || segments === undefined) return undefined;
  return { transport: "ssh", host: where.host, port: "", segments };
}

/** A pattern read from a config, or why it is not one (the words never repeat a password). */
export function parseSourcePattern(text: string): SourcePattern | { problem: string } {
  const trimmed = text.trim();
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*:)\/\/([^/?#]*)([^?#]*)([?#].*)?$/.exec(trimmed);
  if (!scheme) return { problem: "must be a URL pattern such as https://github.com/acme/* or file:///srv/git/*" };
  const transport = SCHEMES[scheme[1]!.toLowerCase()];
  if (transport === undefined)
    return {
      problem: `uses "${scheme[1]!.slice(0, -1)}://"; a pattern is https://, ssh://, http://, git:// or file://`,
    };
  if (scheme[4] !== undefined) return { problem: "has a query or fragment; a pattern is a host and a path" };
  const authority = scheme[2]!;
  const userinfo = authority.includes("@") ? authority.slice(0, authority.lastIndexOf("@")) : "";
  if (userinfo.includes(":"))
    return { problem: "carries a password; a pattern names a host and a path, never credentials" };
  const where = hostPort(authority, transport);
  if (where === undefined) return { problem: "has a host that cannot be read" };
  if (transport === "file" ? where.host !== "" && where.host !== "localhost" : where.host === "")
    return { problem: transport === "file" ? "must be file:///absolute/path" : "needs a host" };
  if (where.host.slice(where.host.startsWith("*.") ? 2 : 0).includes("*"))
    return { problem: "may use * in its host only as a leading *. (any sub-domain)" };
  const segments = segmentsOf(scheme[3]!);
  if (segments === undefined) return { problem: "has a . or .. segment in its path" };
  if (transport === "file" && segments.length === 0)
    return { problem: "must name a folder (file:/// alone allows every local path)" };
  if (segments.some((s) => s.includes("**") && s !== "**"))
    return { problem: "may use ** only as a whole segment (…/**/…)" };
  return {
    text: trimmed,
    transport,
    host: transport === "file" ? "" : where.host,
    port: where.port,
    segments,
  };
}

/** Which transports a pattern's scheme allows: a secure one's host over any secure transport. */
function transportAllowed(pattern: Transport, place: Transport): boolean {
  if (pattern === "file" || place === "file") return pattern === place;
  if (place === "https" || place === "ssh") return true;
  return place === pattern;
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return pattern === host;
}

/** One segment against a pattern segment: `*` any run of characters within it. */
function segmentMatches(pattern: string, segment: string): boolean {
  if (!pattern.includes("*")) return pattern === segment;
  const parts = pattern.split("*");
  let at = 0;
  for (const [i, part] of parts.entries()) {
    if (i === 0) {
      if (!segment.startsWith(part)) return false;
      at = part.length;
    } else if (i === parts.length - 1) {
      return segment.length - part.length >= at && segment.endsWith(part);
    } else {
      const found = segment.indexOf(part, at);
      if (found < 0) return false;
      at = found + part.length;
    }
  }
  return at === segment.length;
}

/** Whether `segments` match `pattern` wholly (or, with `prefix`, in their leading part). */
function pathMatches(pattern: readonly string[], segments: readonly string[], prefix: boolean): boolean {
  // Each (pattern, segment) position is tried once: several `**` never make the walk exponential.
  const failed = new Set<number>();
  const match = (p: number, s: number): boolean => {
    if (p === pattern.length) return prefix || s === segments.length;
    const key = p * (segments.length + 1) + s;
    if (failed.has(key)) return false;
    let ok = false;
    if (pattern[p] === "**") {
      for (let next = s; next <= segments.length && !ok; next++) ok = match(p + 1, next);
    } else ok = s < segments.length && segmentMatches(pattern[p]!, segments[s]!) && match(p + 1, s + 1);
    if (!ok) failed.add(key);
    return ok;
  };
  return match(0, 0);
}

/**
 * Whether a layer's URL is allowed by `pattern`: a git layer's repository (`kind: "git"`) by its
 * whole path, a url layer's index (`"well-known"`) by its origin and a leading part of its path.
 */
export function sourceMatches(pattern: SourcePattern, url: string, kind: "git" | "well-known"): boolean {
  const place = placeOf(url);
  if (place === undefined || !transportAllowed(pattern.transport, place.transport)) return false;
  if (!hostMatches(pattern.host, place.host)) return false;
  // A port is part of the origin: ssh's port is not https's, so a secure match across transports needs the default.
  if (pattern.port !== place.port) return false;
  if (pattern.segments.length === 0) return true;
  return pathMatches(pattern.segments, place.segments, kind === "well-known");
}
