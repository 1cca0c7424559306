import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { buildAll, buildForTests, releaseFileName, releaseTarget, RELEASE_TARGETS } from "../../script/build.ts";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import {
  connect,
  initializeLine,
  rawSession,
  REPO_ROOT,
  requestLine,
  SOURCE_ENTRY,
  type ServerTarget,
} from "../helpers/server.ts";

/** The built-in skills as the repository has them: what the binary must serve without the repository. */
async function builtinIds(): Promise<{ prompts: string[]; tools: string[] }> {
  const prompts: string[] = [];
  const tools: string[] = [];
  // Agent Skills folders are prompts named by their frontmatter; every file inside one is its file.
  const folders: string[] = [];
  for await (const file of new Glob("skills/**/SKILL.md").scan(REPO_ROOT)) {
    const text = await Bun.file(join(REPO_ROOT, file)).text();
    prompts.push(/^name: (.+)$/m.exec(text)![1]!);
    folders.push(`${dirname(file)}/`);
  }
  for await (const file of new Glob("skills/**/*.{yaml,yml}").scan(REPO_ROOT)) {
    if (folders.some((f) => file.startsWith(f))) continue;
    const doc = Bun.YAML.parse(await Bun.file(join(REPO_ROOT, file)).text()) as { id: string; type: string };
    (doc.type === "tool" ? tools : prompts).push(doc.id);
  }
  return { prompts: prompts.sort(), tools: tools.sort() };
}

