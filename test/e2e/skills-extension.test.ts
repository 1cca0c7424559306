import { untilAttested } from "../helpers/attested.ts";
import type { Client, StandardSchemaV1 } from "@modelcontextprotocol/client";
import { SkillsClient, type Skill as SkillEntry } from "@modelcontextprotocol/client/ext/skills";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { buildForTests } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { connect, REPO_ROOT, SOURCE_TARGET, type Connected, type Era, type ServerTarget } from "../helpers/server.ts";
import type { SkillView } from "../../src/registry/describe.ts";
import { RULES_VERSION } from "../../src/audit/rules.ts";
import { VERSION } from "../../src/version.ts";
import { runCli, runCliJson } from "./cli-run.ts";
import { ListChanges } from "./live-session.ts";

/**
 * The MCP skills extension (io.modelcontextprotocol/skills) end to end, with the SDK's own client
 * and its SkillsClient (which verifies every read against the entry's digest, size and
 * frontmatter, as a host must), over stdio in both eras. HTTP is covered by the conformance suite
 * (conformance.test.ts).
 */

const PROVENANCE = "dev.skill-central/provenance";
const AUDIT = "dev.skill-central/audit";

/** Any result: for requests the SDK client has no schema for, checked by the test itself. */
const ANY: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "test", validate: (value) => ({ value }) },
};

/** A raw wire result, asserted field by field (kept inside this file). */
// biome-ignore lint/suspicious/noExplicitAny: a raw result is asserted field by field; typing it would restate the protocol.
type Wire = Record<string, any>;

async function raw(client: Client, method: string, params: Record<string, unknown>): Promise<Wire> {
  return (await client.request({ method, params }, ANY)) as Wire;
}

/** The JSON-RPC error of a request that must fail: code, message and data. */
async function refusal(promise: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  try {
    await promise;
  } catch (error) {
    const e = error as { code: number; message: string; data?: unknown };
    return { code: e.code, message: e.message, data: e.data };
  }
  throw new Error("expected the request to fail");
}

const sha256 = (bytes: Uint8Array) => `sha256:${new Bun.CryptoHasher("sha256").update(bytes).digest("hex")}`;

/** Not UTF-8 anywhere: a PNG signature, a NUL, and bytes no UTF-8 sequence starts with. */
const LOGO = new Uint8Array([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe, 0xc3, 0x28, 0x80, 0x7f,
]);

const PDF_SKILL_MD = `---
name: pdf-tools
description: Extract text and fill forms in PDF files. Use when the user mentions PDFs.
license: Apache-2.0
allowed-tools: Bash(python:*) Read
metadata:
  tags: documents pdf
  version: "2.1"
---
Extract the text with \`python scripts/extract.py\`; the forms are described in references/forms.md.
`;

/** 1,068 characters, as a widely used public skill's description is. */
const LONG_DESCRIPTION = `${"Reviews infrastructure changes for cost, safety and drift. ".repeat(18)}At end`;

/** A YAML prompt with everything a naive YAML writer gets wrong: quotes, colons, a newline, a tab, a hash, non-ASCII. */
const GREET_YAML = `id: greet
name: 'Greeter: "formal" edition'
description: "Says hello: politely.\\nSecond line with a # hash, a\\ttab, émoji 🎉"
type: prompt
version: "2.0"
tags: [Hello, World]
arguments:
  - { name: who, required: true }
  - { name: formal }
prompt: |
  Hello {{who}}!
  {{#if formal}}Good day to you.{{/if}}
`;

const GREET_SKILL_MD = `---
name: "greet"
description: "Says hello: politely.\\nSecond line with a # hash, a\\ttab, émoji 🎉"
metadata:
  tags: "hello world"
  version: "2.0"
  title: "Greeter: \\"formal\\" edition"
  layer: "project"
---
Hello {{who}}!
{{#if formal}}Good day to you.{{/if}}
`;

