/**
 * The audit gate (docs/audit.md): a layer copy fetched by `sync` or the background refresh (a git
 * commit's files, a url layer's skills) is judged as it is staged, before it is put in place, and
 * a skill whose verdict reaches `audit.block` refuses the whole copy (the copy served before, if
 * any, stays), each refusal naming the skill, the rule and the place.
 *
 * What is judged is what the loader will serve, found the way the loader finds it: the staged
 * folder's skills by the loader's own discovery (storage/discover.ts), each folder's files by the
 * loader's own list (storage/served-files.ts: the examples file and hidden names left out, `_`
 * names kept), each YAML file on its own. A verdict is over exactly those files, cached by their
 * content (cache.ts, the cache `skill-central audit` and `audit.layers: all` read), and an
 * `audit.allow` entry lets one skill through only while the served files have exactly the digest
 * it pins (skill-digest.ts: the digest `skill-central audit` reports); a changed skill is judged
 * again. Whose entries count for which layer is allow-pins.ts.
 */
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";
import type { AuditSettings } from "../config/audit-settings.ts";
import { cacheRoot } from "../storage/cache-dir.ts";
import { shortDigest, sha256Hex } from "../storage/digest.ts";
import { discoverSkillFiles } from "../storage/discover.ts";
import { servedFolderFiles } from "../storage/served-files.ts";
import { pinOf } from "./allow-pins.ts";
import { auditSkill, type SkillContent } from "./audit-skill.ts";
import { type AuditCache, sharedAuditCache } from "./cache.ts";
import { RULES_BY_ID } from "./rules.ts";
import { anyReaches } from "./verdict.ts";

/**
 * The gate's settings for one layer: the config's block and pins, the layer's name (a project's
 * pin counts for its own layers only), and the results cache (the one `skill-central audit` reads).
 */
export type GateSettings = Pick<AuditSettings, "block" | "allow"> & { layer: string; cache?: AuditCache };

/**
 * The gate of one layer under a config's `audit:` (none when it has none), with the process's
 * results cache under `home`: a project's `audit.allow` entry counts for the project's own layers only.
 */
export function gateFor(audit: AuditSettings | undefined, layer: string, home: string): GateSettings | undefined {
  return audit && { block: audit.block, allow: audit.allow, layer, cache: sharedAuditCache(cacheRoot(home)) };
}

export interface GateOutcome {
  /** One line per blocked skill: what blocks it and where. Empty: the copy may be put in place. */
  refused: string[];
  /** Skills let through by `audit.allow`, with the reason given there. */
  allowed: string[];
}

/** One skill of a copy as the loader will serve it. */
export interface ServedSkill {
  /** A folder's `name:` (else its folder's name), or a skill file's `id:` (else its file name). */
  id: string;
  kind: "folder" | "file";
  /** Where it is in the copy, `/`-separated, for messages: `review/` (a folder), `prompts/x.yaml` (a file). */
  place: string;
  /** The served files: relative to the skill's folder (`SKILL.md` first, whatever its case on disk), or to the copy (a file). */
  files: { path: string; abs: string }[];
}

const toPosix = (path: string) => path.split(sep).join("/");

/** A value of a `key:` line near the top of a file: a skill's id as the loader would read it, for pins and messages. */
function keyOf(bytes: Uint8Array, key: string): string | undefined {
  const text = new TextDecoder().decode(bytes.subarray(0, 64 * 1024));
  return new RegExp(`^${key}\\s*:\\s*["']?([A-Za-z0-9][\\w.-]*)["']?\\s*$`, "m").exec(text)?.[1];
}

/**
 * The skills of a layer copy on disk and the files the loader serves for each: the same discovery
 * and the same folder listing as a load of the copy (a copy holds no other layer's folder).
 */