async function run(
  command: string[],
  cwd: string,
  home: string,
): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  const proc = Bun.spawn(command, {
    cwd,
    env: { HOME: home, PATH: process.env.PATH ?? "" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, exitCode };
}

type Frame = {
  jsonrpc?: string;
  id?: number;
  result?: { serverInfo?: { name: string }; content?: { text: string }[] };
  error?: unknown;
};

/** Every stdout line must be a JSON-RPC 2.0 message: a banner or a stray log line fails here. */
function jsonRpcFrames(lines: string[]): Frame[] {
  return lines.map((line) => {
    const frame = JSON.parse(line) as Frame;
    expect(frame.jsonrpc).toBe("2.0");
    return frame;
  });
}

const COMMIT_CALL = requestLine(2, "tools/call", {
  name: "commit-conventions",
  arguments: { type: "feat", scope: "cli", summary: "add x" },
});

describe("compiled binary (this machine)", () => {
  let binary: string;
  let fixture: Fixture;

  beforeAll(async () => {
    binary = await buildForTests();
    fixture = makeFixture(); // an empty project folder and an empty HOME
  }, 120_000);
  afterAll(() => fixture?.cleanup());

  test("from an empty folder with an empty HOME it serves every built-in skill, with nothing on stderr", async () => {
    const expected = await builtinIds();
    expect(expected.prompts.length).toBeGreaterThan(0);
    const session = await connect({ name: "binary", command: binary, args: ["mcp"] }, fixture.cwd, fixture.home);
    try {
      const { prompts } = await session.client.listPrompts();
      const { tools } = await session.client.listTools();
      // `skills:compose` is the server's own prompt, not a file.
      expect(
        prompts
          .map((p) => p.name)
          .filter((n) => n !== "skills:compose")
          .sort(),
      ).toEqual(expected.prompts);
      expect(tools.map((t) => t.name).sort()).toEqual(expected.tools);
      expect(session.stderr()).toBe("");
    } finally {
      await session.close();
    }
  });

  test("Agent Skills folders: the built-in one renders its body as written (no folder to point at inside the binary); a project's gets its path", async () => {
    const builtin = await Bun.file(join(REPO_ROOT, "skills/incident-postmortem/SKILL.md")).text();
    const body = builtin.slice(builtin.indexOf("\n---\n", 4) + 5);
    const project = makeFixture({
      ".skills/local/SKILL.md":
        "---\nname: local\ndescription: A local folder\n---\nSee ${CLAUDE_SKILL_DIR}/notes.md for $ARGUMENTS.\n",
      ".skills/local/notes.md": "n\n",
    });
    try {
      const session = await connect({ name: "binary", command: binary, args: ["mcp"] }, project.cwd, project.home);
      try {
        const text = async (name: string, args?: Record<string, string>) => {
          const result = await session.client.getPrompt({ name, ...(args && { arguments: args }) });
          return (result.messages[0]!.content as { text: string }).text;
        };
        expect(await text("incident-postmortem")).toBe(body);
        expect(await text("incident-postmortem", { arguments: "db failover" })).toContain("(in ${CLAUDE_SKILL_DIR})");
        expect(await text("local", { arguments: "x" })).toBe(
          `See ${join(project.cwd, ".skills/local")}/notes.md for x.\n`,
        );
        expect(session.stderr()).toBe("");
      } finally {
        await session.close();
      }
    } finally {
      project.cleanup();
    }
  });

  test("with no arguments it runs the stdio MCP server", async () => {
    const raw = await rawSession(
      { name: "binary", command: binary, args: [] },
      fixture.cwd,
      fixture.home,
      [initializeLine(1)],
      1,
    );
    const [init] = jsonRpcFrames(raw.stdout);
    expect(init?.result?.serverInfo?.name).toBe("skill-central");
    expect(raw.exitCode).toBe(0);
  });

  test("--version prints the package.json version and nothing else", async () => {
    const result = await run([binary, "--version"], fixture.cwd, fixture.home);
    expect(result).toEqual({ stdout: `${pkg.version}\n`, stderr: "", exitCode: 0 });
  });

  test("--help lists the commands, the same text as the source entry", async () => {
    const compiled = await run([binary, "--help"], fixture.cwd, fixture.home);
    const source = await run([process.execPath, SOURCE_ENTRY, "--help"], fixture.cwd, fixture.home);
    expect(compiled.exitCode).toBe(0);
    expect(compiled.stdout).toMatch(/^Commands:\n\s+mcp\s/m);
    expect(compiled.stdout).toBe(source.stdout);
  });

  test("stdout carries JSON-RPC frames only: no banner, no log line, even around a garbage line", async () => {
    const lines = [
      initializeLine(1),
      COMMIT_CALL,
      "not json",
      requestLine(3, "prompts/list"),
      requestLine(4, "prompts/get", { name: "review-pr" }),
    ];
    const raw = await rawSession(
      { name: "binary", command: binary, args: ["mcp"] },
      fixture.cwd,
      fixture.home,
      lines,
      4,
    );
    const frames = jsonRpcFrames(raw.stdout);
    // Requests are answered as each finishes: a tools/call may come back after a later list.
    expect(frames.map((f) => f.id).sort()).toEqual([1, 2, 3, 4]);
    expect(frames.find((f) => f.id === 2)?.result?.content?.[0]?.text).toBe("feat(cli): add x");
    expect(raw.stderr).toContain("not JSON"); // the warning went to stderr, not stdout
  });

  test("a project of 500 skill files is served whole", async () => {
    const count = 500;
    const files: Record<string, string> = {};
    for (let i = 0; i < count; i++)
      files[`.skills/s${i}.yaml`] = `id: s-${i}\ndescription: Skill ${i}\ntype: prompt\nprompt: Body ${i}\n`;
    const project = makeFixture(files);
    try {
      const session = await connect({ name: "binary", command: binary, args: ["mcp"] }, project.cwd, project.home, [
        "--no-builtin",
      ]);
      try {
        const names = new Set<string>();
        let cursor: string | undefined;
        do {
          const page = await session.client.listPrompts(cursor === undefined ? {} : { cursor });
          for (const p of page.prompts) names.add(p.name);
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        for (let i = 0; i < count; i++) expect(names.has(`s-${i}`)).toBe(true);
        expect(session.stderr()).toBe("");
      } finally {
        await session.close();
      }
    } finally {
      project.cleanup();
    }
  });

  test("every path it prints for a built-in skill reads builtin:<path>, never the binary's virtual /$bunfs/ one", async () => {
    const project = makeFixture({
      ".skills/commit-conventions.yaml": "id: commit-conventions\ndescription: Ours\ntype: tool\nprompt: ours\n",
    });
    try {
      const outputs = await Promise.all(
        [
          ["list", "--json"],
          ["show", "review-pr"],
          ["show", "commit-conventions", "--json"],
          ["doctor"],
          ["doctor", "--json"],
          ["validate", "--json"],
          ["test", "--json"],
          ["new", "commit-conventions", "--type", "tool"],
          ["new", "review-pr", "--type", "prompt"],
        ].map((args) => run([binary, ...args], project.cwd, project.home)),
      );
      const printed = outputs.map((o) => o.stdout + o.stderr).join("\n");
      expect(printed).not.toContain("$bunfs");
      expect(printed).toContain("builtin:review-pr.yaml");
      expect(printed).toContain('"source": "builtin:commit-conventions.yaml"');
      expect(outputs[3]!.stdout).toMatch(/builtin +0 +builtin: +\d+ files, \d+ served +built-in/);
    } finally {
      project.cleanup();
    }
  });

  // jsonc-parser's default build requires files at run time that a bundle does not carry; on the
  // ES build both of these ended in "Cannot find module './impl/format'" inside the binary.
  test("a broken JSON skill file is reported at its line and column, and install edits a JSON config", async () => {
    const project = makeFixture({
      ".skills/broken.json": '{\n  "id": "broken",\n  "type": "prompt",\n}\n',
      "~/.cursor/mcp.json": '{ "mcpServers": {} }\n',
    });
    try {
      const validate = await run([binary, "validate"], project.cwd, project.home);
      expect(validate.exitCode).toBe(1);
      expect(validate.stdout + validate.stderr).toMatch(/broken\.json:3:\d+/);
      expect(validate.stdout + validate.stderr).not.toContain("Cannot find module");
      const install = await run([binary, "install", "cursor", "--dry-run"], project.cwd, project.home);
      expect({ exitCode: install.exitCode, stderr: install.stderr }).toEqual({ exitCode: 0, stderr: "" });
      expect(install.stdout).toContain("mcp.json");
    } finally {
      project.cleanup();
    }
  });

  test("a bunfig.toml in the project is not loaded: its preload script cannot write to stdout", async () => {
    const project = makeFixture({
      "bunfig.toml": 'preload = ["./preload.ts"]\n',
      "preload.ts": 'process.stdout.write("PRELOADED\\n");\n',
    });
    try {
      const version = await run([binary, "--version"], project.cwd, project.home);
      expect(version.stdout).toBe(`${pkg.version}\n`);
      const raw = await rawSession(
        { name: "binary", command: binary, args: ["mcp"] },
        project.cwd,
        project.home,
        [initializeLine(1)],
        1,
      );
      expect(raw.stdout.join("\n")).not.toContain("PRELOADED");
      expect(jsonRpcFrames(raw.stdout).length).toBe(1);
    } finally {
      project.cleanup();
    }
  });
});

/** Debian: `apt-get install qemu-user libc6-arm64-cross`. */
const QEMU = Bun.which("qemu-aarch64");
const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";
const canEmulateArm64 =
  process.platform === "linux" && QEMU !== null && existsSync(join(ARM64_SYSROOT, "lib", "ld-linux-aarch64.so.1"));

describe.skipIf(!canEmulateArm64)("cross-compiled linux-arm64 binary under qemu-user", () => {
  let target: ServerTarget;
  let fixture: Fixture;

  beforeAll(async () => {
    const binary = await buildForTests("linux-arm64");
    target = { name: "linux-arm64", command: QEMU!, args: ["-L", ARM64_SYSROOT, binary, "mcp"] };
    fixture = makeFixture();
  }, 180_000);
  afterAll(() => fixture?.cleanup());

  test("answers initialize and tools/call with JSON-RPC frames only on stdout", async () => {
    const raw = await rawSession(target, fixture.cwd, fixture.home, [initializeLine(1), COMMIT_CALL], 2, {
      timeoutMs: 90_000,
    });
    const frames = jsonRpcFrames(raw.stdout);
    expect(frames.map((f) => f.id)).toEqual([1, 2]);
    expect(frames[0]?.result?.serverInfo?.name).toBe("skill-central");
    expect(frames[1]?.result?.content?.[0]?.text).toBe("feat(cli): add x");
    expect(raw.exitCode).toBe(0);
  }, 120_000);
});

describe("release build (build:all)", () => {
  test("names every target skill-central-<os>-<arch>, .exe only for Windows, and covers the five platforms", () => {
    expect(RELEASE_TARGETS.map(releaseFileName)).toEqual([
      "skill-central-linux-x64",
      "skill-central-linux-x64-musl",
      "skill-central-linux-arm64",
      "skill-central-darwin-x64",
      "skill-central-darwin-arm64",
      "skill-central-windows-x64.exe",
    ]);
  });

  // One target, not all six: the full build is `bun run build:all`, outside the test suite.
  test.skipIf(Bun.which("sha256sum") === null)(
    "writes SHA256SUMS that `sha256sum -c` accepts beside the binaries",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "skill-central-release-"));
      try {
        await buildAll(dir, [releaseTarget("linux-x64")]);
        expect(readdirSync(dir).sort()).toEqual(["SHA256SUMS", "skill-central-linux-x64"]);
        const check = Bun.spawnSync(["sha256sum", "-c", "SHA256SUMS"], { cwd: dir });
        expect(check.stdout.toString()).toBe("skill-central-linux-x64: OK\n");
        expect(check.exitCode).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