/** A project with two layers: every case of what is published and what is not. */
function skillsProject(): Fixture {
  const fixture = makeFixture({
    "skill-central.yaml":
      "layers:\n  - { name: team, path: ./team, priority: 50 }\n  - { name: project, path: ./.skills, priority: 100 }\n",
    ".skills/pdf-tools/SKILL.md": PDF_SKILL_MD,
    ".skills/pdf-tools/references/forms.md": "# Forms\n\nFill field by field.\n",
    ".skills/pdf-tools/scripts/extract.py":
      "#!/usr/bin/env python3\nimport sys\nprint(open(sys.argv[1], 'rb').read()[:4])\n",
    ".skills/pdf-tools/assets/my form #1.txt": "a file whose name needs percent-encoding\n",
    // Never part of the skill: a dot-file, and (below) a link leading out of the folder.
    ".skills/pdf-tools/.secret": "not published\n",
    ".skills/outside.txt": "outside every skill folder\n",
    ".skills/quiet/SKILL.md":
      "---\nname: quiet\ndescription: Background conventions the model applies on its own\nuser-invocable: false\n---\nAlways write tests first.\n",
    ".skills/long-desc/SKILL.md": `---\nname: long-desc\ndescription: ${LONG_DESCRIPTION}\n---\nBody.\n`,
    ".skills/greet.yaml": GREET_YAML,
    ".skills/echo-tool.yaml":
      "id: echo-tool\ndescription: Echoes its input\ntype: tool\ninputSchema: { type: object }\n",
    // Two definitions of one id in the winning layer withdraw it, whatever a lower layer has.
    ".skills/dup-a.yaml": "id: dup\ndescription: One\ntype: prompt\nprompt: one\n",
    ".skills/dup-b.yaml": "id: dup\ndescription: Two\ntype: prompt\nprompt: two\n",
    "team/dup.yaml": "id: dup\ndescription: Team dup\ntype: prompt\nprompt: team\n",
    // Shadowed by the project's greet.
    "team/greet.yaml": "id: greet\ndescription: The team's greeting\ntype: prompt\nprompt: Hi\n",
    // A folder that overrides a built-in YAML skill of the same id.
    "team/review-pr/SKILL.md":
      "---\nname: review-pr\ndescription: The team's own review checklist\n---\nWork through checklist.md.\n",
    "team/review-pr/checklist.md": "- [ ] tests\n- [ ] docs\n",
  });
  writeFileSync(join(fixture.cwd, ".skills/pdf-tools/assets/logo.png"), LOGO);
  chmodSync(join(fixture.cwd, ".skills/pdf-tools/scripts/extract.py"), 0o755);
  symlinkSync(join(fixture.cwd, ".skills/outside.txt"), join(fixture.cwd, ".skills/pdf-tools/references/leak.md"));
  return fixture;
}

/** Where an entry's files are on disk, from its provenance: the project, or the repository's built-in skills. */
function folderOf(fixture: Fixture, entry: SkillEntry): string {
  const source = (entry._meta![PROVENANCE] as { source: string }).source;
  return source.startsWith("builtin:")
    ? join(REPO_ROOT, "skills", dirname(source.slice("builtin:".length)))
    : join(fixture.cwd, dirname(source));
}

function relativePath(entry: SkillEntry, uri: string): string {
  const root = entry.uri.slice(0, -"SKILL.md".length);
  return uri.slice(root.length).split("/").map(decodeURIComponent).join("/");
}

const BUILTIN_PROMPTS = [
  "api-design",
  "architectural-mindset",
  "debugging-playbook",
  "incident-postmortem",
  "refactoring-guide",
  "security-review",
  "test-strategy",
  "write-adr",
];

