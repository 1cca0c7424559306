/** `skill-central publish`: the Agent Skills well-known index of the served skills written for a static host, deterministically. */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { auditEntryMeta } from "../registry/audit-attestation.ts";
import { publishedBytes } from "../registry/published-bytes.ts";
import { buildWellKnownTree, type WellKnownTree } from "../registry/well-known-index.ts";
import {
  INDEX_FILE,
  indexPublished,
  SEMVER_PATTERN,
  stampIndex,
  WELL_KNOWN_PATH,
} from "../sources/well-known/format.ts";
import { publishedRegistry } from "../registry/published-layers.ts";
import { INDEX_SIGNATURE_FILE } from "../sources/signatures.ts";
import { digestOf } from "../storage/digest.ts";
import { displayPath } from "../storage/display-path.ts";
import { fingerprint, type SshPrivateKey } from "../storage/sshsig.ts";
import { indexSignature, loadSigningKey } from "./support/index-signature.ts";
import { command, EXIT_FAILURE, EXIT_OK, json, load, plural, reportLoad, UsageError } from "./support/command.ts";
import { flag, text } from "./support/options.ts";
import { visibleLine } from "../visible-text.ts";

/** A snapshot folder's name: `v` and a semantic version. */
const SNAPSHOT_DIR = /^v\d+\.\d+\.\d+/;

/** Writes `bytes` unless the file already holds exactly them (so a re-publish touches nothing). */
async function writeIfChanged(file: string, bytes: Uint8Array): Promise<boolean> {
  const before = await readFile(file).catch(() => undefined);
  if (before !== undefined && Buffer.compare(before, bytes) === 0) return false;
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, bytes);
  return true;
}

/** Every file under `dir`, relative, except inside snapshot folders (immutable once written). */
async function existingFiles(dir: string, rel = ""): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(join(dir, rel), { withFileTypes: true }).catch(() => [])) {
    const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      if (rel === "" && SNAPSHOT_DIR.test(entry.name)) continue;
      for (const file of await existingFiles(dir, path)) found.push(file);
    } else found.push(path);
  }
  return found;
}

/**
 * The index a signed publish writes into `dir`: stamped with when it was published (format.ts
 * `PUBLISHED_KEY`), which consumers use to refuse an older index. Skills unchanged since the
 * index already there keep its time (so a re-publish writes nothing); changed ones get now, and
 * always a time after the previous one, whatever the clock says.
 */
async function stampedIndex(dir: string, tree: WellKnownTree): Promise<Uint8Array> {
  const before = await readFile(join(dir, INDEX_FILE)).catch(() => undefined);
  const previous = before && indexPublished(new Uint8Array(before));
  if (previous !== undefined && Buffer.compare(stampIndex(tree.index, previous), before!) === 0) return before!;
  const second = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
  const now = Date.now();
  const after = previous === undefined ? now : Math.max(now, Date.parse(previous) + 1000);
  return stampIndex(tree.index, second(after));
}

/** Writes the tree into `dir`; with `prune`, files of skills no longer published go. Returns the files written. */
async function writeTree(
  dir: string,
  tree: WellKnownTree,
  prune: boolean,
  signing?: { key: SshPrivateKey; index: Uint8Array },
): Promise<number> {
  const wanted = new Map<string, Uint8Array>([[INDEX_FILE, signing?.index ?? tree.index]]);
  if (signing) {
    const existing = await readFile(join(dir, INDEX_SIGNATURE_FILE)).catch(() => undefined);
    wanted.set(INDEX_SIGNATURE_FILE, indexSignature(signing.key, signing.index, existing && new Uint8Array(existing)));
  }
  for (const artifact of tree.artifacts.values()) wanted.set(artifact.path, artifact.bytes);
  if (prune) {
    for (const stale of (await existingFiles(dir)).filter((f) => !wanted.has(f))) await rm(join(dir, stale));
  }
  let written = 0;
  // The index (and its signature) last: a host serving the folder meanwhile never lists an artifact not there yet.
  const last = (path: string) => (path === INDEX_FILE ? 1 : path === INDEX_SIGNATURE_FILE ? 2 : 0);
  for (const [path, bytes] of [...wanted].sort(([a], [b]) => last(a) - last(b)))
    if (await writeIfChanged(join(dir, path), bytes)) written++;
  return written;
}

/** What the index leaves out and why, and what a YAML prompt loses as a `SKILL.md`; empty when nothing. */
function leftOutReport(tree: WellKnownTree): string {
  const lines = tree.leftOut.map((l) => `  ${visibleLine(`${l.name}: ${l.reason}`)}\n`);
  const left = lines.length > 0 ? `${plural(lines.length, "skill")} left out:\n${lines.join("")}` : "";
  const names = tree.promptsAsText;
  if (names.length === 0) return left;
  return (
    `${left}note: ${plural(names.length, "YAML prompt")} published as a SKILL.md of its template's text (${visibleLine(names.join(", "))}): ` +
    "an Agent Skills client gets no arguments to fill in, and {{…}} reaches it as written; MCP clients still get " +
    "the prompts (docs/well-known.md)\n"
  );
}

