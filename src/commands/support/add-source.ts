/**
 * What `skill-central add SOURCE` was given, read into the layer it declares: a folder of this
 * machine, a git repository (a URL, or GitHub's `owner/repo[/path][@ref]` shorthand), or an
 * Agent Skills well-known index. The rules are fixed and documented (docs/cli.md#add) so a
 * SOURCE never means one thing here and another on a colleague's machine:
 *
 * 1. `.`, `./x`, `../x`, `/x`, `~/x` (and `C:\x`) are folders.
 * 2. `ssh://`, `git://`, `file://` and `user@host:path` are git URLs.
 * 3. `http(s)://`: a URL naming `.well-known/` or `index.json` is an index; a bare origin
 *    (`https://example.com`) is the index it serves at `/.well-known/agent-skills/`; any other
 *    path is a git repository (`https://gitlab.com/team/skills`).
 * 4. `owner/repo[/path][@ref]` is a GitHub repository over https, unless a folder of that name
 *    exists here: then it is refused as ambiguous (write `./owner/repo` or the URL).
 * 5. A bare name (`skills`) is a folder that must exist.
 */
import { existsSync, statSync } from "node:fs";
import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { UsageError } from "./options.ts";

export type AddSource =
  | { kind: "git"; url: string; ref?: string; path?: string; name: string }
  | { kind: "well-known"; url: string; name: string }
  /** `path` as the config will say it: `./x` inside the project, else absolute. */
  | { kind: "path"; path: string; dir: string; name: string };

const FOLDER_FORM = /^(\.\.?([\\/]|$)|[\\/]|~([\\/]|$)|[A-Za-z]:[\\/])/;
const GIT_SCHEME = /^(ssh|git|file|git\+ssh):\/\//i;
const SCP_FORM = /^[\w.-]+@[\w.-]+:(?!\/\/)/;
const SHORTHAND = /^([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9._-]+)((?:\/[^@\s]+)*)(?:@([^\s]+))?$/;

/** A layer name from a repository, host or folder name: lowercase words joined by hyphens. */
function layerNameFrom(text: string): string {
  const name = text
    .replace(/\.git$/i, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return name === "" ? "layer" : name;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function folder(text: string, cwd: string, home: string): AddSource {
  const expanded = text === "~" || /^~[\\/]/.test(text) ? home + text.slice(1) : text;
  const dir = resolve(cwd, expanded);
  if (!isDir(dir)) throw new UsageError(`"${text}" is not a folder`);
  const rel = relative(cwd, dir);
  const inside = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
  const path = rel === "" ? "." : inside ? `./${rel.split(sep).join("/")}` : dir;
  return { kind: "path", path, dir, name: layerNameFrom(basename(dir)) };
}

/** The last segment of a repository URL's path: the repository's name. */
function repoName(url: string): string {
  const path = url.replace(/[?#].*$/, "").replace(/\/+$/, "");
  return layerNameFrom(path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf(":")) + 1));
}

function web(text: string): AddSource {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`"${text}" is not a valid URL`);
  }
  const host = layerNameFrom(url.hostname.replace(/^www\./, ""));
  if (/\/\.well-known\//.test(url.pathname) || url.pathname.endsWith("/index.json"))
    return { kind: "well-known", url: text, name: host };
  if (url.pathname === "/" || url.pathname === "") {
    if (url.search !== "" || url.hash !== "") throw new UsageError(`"${text}": an origin takes no query or fragment`);
    return { kind: "well-known", url: `${url.origin}/.well-known/agent-skills/`, name: host };
  }
  return { kind: "git", url: text, name: repoName(url.pathname) };
}

/** Reads SOURCE by the rules above; `cwd` resolves folders, `home` expands `~`. */
export function readAddSource(text: string, cwd: string, home: string): AddSource {
  const source = text.trim();
  if (source === "") throw new UsageError("SOURCE is empty");
  if (FOLDER_FORM.test(source)) return folder(source, cwd, home);
  if (/^https?:\/\//i.test(source)) return web(source);
  if (GIT_SCHEME.test(source) || SCP_FORM.test(source)) return { kind: "git", url: source, name: repoName(source) };
  const short = SHORTHAND.exec(source);
  if (short) {
    const [, owner, repo, inner, ref] = short;
    const asFolder = resolve(cwd, source);
    if (existsSync(asFolder))
      throw new UsageError(
        `"${source}" is both a folder here and GitHub's ${owner}/${repo}: write ./${source} for the folder, or https://github.com/${owner}/${repo} for the repository`,
      );
    const path = inner!.replace(/^\/+|\/+$/g, "");
    return {
      kind: "git",
      url: `https://github.com/${owner}/${repo!.replace(/\.git$/i, "")}.git`,
      ...(path !== "" && { path }),
      ...(ref !== undefined && { ref }),
      name: layerNameFrom(repo!),
    };
  }
  if (!source.includes("/") && isDir(resolve(cwd, source))) return folder(source, cwd, home);
  throw new UsageError(
    `"${source}" is not a folder here, a git URL, an https:// index or owner/repo[/path][@ref] (see skill-central add --help)`,
  );
}