for (const era of ["legacy", "modern"] as const satisfies readonly Era[]) {
  describe(`skills extension over stdio (${era === "legacy" ? "2025-11-25" : "2026-07-28"})`, () => {
    let fixture: Fixture;
    let session: Connected;
    let client: Client;
    let skills: SkillsClient;
    let changes: ListChanges;
    let listening: { close(): Promise<void> } | undefined;

    beforeAll(async () => {
      fixture = skillsProject();
      session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, [], era);
      client = session.client;
      // A host may skip entries it will not load: here only the one whose description is over 1,024 characters.
      skills = new SkillsClient(client, { skipInvalid: true });
      changes = new ListChanges(client);
      if (era === "modern") listening = await changes.listen();
    });
    afterAll(async () => {
      await listening?.close();
      await session?.close();
      fixture?.cleanup();
    });

    test("declares io.modelcontextprotocol/skills with directoryRead, beside resources", () => {
      const caps = client.getServerCapabilities();
      expect(caps?.extensions).toEqual({ "io.modelcontextprotocol/skills": { directoryRead: true } });
      expect(caps?.resources).toBeDefined();
      expect(skills.supported).toBe(true);
      expect(skills.directoryRead).toBe(true);
    });

    test("skills/list: every effective prompt skill once, in URI order; no tool, shadowed copy or withdrawn id", async () => {
      const listing = await skills.list();
      const uris = listing.skills.map((s) => s.uri);
      const expected = [...BUILTIN_PROMPTS.filter((n) => n !== "review-pr"), "greet", "pdf-tools", "quiet", "review-pr"]
        .map((n) => `skill://${n}/SKILL.md`)
        .sort();
      expect(uris).toEqual(expected);
      // Published as written; the SDK's client refuses it for the specification's 1,024-character limit.
      expect(listing.invalid).toEqual([
        expect.objectContaining({ uri: "skill://long-desc/SKILL.md", reason: expect.stringContaining("1-1024") }),
      ]);
      const wire = await raw(client, "skills/list", {});
      const all = (wire.skills as SkillEntry[]).map((s) => s.uri);
      expect(all).toEqual([...expected, "skill://long-desc/SKILL.md"].sort());
      expect(new Set(all.map((u) => u.split("/")[2])).size).toBe(all.length);
      expect(wire.nextCursor).toBeUndefined();
      // (The SDK's client refuses a 2026-07-28 result without resultType, and strips it.)
      if (era === "modern")
        expect({ ttlMs: wire.ttlMs, cacheScope: wire.cacheScope }).toEqual({ ttlMs: 0, cacheScope: "public" });
      else expect([wire.ttlMs, wire.cacheScope]).toEqual([undefined, undefined]);
    });

    test("an entry's frontmatter is its SKILL.md's YAML as JSON, key for key; provenance is under dev.skill-central/provenance, the audit's attestation under dev.skill-central/audit", async () => {
      // Once the snapshot's audit, run off the request path, is done.
      await untilAttested(() => raw(client, "skills/list", {}));
      const { skill } = await skills.get("skill://pdf-tools/SKILL.md");
      expect(skill.frontmatter).toEqual(Bun.YAML.parse(PDF_SKILL_MD.split("---\n")[1]!) as typeof skill.frontmatter);
      expect(Object.keys(skill.frontmatter)).toEqual(["name", "description", "license", "allowed-tools", "metadata"]);
      expect(skill._meta).toEqual({
        [PROVENANCE]: { layer: "project", priority: 100, source: ".skills/pdf-tools/SKILL.md", format: "skill-md" },
        [AUDIT]: {
          verdict: "pass",
          scanner: `skill-central ${VERSION}`,
          rules: RULES_VERSION,
          digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
          counts: { high: 0, medium: 0, low: 0 },
        },
      });
      // `user-invocable: false` is listed: the host decides what to offer.
      expect((await skills.get("skill://quiet/SKILL.md")).skill.frontmatter["user-invocable"]).toBe(false);
      // A folder in a lower layer overrides a built-in YAML skill; the project's YAML skill shadows the team's.
      expect((await skills.get("skill://review-pr/SKILL.md")).skill._meta?.[PROVENANCE]).toEqual({
        layer: "team",
        priority: 50,
        source: "team/review-pr/SKILL.md",
        format: "skill-md",
      });
      expect((await skills.get("skill://greet/SKILL.md")).skill._meta?.[PROVENANCE]).toEqual({
        layer: "project",
        priority: 100,
        source: ".skills/greet.yaml",
        format: "yaml",
      });
      expect((await skills.get("skill://incident-postmortem/SKILL.md")).skill._meta?.[PROVENANCE]).toMatchObject({
        layer: "builtin",
        source: "builtin:incident-postmortem/SKILL.md",
      });
    });

    test("every file of every listed skill reads back as its digest and size promise: checked by the SDK's client and against the bytes on disk", async () => {
      const { skills: entries } = await skills.list();
      let folderFiles = 0;
      for (const entry of entries) {
        const provenance = entry._meta?.[PROVENANCE] as { format: string };
        for (const resource of entry.resources as { uri: string; digest: string; size: number }[]) {
          const file = await skills.read(entry, resource.uri);
          expect(file.verified).toBe(true);
          expect(file.bytes.length).toBe(resource.size);
          expect(sha256(file.bytes)).toBe(resource.digest);
          if (provenance.format !== "skill-md") continue;
          const onDisk = readFileSync(join(folderOf(fixture, entry), relativePath(entry, resource.uri)));
          expect(Buffer.from(file.bytes).equals(onDisk)).toBe(true);
          folderFiles++;
        }
      }
      // pdf-tools 5, quiet 1, review-pr 2, incident-postmortem 2: links, dot-files and examples.yaml are not files of a skill.
      expect(folderFiles).toBe(10);
      const pdf = (await skills.get("skill://pdf-tools/SKILL.md")).skill;
      expect((pdf.resources as { uri: string }[]).map((r) => r.uri)).toEqual([
        "skill://pdf-tools/SKILL.md",
        "skill://pdf-tools/assets/logo.png",
        "skill://pdf-tools/assets/my%20form%20%231.txt",
        "skill://pdf-tools/references/forms.md",
        "skill://pdf-tools/scripts/extract.py",
      ]);
    });

    test("text is sent as text with its MIME type, a binary asset as a base64 blob", async () => {
      const read = async (uri: string) =>
        (await client.readResource({ uri })).contents[0] as {
          uri: string;
          mimeType?: string;
          text?: string;
          blob?: string;
        };
      expect(await read("skill://pdf-tools/SKILL.md")).toEqual({
        uri: "skill://pdf-tools/SKILL.md",
        mimeType: "text/markdown",
        text: PDF_SKILL_MD,
      });
      expect(await read("skill://pdf-tools/scripts/extract.py")).toMatchObject({
        mimeType: "text/x-python",
        text: expect.stringMatching(/^#!\/usr\/bin\/env python3\n/),
      });
      expect(await read("skill://pdf-tools/assets/my%20form%20%231.txt")).toMatchObject({
        mimeType: "text/plain",
        text: "a file whose name needs percent-encoding\n",
      });
      const logo = await read("skill://pdf-tools/assets/logo.png");
      expect(logo.mimeType).toBe("image/png");
      expect(logo.text).toBeUndefined();
      expect(Buffer.from(logo.blob!, "base64").equals(Buffer.from(LOGO))).toBe(true);
    });

    test("a YAML prompt skill is published as a deterministic SKILL.md: name, description, metadata; the template as its body", async () => {
      const { skill } = await skills.get("skill://greet/SKILL.md");
      const file = await skills.read(skill);
      expect(file.text).toBe(GREET_SKILL_MD);
      expect(skill.frontmatter).toEqual({
        name: "greet",
        description: "Says hello: politely.\nSecond line with a # hash, a\ttab, émoji 🎉",
        metadata: { tags: "hello world", version: "2.0", title: 'Greeter: "formal" edition', layer: "project" },
      });
      // Any YAML reader reads the same frontmatter (the SDK's client compared it in read(); here the `yaml` of Bun).
      expect(Bun.YAML.parse(GREET_SKILL_MD.split("---\n")[1]!)).toEqual(skill.frontmatter);
      expect(skill.resources).toEqual([
        {
          uri: "skill://greet/SKILL.md",
          digest: sha256(Buffer.from(GREET_SKILL_MD)),
          size: Buffer.byteLength(GREET_SKILL_MD),
        },
      ]);
      expect((await skills.readDirectory("skill://greet")).resources).toEqual([
        {
          uri: "skill://greet/SKILL.md",
          name: "SKILL.md",
          mimeType: "text/markdown",
          size: Buffer.byteLength(GREET_SKILL_MD),
        },
      ]);
    });

    test("a description over 1,024 characters is published unchanged: frontmatter identical to the file", async () => {
      const { skill } = await raw(client, "skills/get", { uri: "skill://long-desc/SKILL.md" });
      expect(skill.frontmatter).toEqual({ name: "long-desc", description: LONG_DESCRIPTION });
      expect(LONG_DESCRIPTION.length).toBe(1_068);
      const text = readFileSync(join(fixture.cwd, ".skills/long-desc/SKILL.md"), "utf8");
      expect(skill.resources).toEqual([
        { uri: "skill://long-desc/SKILL.md", digest: sha256(Buffer.from(text)), size: Buffer.byteLength(text) },
      ]);
      expect((await client.readResource({ uri: "skill://long-desc/SKILL.md" })).contents[0]).toMatchObject({ text });
    });

    test("skills/get answers each published skill with its listing entry; an unknown, tool, withdrawn or non-SKILL.md URI is -32602", async () => {
      // After the audit: a listing made while it ran has no attestation, and a later skills/get would.
      const wire = await untilAttested(() => raw(client, "skills/list", {}));
      for (const entry of wire.skills as SkillEntry[]) {
        const got = await raw(client, "skills/get", { uri: entry.uri });
        expect(got.skill).toEqual(entry);
        expect(got.nextCursor).toBeUndefined();
        if (era === "modern") expect([got.ttlMs, got.cacheScope]).toEqual([0, "public"]);
      }
      for (const uri of [
        "skill://nope/SKILL.md",
        "skill://echo-tool/SKILL.md",
        "skill://dup/SKILL.md",
        "skill://pdf-tools/references/forms.md",
        "skill://pdf-tools",
        "skill-central://skills/greet",
        "skill://greet/SKILL.md?x=1",
      ]) {
        const error = await refusal(raw(client, "skills/get", { uri }));
        expect({ uri, code: error.code }).toEqual({ uri, code: -32602 });
        expect(error.message).toStartWith(`No skill is served at ${uri}`);
      }
      // A megabyte of URI is neither echoed whole nor put in data.
      const huge = `skill://${"a".repeat(1_000_000)}/SKILL.md`;
      for (const method of ["skills/get", "resources/directory/read", "resources/read"]) {
        const error = await refusal(raw(client, method, { uri: huge }));
        expect({ method, code: error.code, data: error.data }).toEqual({ method, code: -32602, data: undefined });
        expect(error.message.length).toBeLessThanOrEqual(501);
      }
    });

    test("resources/directory/read lists a folder's direct children, folders as inode/directory; a file or unknown folder is -32602", async () => {
      const root = await skills.readDirectory("skill://pdf-tools");
      expect(root.resources).toEqual([
        {
          uri: "skill://pdf-tools/SKILL.md",
          name: "SKILL.md",
          mimeType: "text/markdown",
          size: Buffer.byteLength(PDF_SKILL_MD),
        },
        { uri: "skill://pdf-tools/assets", name: "assets", mimeType: "inode/directory" },
        { uri: "skill://pdf-tools/references", name: "references", mimeType: "inode/directory" },
        { uri: "skill://pdf-tools/scripts", name: "scripts", mimeType: "inode/directory" },
      ]);
      if (era === "modern") expect([root.ttlMs, root.cacheScope]).toEqual([0, "public"]);
      expect(
        (await skills.readDirectory("skill://pdf-tools/assets")).resources.map((r) => [r.name, r.mimeType, r.size]),
      ).toEqual([
        ["logo.png", "image/png", LOGO.length],
        ["my form #1.txt", "text/plain", Buffer.byteLength("a file whose name needs percent-encoding\n")],
      ]);
      // The link is not a file of the skill.
      expect((await skills.readDirectory("skill://pdf-tools/references")).resources.map((r) => r.name)).toEqual([
        "forms.md",
      ]);
      for (const uri of [
        "skill://pdf-tools/SKILL.md",
        "skill://pdf-tools/nope",
        "skill://pdf-tools/",
        "skill://nope",
        "skill://echo-tool",
        "skill://pdf-tools/references/..",
        "skill://pdf-tools/%2e%2e",
        "file:///etc",
      ]) {
        const error = await refusal(raw(client, "resources/directory/read", { uri }));
        expect({ uri, code: error.code }).toEqual({ uri, code: -32602 });
      }
    });

    test("traversal, links, dot-files and other skills' files are -32602 with the URI in data: nothing outside the published files is read", async () => {
      const refused = [
        "skill://pdf-tools/../quiet/SKILL.md",
        "skill://pdf-tools/references/../SKILL.md",
        "skill://pdf-tools/./SKILL.md",
        "skill://pdf-tools/%2e%2e/quiet/SKILL.md",
        "skill://pdf-tools/%2E%2E/%2E%2E/outside.txt",
        "skill://pdf-tools/references%2F..%2F..%2Foutside.txt",
        "skill://pdf-tools/..%2F..%2F..%2F..%2Fetc%2Fpasswd",
        "skill://pdf-tools/..%5C..%5Coutside.txt",
        "skill://pdf-tools/references/leak.md",
        "skill://pdf-tools/.secret",
        "skill://pdf-tools/references",
        "skill://pdf-tools/references/forms.md/",
        "skill://pdf-tools//SKILL.md",
        "skill://pdf-tools/SKILL.md?raw=1",
        "skill://pdf-tools/SKILL.md#top",
        "skill://pdf-tools/%zz",
        "skill://quiet/references/forms.md",
        "skill://../.skills/outside.txt",
        "skill://echo-tool/SKILL.md",
        "skill://dup/SKILL.md",
        "skill://pdf-tools/examples.yaml",
      ];
      for (const uri of refused) {
        const error = await refusal(client.readResource({ uri }));
        expect({ uri, code: error.code, data: error.data }).toEqual({ uri, code: -32602, data: { uri } });
        expect(error.message).toStartWith(`Unknown resource: ${uri}`);
      }
    });

    test("a reload that changes one file changes exactly that digest, and announces resources/list_changed", async () => {
      const before = await untilAttested(() => raw(client, "skills/list", {}));
      const announced = changes.counts.resources;
      fixture.write(".skills/pdf-tools/references/forms.md", "# Forms\n\nFill field by field, then sign.\n");
      await changes.waitFor("resources", announced + 1);
      const after = await untilAttested(() => raw(client, "skills/list", {}));
      const byUri = (list: Wire) => new Map((list.skills as SkillEntry[]).map((s) => [s.uri, s]));
      const [old, now] = [byUri(before), byUri(after)];
      // Every other skill's entry is unchanged.
      for (const [uri, entry] of now) if (uri !== "skill://pdf-tools/SKILL.md") expect(entry).toEqual(old.get(uri)!);
      const changed = (e: SkillEntry) =>
        (e.resources as { uri: string; digest: string; size: number }[]).map((r) => `${r.uri} ${r.digest} ${r.size}`);
      const diff = changed(now.get("skill://pdf-tools/SKILL.md")!).filter(
        (line) => !changed(old.get("skill://pdf-tools/SKILL.md")!).includes(line),
      );
      const forms = "# Forms\n\nFill field by field, then sign.\n";
      expect(diff).toEqual([
        `skill://pdf-tools/references/forms.md ${sha256(Buffer.from(forms))} ${Buffer.byteLength(forms)}`,
      ]);
      // A host holding the old entry refuses the new bytes; one that refreshes with skills/get reads them.
      const stale = old.get("skill://pdf-tools/SKILL.md")!;
      expect(await skills.read(stale, "references/forms.md").catch((e: { reason?: string }) => e.reason)).toBe("size");
      const fresh = (await skills.get("skill://pdf-tools/SKILL.md")).skill;
      expect(new TextDecoder().decode((await skills.read(fresh, "references/forms.md")).bytes)).toBe(
        "# Forms\n\nFill field by field, then sign.\n",
      );
    });

    test("a file added to a folder joins its entry; a YAML prompt's template edit changes its SKILL.md's digest", async () => {
      let announced = changes.counts.resources;
      fixture.write(".skills/pdf-tools/references/fields.md", "name, date\n");
      await changes.waitFor("resources", ++announced);
      const pdf = (await skills.get("skill://pdf-tools/SKILL.md")).skill;
      expect((pdf.resources as { uri: string }[]).map((r) => r.uri)).toContain(
        "skill://pdf-tools/references/fields.md",
      );
      expect(new TextDecoder().decode((await skills.read(pdf, "references/fields.md")).bytes)).toBe("name, date\n");
      const greetBefore = (await skills.get("skill://greet/SKILL.md")).skill;
      fixture.write(".skills/greet.yaml", GREET_YAML.replace("Good day to you.", "Good evening."));
      await changes.waitFor("resources", ++announced);
      const greet = (await skills.get("skill://greet/SKILL.md")).skill;
      expect(greet.resources).not.toEqual(greetBefore.resources);
      expect((await skills.read(greet)).text).toBe(GREET_SKILL_MD.replace("Good day to you.", "Good evening."));
    });
  });
}

