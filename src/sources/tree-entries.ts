/**
 * What a commit's folder may contain before anything is written: only regular files, under
 * names that are safe and unambiguous on every file system we run on, within size limits.
 * A tree that breaks a rule is refused as a whole: a partial copy would silently differ from
 * what the skill authors see in their repository.
 */

export interface TreeFile {
  /** `/`-separated, relative to the layer's folder in the repository. */
  path: string;
  /** Blob object id. */
  oid: string;
  size: number;
  executable: boolean;
}

export interface TreeLimits {
  maxFiles: number;
  maxFileBytes: number;
  maxTotalBytes: number;
}

export const DEFAULT_LIMITS: TreeLimits = {
  maxFiles: 20_000,
  maxFileBytes: 4 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024,
};

export type TreeCheck = { ok: true; files: TreeFile[]; totalBytes: number } | { ok: false; problems: string[] };

/** At most this many problems are listed; a hostile tree can have millions. */
export const MAX_PROBLEMS = 10;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** One `git ls-tree -r -l -z` record: `<mode> SP <type> SP <oid> SP+ <size> TAB <path>`. */
interface RawEntry {
  mode: string;
  type: string;
  oid: string;
  size: string;
  path: string | undefined;
}

function parseRecords(output: Uint8Array): RawEntry[] {
  const entries: RawEntry[] = [];
  let start = 0;
  while (start < output.length) {
    let end = output.indexOf(0, start);
    if (end < 0) end = output.length;
    const record = output.subarray(start, end);
    start = end + 1;
    const tab = record.indexOf(9);
    if (tab < 0) continue;
    const [mode = "", type = "", oid = "", size = ""] = new TextDecoder().decode(record.subarray(0, tab)).split(/ +/);
    let path: string | undefined;
    try {
      path = utf8.decode(record.subarray(tab + 1));
    } catch {
      path = undefined;
    }
    entries.push({ mode, type, oid, size, path });
  }
  return entries;
}

/** Names Windows and macOS treat specially, or that git itself would refuse in a work tree. */
function segmentProblem(segment: string): string | undefined {
  if (segment === "" || segment === "." || segment === "..") return `"${segment}" path segment`;
  // `.git`, `.GIT`, `.git.` and `.git ` all name the repository folder somewhere; `git~1` is its
  // 8.3 short name on Windows.
  if (/^\.git[. ]*$/i.test(segment) || /^git~\d+$/i.test(segment)) return `"${segment}" path segment (a git folder)`;
  if (/[\x00-\x1f\x7f\\]/.test(segment)) return "a control character or backslash in a name";
  return undefined;
}

/** Two names that one file system may store as one: case-folded and Unicode-normalised. */
function collisionKey(path: string): string {
  return path.normalize("NFC").toLowerCase().normalize("NFC");
}

/** Parses and checks `git ls-tree -r -l -z` output against the rules and the limits. */
export function checkTree(output: Uint8Array, limits: TreeLimits = DEFAULT_LIMITS): TreeCheck {
  const problems: string[] = [];
  const problem = (text: string) => {
    if (problems.length < MAX_PROBLEMS) problems.push(text);
    else if (problems.length === MAX_PROBLEMS) problems.push("… and more");
  };
  const entries = parseRecords(output);
  if (entries.length > limits.maxFiles) {
    return { ok: false, problems: [`${entries.length} entries is over the limit of ${limits.maxFiles} files`] };
  }
  const files: TreeFile[] = [];
  // Every file and every folder on its way, by collision key: one spelling each.
  const spellings = new Map<string, string>();
  let totalBytes = 0;
  for (const entry of entries) {
    const shown = entry.path ?? "(a name that is not UTF-8)";
    if (entry.path === undefined) {
      problem(`${shown}: file names must be UTF-8`);
      continue;
    }
    if (entry.mode === "120000") {
      problem(`${shown}: symbolic links are not copied`);
      continue;
    }
    if (entry.mode === "160000" || entry.type === "commit") {
      problem(`${shown}: submodules are not copied`);
      continue;
    }
    if ((entry.mode !== "100644" && entry.mode !== "100755") || entry.type !== "blob") {
      problem(`${shown}: mode ${entry.mode} ${entry.type} is not a regular file`);
      continue;
    }
    const segments = entry.path.split("/");
    const bad = segments.map(segmentProblem).find(Boolean);
    if (bad) {
      problem(`${shown}: ${bad}`);
      continue;
    }
    const size = Number(entry.size);
    if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(entry.oid) || !Number.isSafeInteger(size) || size < 0) {
      problem(`${shown}: unreadable tree entry`);
      continue;
    }
    if (size > limits.maxFileBytes) {
      problem(`${shown}: ${size} bytes is over the limit of ${limits.maxFileBytes} bytes per file`);
      continue;
    }
    let collided = false;
    for (let i = 1; i <= segments.length; i++) {
      const spelling = segments.slice(0, i).join("/");
      const key = collisionKey(spelling);
      const seen = spellings.get(key);
      if (seen === undefined) spellings.set(key, spelling);
      else if (seen !== spelling || i === segments.length) {
        const how =
          seen.normalize("NFC") === spelling.normalize("NFC")
            ? "the same name in another Unicode normal form (NFC/NFD)"
            : "on a case-insensitive file system";
        problem(`${shown}: collides with ${seen}, ${how}`);
        collided = true;
        break;
      }
    }
    if (collided) continue;
    totalBytes += size;
    files.push({ path: entry.path, oid: entry.oid, size, executable: entry.mode === "100755" });
  }
  if (totalBytes > limits.maxTotalBytes)
    problem(`${totalBytes} bytes in all is over the limit of ${limits.maxTotalBytes} bytes`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, files, totalBytes };
}