export const spec = command({
  name: "publish",
  summary: "Write the Agent Skills well-known index of the effective skills for a static host",
  usage: "publish <dir> [--snapshot X.Y.Z] [--include-restricted] [--sign KEYFILE] [--json]",
  description:
    "Writes <dir>/.well-known/agent-skills/index.json and one artifact per skill (a lone SKILL.md, or a\n" +
    ".tar.gz of a skill folder), the same tree `mcp --http` serves live. The output is deterministic:\n" +
    "the same skills give byte-identical files, and files of skills no longer served are removed.\n\n" +
    "--snapshot X.Y.Z also writes the immutable v<X.Y.Z>/index.json with its own artifacts, and refuses\n" +
    "to overwrite a snapshot that exists.\n\n" +
    "A static tree has no callers: layers with visibleTo are left out (and named), as for a caller\n" +
    "who sees none of them; --include-restricted publishes them too. See docs/well-known.md.\n\n" +
    "--sign KEYFILE signs each index.json written with an OpenSSH private key: index.json.sig beside it\n" +
    "(namespace agent-skills), which a url layer with `signers` requires. See docs/provenance.md.",
  options: {
    snapshot: text("<X.Y.Z>", "Also write the immutable snapshot v<X.Y.Z>/ (refused if it exists)"),
    "include-restricted": flag(
      "Publish the layers with visibleTo too (left out by default: anyone can read the files)",
    ),
    sign: text("<keyfile>", "Sign each index.json with this OpenSSH private key (index.json.sig)"),
  },
  examples: [
    "skill-central publish public",
    "skill-central publish public --snapshot 1.2.0",
    "skill-central publish public --sign ~/.ssh/id_ed25519",
  ],
  positionals: { min: 1, max: 1 },
  async run(ctx) {
    const { snapshot } = ctx.options;
    if (snapshot !== undefined && !SEMVER_PATTERN.test(snapshot))
      throw new UsageError(`--snapshot takes a semantic version like 1.2.0, not "${snapshot}"`);
    const root = join(resolve(ctx.cwd, ctx.args[0]!), WELL_KNOWN_PATH);
    const snapshotDir = snapshot === undefined ? undefined : join(root, `v${snapshot}`);
    if (snapshotDir !== undefined && existsSync(snapshotDir)) {
      ctx.err(`error: ${displayPath(snapshotDir, { cwd: ctx.cwd })} exists: a snapshot is never overwritten\n`);
      return EXIT_FAILURE;
    }
    // The key before anything is written: an unusable one publishes nothing.
    const key = ctx.options.sign === undefined ? undefined : loadSigningKey(resolve(ctx.cwd, ctx.options.sign));
    if (key && "problem" in key) {
      ctx.err(`error: ${key.problem}\n`);
      return EXIT_FAILURE;
    }
    const loaded = await load(ctx);
    reportLoad(ctx, loaded);
    const published = publishedRegistry(loaded.registry, ctx.options["include-restricted"] === true);
    if (published.leftOut.length > 0 && !ctx.json)
      ctx.err(
        `left out ${visibleLine(published.leftOut.map((l) => `layer "${l.name}" (${plural(l.skills, "skill")})`).join(", "))}: ${published.leftOut.length === 1 ? "it has" : "they have"} visibleTo, and a static tree has no callers — --include-restricted publishes ${published.leftOut.length === 1 ? "it" : "them"}\n`,
      );
    const tree = buildWellKnownTree(published.registry, publishedBytes, auditEntryMeta);
    const signing = key && { key, index: await stampedIndex(root, tree) };
    const written = await writeTree(root, tree, true, signing);
    if (snapshotDir !== undefined) await writeTree(snapshotDir, tree, false, signing);
    const shown = (dir: string) => `${displayPath(dir, { cwd: ctx.cwd })}/`;
    if (ctx.json) {
      json(ctx, {
        dir: relative(ctx.cwd, root) || ".",
        skills: tree.entries.length,
        written,
        index: signing ? digestOf(signing.index) : tree.indexDigest,
        leftOut: tree.leftOut,
        promptsAsText: tree.promptsAsText,
        leftOutLayers: published.leftOut,
        ...(snapshotDir !== undefined && { snapshot: relative(ctx.cwd, snapshotDir) }),
        ...(key && { signedBy: fingerprint(key.publicKey.blob) }),
      });
    } else {
      ctx.out(
        `${plural(tree.entries.length, "skill")} published to ${shown(root.replace(/\/$/, ""))} (${plural(written, "file")} written)\n` +
          (snapshotDir ? `snapshot ${shown(snapshotDir)} written\n` : "") +
          (key ? `${INDEX_SIGNATURE_FILE} signed with ${fingerprint(key.publicKey.blob)}\n` : "") +
          leftOutReport(tree),
      );
    }
    return EXIT_OK;
  },
});