describe("skills extension: the first reload of a server nobody has listed yet", () => {
  test("editing a YAML prompt's template is one reload and one resources/list_changed: nothing reads the replaced version's template", async () => {
    const fixture = makeFixture({
      ".skills/note.yaml": "id: note\ndescription: A note\ntype: prompt\nprompt: first\n",
    });
    const session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, ["--no-builtin", "--debug-timing"]);
    try {
      const changes = new ListChanges(session.client);
      // initialize is answered before the first load starts; an edit before that load reads the
      // file is simply what it serves. This test is about the first *reload*, so it edits after.
      while (!session.stderr().includes("] loaded ")) await Bun.sleep(10);
      // No resources/list, skills/list or read before the edit: the first snapshot's listings are made only when compared.
      fixture.write(".skills/note.yaml", "id: note\ndescription: A note\ntype: prompt\nprompt: second\n");
      await changes.waitFor("resources", 1);
      const skills = new SkillsClient(session.client);
      const { skill } = await skills.get("skill://note/SKILL.md");
      expect((await skills.read(skill)).body).toBe("second");
      await Bun.sleep(300);
      expect(changes.counts).toEqual({ prompts: 0, tools: 0, resources: 1 });
      expect(session.stderr().split("reloaded in").length - 1).toBe(1);
    } finally {
      await session.close();
      fixture.cleanup();
    }
  });
});