export function servedSkillsOf(dir: string): ServedSkill[] {
  const found = discoverSkillFiles(dir);
  const skills: ServedSkill[] = [];
  for (const folder of found.folders) {
    const { listing, names } = servedFolderFiles(folder.dir, folder.skillFile);
    const byRel = new Map(listing.files.map((f) => [f.rel, f.abs]));
    const skillRel = toPosix(relative(folder.dir, folder.skillFile));
    // A folder over the file limit serves no files but its SKILL.md: what was listed is judged all the same.
    const served = listing.filesRefused ? listing.files.map((f) => f.rel) : names;
    const files = served.map((rel) => ({ path: rel === skillRel ? "SKILL.md" : rel, abs: byRel.get(rel)! }));
    if (!files.some((f) => f.path === "SKILL.md")) files.unshift({ path: "SKILL.md", abs: folder.skillFile });
    const place = toPosix(relative(dir, folder.dir));
    skills.push({ id: "", kind: "folder", place: place === "" ? "./" : `${place}/`, files });
  }
  for (const file of found.files) {
    const path = toPosix(relative(dir, file));
    skills.push({ id: "", kind: "file", place: path, files: [{ path, abs: file }] });
  }
  return skills.sort((a, b) => (a.place < b.place ? -1 : a.place > b.place ? 1 : 0));
}

function readOrEmpty(path: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch {
    return new Uint8Array();
  }
}

/** One served skill's content for auditSkill: each file read once, its SHA-256 the cache's key. */
function contentOf(skill: ServedSkill): { content: SkillContent; id: string } {
  const bytes = new Map(skill.files.map((f) => [f.path, readOrEmpty(f.abs)]));
  const first = bytes.get(skill.kind === "folder" ? "SKILL.md" : skill.files[0]!.path)!;
  const fallback =
    skill.kind === "folder"
      ? skill.place === "./"
        ? "(layer root)"
        : skill.place.slice(0, -1).split("/").pop()!
      : skill.place
          .split("/")
          .pop()!
          .replace(/\.(?:ya?ml|json)$/i, "");
  const id = keyOf(first, skill.kind === "folder" ? "name" : "id") ?? fallback;
  return {
    id,
    content: {
      kind: skill.kind,
      files: [...bytes].map(([path, b]) => ({ path, sha256: sha256Hex(b) })),
      readFile: (path) => bytes.get(path),
    },
  };
}

/** A running server's requests wait at most about this long, or this many skills, for the gate of a background refresh. */
const SLICE_MS = 20;
const SLICE_SKILLS = 64;

/**
 * The gate on a layer copy written to `dir` (staged, not yet in place): every skill the loader
 * would serve from it, judged over exactly its served files, results taken from and put in the cache.
 * It gives the event loop a turn every few milliseconds, so a server refreshing a large layer in
 * the background keeps answering.
 */
export async function auditCopy(dir: string, settings: GateSettings): Promise<GateOutcome> {
  const outcome: GateOutcome = { refused: [], allowed: [] };
  if (settings.block === "never") return outcome;
  let [slice, judged] = [performance.now(), 0];
  for (const skill of servedSkillsOf(dir)) {
    if (++judged > SLICE_SKILLS || performance.now() - slice > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      [slice, judged] = [performance.now(), 1];
    }
    const { content, id } = contentOf(skill);
    // The digest only of a blocked skill: for its pin, and for the message a person copies it from.
    const audit = auditSkill(settings.cache, content, (findings) => anyReaches(findings, settings.block));
    if (!anyReaches(audit.findings, settings.block)) continue;
    const { pin: allow, ignored } = pinOf(settings.allow, {
      id,
      layer: settings.layer,
      findings: audit.findings,
      ...(audit.digest !== undefined && { digest: audit.digest }),
    });
    if (allow && audit.digest !== undefined) {
      outcome.allowed.push(`${id} (${shortDigest(audit.digest)}): allowed by audit.allow: ${allow.reason}`);
      continue;
    }
    const worst = audit.findings.filter((f) => anyReaches([f], settings.block));
    const where = skill.kind === "folder" && skill.place !== "./" ? skill.place : "";
    const shown = worst
      .slice(0, 3)
      .map((f) => `${f.rule} at ${where}${f.file}:${f.line}:${f.column} (${RULES_BY_ID.get(f.rule)?.fix ?? ""})`);
    const more = worst.length > 3 ? `, and ${worst.length - 3} more` : "";
    const pinned = audit.digest !== undefined ? ` (${audit.digest})` : "";
    outcome.refused.push(
      `skill "${id}" is blocked by the audit${pinned}: ${shown.join("; ")}${more}; see \`skill-central audit\`, or pin this version in audit.allow${ignored.map((i) => ` (${i.file}: ${i.message})`).join("")}`,
    );
  }
  return outcome;
}