describe("skills extension: what a file changed on disk without a reload becomes", () => {
  let fixture: Fixture;
  let session: Connected;

  beforeAll(async () => {
    fixture = makeFixture({
      ".skills/notes/SKILL.md": "---\nname: notes\ndescription: Notes\n---\nRead data.md.\n",
      ".skills/notes/data.md": "v1\n",
    });
    session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home, ["--no-watch", "--no-builtin"]);
  });
  afterAll(async () => {
    await session?.close();
    fixture?.cleanup();
  });

  test("under --no-watch it is refused with -32603, never served unverified", async () => {
    expect((await session.client.readResource({ uri: "skill://notes/data.md" })).contents[0]).toMatchObject({
      text: "v1\n",
    });
    fixture.write(".skills/notes/data.md", "v2\n");
    const error = await refusal(session.client.readResource({ uri: "skill://notes/data.md" }));
    expect(error.code).toBe(-32603);
    expect(error.message).toContain("skill://notes/data.md changed on disk since it was published");
    // Swapped for a link: refused too.
    fixture.remove(".skills/notes/data.md");
    symlinkSync(join(fixture.cwd, ".skills/notes/SKILL.md"), join(fixture.cwd, ".skills/notes/data.md"));
    expect((await refusal(session.client.readResource({ uri: "skill://notes/data.md" }))).code).toBe(-32603);
  });
});

describe("skills extension: pages", () => {
  let fixture: Fixture;
  let session: Connected;

  beforeAll(async () => {
    const files: Record<string, string> = {
      "skill-central.yaml": "builtin: false\npageSize: 2\nlayers:\n  - { name: team, path: ./team, priority: 50 }\n",
    };
    for (const id of ["a", "a-b", "b", "c", "d"])
      files[`team/${id}.yaml`] = `id: ${id}\ndescription: Skill ${id}\ntype: prompt\nprompt: Body ${id}\n`;
    files["team/big/SKILL.md"] = "---\nname: big\ndescription: Many files\n---\nSee files/.\n";
    for (const n of [1, 2, 3, 4, 5]) files[`team/big/files/f${n}.md`] = `file ${n}\n`;
    fixture = makeFixture(files);
    session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
  });
  afterAll(async () => {
    await session?.close();
    fixture?.cleanup();
  });

  test("skills/list pages by the configured size, by URI, an entry never split or repeated", async () => {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await raw(session.client, "skills/list", cursor === undefined ? {} : { cursor });
      pages.push((page.skills as SkillEntry[]).map((s) => s.uri));
      for (const s of page.skills as SkillEntry[]) expect(Array.isArray(s.resources)).toBe(true);
      cursor = page.nextCursor as string | undefined;
    } while (cursor !== undefined);
    // skill://a-b/… sorts before skill://a/…: pages follow URIs, not ids.
    expect(pages).toEqual([
      ["skill://a-b/SKILL.md", "skill://a/SKILL.md"],
      ["skill://b/SKILL.md", "skill://big/SKILL.md"],
      ["skill://c/SKILL.md", "skill://d/SKILL.md"],
    ]);
    expect((await new SkillsClient(session.client).list()).skills.map((s) => s.uri)).toEqual(pages.flat());
    const tools = await session.client.listTools();
    expect((await refusal(raw(session.client, "skills/list", { cursor: tools.nextCursor ?? "bogus" }))).code).toBe(
      -32602,
    );
  });

  test("resources/directory/read pages a folder's children the same way; a cursor of another folder is refused", async () => {
    const first = await raw(session.client, "resources/directory/read", { uri: "skill://big/files" });
    expect((first.resources as { name: string }[]).map((r) => r.name)).toEqual(["f1.md", "f2.md"]);
    expect(
      (await new SkillsClient(session.client).readDirectory("skill://big/files")).resources.map((r) => r.name),
    ).toEqual(["f1.md", "f2.md", "f3.md", "f4.md", "f5.md"]);
    expect(
      (await refusal(raw(session.client, "resources/directory/read", { uri: "skill://big", cursor: first.nextCursor })))
        .code,
    ).toBe(-32602);
  });
});

describe("skills extension in the compiled binary", () => {
  let binary: ServerTarget;
  let fixture: Fixture;

  beforeAll(async () => {
    binary = { name: "binary", command: await buildForTests(), args: ["mcp"] };
    fixture = makeFixture();
  }, 120_000);
  afterAll(() => fixture?.cleanup());

  test("the built-in incident-postmortem folder is published; its files read back from the embedded file system as promised", async () => {
    const session = await connect(binary, fixture.cwd, fixture.home);
    try {
      const skills = new SkillsClient(session.client);
      const { skills: entries } = await skills.list();
      expect(entries.map((e) => e.uri)).toEqual(
        BUILTIN_PROMPTS.concat("review-pr")
          .map((n) => `skill://${n}/SKILL.md`)
          .sort(),
      );
      const entry = entries.find((e) => e.uri === "skill://incident-postmortem/SKILL.md")!;
      expect((entry.resources as { uri: string }[]).map((r) => r.uri)).toEqual([
        "skill://incident-postmortem/SKILL.md",
        "skill://incident-postmortem/references/template.md",
      ]);
      for (const resource of entry.resources as { uri: string }[]) {
        const file = await skills.read(entry, resource.uri);
        expect(file.verified).toBe(true);
        const path = join(REPO_ROOT, "skills/incident-postmortem", relativePath(entry, resource.uri));
        expect(Buffer.from(file.bytes).equals(readFileSync(path))).toBe(true);
      }
      expect(
        (await skills.readDirectory("skill://incident-postmortem/references")).resources.map((r) => r.name),
      ).toEqual(["template.md"]);
      // Every synthesised SKILL.md verifies too.
      for (const e of entries) expect((await skills.read(e)).verified).toBe(true);
      expect(session.stderr()).toBe("");
    } finally {
      await session.close();
    }
  });
});

describe("skills extension: the CLI says where each skill is served and its digest", () => {
  let fixture: Fixture;

  beforeAll(() => {
    fixture = skillsProject();
  });
  afterAll(() => fixture?.cleanup());

  test("list --json and show --json give each published skill's URI and SKILL.md digest, exactly as skills/get does; a tool has none", async () => {
    const session = await connect(SOURCE_TARGET, fixture.cwd, fixture.home);
    try {
      const listed = await runCliJson<SkillView[]>(["list"], fixture.cwd, fixture.home);
      expect(listed.code).toBe(0);
      for (const view of listed.json) {
        if (view.type === "tool") {
          expect([view.uri, view.digest]).toEqual([undefined, undefined]);
          continue;
        }
        const { skill } = await raw(session.client, "skills/get", { uri: `skill://${view.id}/SKILL.md` });
        const skillMd = (skill.resources as { uri: string; digest: string }[]).find((r) => r.uri === skill.uri)!;
        expect({ id: view.id, uri: view.uri, digest: view.digest }).toEqual({
          id: view.id,
          uri: skill.uri,
          digest: skillMd.digest,
        });
      }
      const shown = await runCliJson<{ skill: SkillView }>(["show", "greet"], fixture.cwd, fixture.home);
      expect([shown.json.skill.uri, shown.json.skill.digest]).toEqual([
        "skill://greet/SKILL.md",
        sha256(Buffer.from(GREET_SKILL_MD)),
      ]);
    } finally {
      await session.close();
    }
  });

  test("show prints them too, saying when the SKILL.md is made from a YAML skill", async () => {
    const greet = await runCli(["show", "greet"], fixture.cwd, fixture.home);
    expect(greet.stdout).toMatch(/^\s+uri\s+skill:\/\/greet\/SKILL\.md \(a SKILL\.md made from this YAML skill\)$/m);
    expect(greet.stdout).toMatch(new RegExp(`^\\s+digest\\s+${sha256(Buffer.from(GREET_SKILL_MD))}$`, "m"));
    const pdf = await runCli(["show", "pdf-tools"], fixture.cwd, fixture.home);
    expect(pdf.stdout).toMatch(/^\s+uri\s+skill:\/\/pdf-tools\/SKILL\.md$/m);
    expect(pdf.stdout).toMatch(new RegExp(`^\\s+digest\\s+${sha256(Buffer.from(PDF_SKILL_MD))}$`, "m"));
    expect((await runCli(["show", "echo-tool"], fixture.cwd, fixture.home)).stdout).not.toMatch(/^\s+uri\s/m);
  });
});
