import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCommands } from "../../src/install/clients/claude-code.ts";
import { CLIENT_IDS, type ClientContext, type ClientId } from "../../src/install/clients/client.ts";
import { clientById, CLIENTS } from "../../src/install/clients/index.ts";
import { detectClients } from "../../src/install/detect.ts";
import type { DesiredEntry } from "../../src/install/entry.ts";
import { hostFromEnv, type Host } from "../../src/install/host.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "skill-central-clients-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const host = (platform: NodeJS.Platform, env: Record<string, string> = {}, home = "/home/u"): Host => ({
  home,
  platform,
  env: { HOME: home, ...env },
  which: () => null,
});
const ctx = (h: Host, scope: "user" | "project" = "user"): ClientContext => ({ host: h, project: "/work/proj", scope });
const file = (id: ClientId, h: Host, scope: "user" | "project" = "user") => clientById(id).file(ctx(h, scope));

describe("where each client's config is", () => {
  test("Linux, user scope", () => {
    const h = host("linux");
    expect(Object.fromEntries(CLIENT_IDS.map((id) => [id, file(id, h)]))).toEqual({
      "claude-code": "/home/u/.claude.json",
      "claude-desktop": "/home/u/.config/Claude/claude_desktop_config.json",
      cursor: "/home/u/.cursor/mcp.json",
      windsurf: "/home/u/.codeium/windsurf/mcp_config.json",
      vscode: "/home/u/.config/Code/User/mcp.json",
      codex: "/home/u/.codex/config.toml",
      zed: "/home/u/.config/zed/settings.json",
      gemini: "/home/u/.gemini/settings.json",
      opencode: "/home/u/.config/opencode/opencode.json",
    });
  });

  test("project scope; Claude Desktop and Windsurf have no project file", () => {
    const h = host("linux");
    expect(Object.fromEntries(CLIENT_IDS.map((id) => [id, file(id, h, "project")]))).toEqual({
      "claude-code": "/work/proj/.mcp.json",
      "claude-desktop": undefined,
      cursor: "/work/proj/.cursor/mcp.json",
      windsurf: undefined,
      vscode: "/work/proj/.vscode/mcp.json",
      codex: "/work/proj/.codex/config.toml",
      zed: "/work/proj/.zed/settings.json",
      gemini: "/work/proj/.gemini/settings.json",
      opencode: "/work/proj/opencode.json",
    });
  });

  test("macOS and Windows settings folders; XDG_CONFIG_HOME, CODEX_HOME and CLAUDE_CONFIG_DIR", () => {
    const mac = host("darwin");
    expect(file("claude-desktop", mac)).toBe("/home/u/Library/Application Support/Claude/claude_desktop_config.json");
    expect(file("vscode", mac)).toBe("/home/u/Library/Application Support/Code/User/mcp.json");
    expect(file("zed", mac)).toBe("/home/u/.config/zed/settings.json");
    const win = host("win32", { APPDATA: "/appdata", USERPROFILE: "/home/u" });
    expect(file("claude-desktop", win)).toBe("/appdata/Claude/claude_desktop_config.json");
    expect(file("vscode", win)).toBe("/appdata/Code/User/mcp.json");
    expect(file("zed", win)).toBe("/appdata/Zed/settings.json");
    const custom = host("linux", { XDG_CONFIG_HOME: "/xdg", CODEX_HOME: "/codex", CLAUDE_CONFIG_DIR: "/claude" });
    expect([file("zed", custom), file("opencode", custom), file("codex", custom), file("claude-code", custom)]).toEqual(
      ["/xdg/zed/settings.json", "/xdg/opencode/opencode.json", "/codex/config.toml", "/claude/.claude.json"],
    );
  });

  test("files that exist win: Zed's ~/.zed on macOS, opencode's .jsonc and .opencode/ folder", () => {
    const home = join(root, "mac-home");
    mkdirSync(join(home, ".zed"), { recursive: true });
    expect(file("zed", host("darwin", {}, home))).toBe(join(home, ".zed", "settings.json"));
    mkdirSync(join(home, ".config", "zed"), { recursive: true });
    expect(file("zed", host("darwin", {}, home))).toBe(join(home, ".config", "zed", "settings.json"));
    mkdirSync(join(home, ".config", "opencode"), { recursive: true });
    writeFileSync(join(home, ".config", "opencode", "opencode.jsonc"), "{}");
    expect(file("opencode", host("linux", {}, home))).toBe(join(home, ".config", "opencode", "opencode.jsonc"));
    const project = join(root, "oc-project");
    mkdirSync(join(project, ".opencode"), { recursive: true });
    writeFileSync(join(project, ".opencode", "opencode.json"), "{}");
    expect(clientById("opencode").file({ host: host("linux"), project, scope: "project" })).toBe(
      join(project, ".opencode", "opencode.json"),
    );
  });
});

const STDIO: DesiredEntry = { transport: "stdio", command: "/opt/skill-central", args: ["mcp"] };
const HTTP: DesiredEntry = { transport: "http", url: "https://skills.example.com/mcp", tokenEnv: "SKILLS_TOKEN" };

describe("each client's shape for our entry", () => {
  const linux = host("linux");
  const shape = (id: ClientId, entry: DesiredEntry, data: unknown = {}) =>
    clientById(id).shape(entry, ctx(linux), data);

  test("stdio", () => {
    expect(Object.fromEntries(CLIENT_IDS.map((id) => [id, shape(id, STDIO)]))).toEqual({
      "claude-code": { type: "stdio", command: "/opt/skill-central", args: ["mcp"], env: {} },
      "claude-desktop": { command: "/opt/skill-central", args: ["mcp"] },
      cursor: { command: "/opt/skill-central", args: ["mcp"] },
      windsurf: { command: "/opt/skill-central", args: ["mcp"] },
      vscode: { type: "stdio", command: "/opt/skill-central", args: ["mcp"] },
      codex: { command: "/opt/skill-central", args: ["mcp"] },
      zed: { source: "custom", command: "/opt/skill-central", args: ["mcp"], env: {} },
      gemini: { command: "/opt/skill-central", args: ["mcp"] },
      opencode: { type: "local", command: ["/opt/skill-central", "mcp"], enabled: true },
    });
  });

  test("HTTP with a token: each client's own key for the URL and its own way to name an environment variable", () => {
    const auth = (ref: string) => ({ headers: { Authorization: `Bearer ${ref}` } });
    expect(Object.fromEntries(CLIENT_IDS.map((id) => [id, shape(id, HTTP)]))).toEqual({
      "claude-code": { type: "http", url: HTTP.url, ...auth("${SKILLS_TOKEN}") },
      "claude-desktop": { refused: expect.stringContaining("connectors") },
      cursor: { url: HTTP.url, ...auth("${env:SKILLS_TOKEN}") },
      windsurf: { serverUrl: HTTP.url, ...auth("${env:SKILLS_TOKEN}") },
      vscode: { type: "http", url: HTTP.url, ...auth("${env:SKILLS_TOKEN}") },
      codex: { url: HTTP.url, bearer_token_env_var: "SKILLS_TOKEN" },
      zed: { refused: expect.stringContaining("will not copy a token") },
      gemini: { httpUrl: HTTP.url, ...auth("${SKILLS_TOKEN}") },
      opencode: { type: "remote", url: HTTP.url, ...auth("{env:SKILLS_TOKEN}"), enabled: true },
    } as never);
    expect(shape("zed", { transport: "http", url: HTTP.url })).toEqual({ url: HTTP.url });
  });

  test("opencode writes the schema the file already uses", () => {
    expect(clientById("opencode").entryPath({ mcp: { servers: { other: { type: "local" } } } })).toEqual([
      "mcp",
      "servers",
      "skill-central",
    ]);
    expect(shape("opencode", STDIO, { mcp: { servers: {} } })).toEqual({
      type: "local",
      command: ["/opt/skill-central", "mcp"],
    });
    // A v1 server that happens to be named "servers" is not the newer table.
    expect(clientById("opencode").entryPath({ mcp: { servers: { type: "local", command: ["x"] } } })).toEqual([
      "mcp",
      "skill-central",
    ]);
    expect(clientById("opencode").entryPath({})).toEqual(["mcp", "skill-central"]);
  });

  test("--cwd: the project path for global-only configs, the editor's variable for Cursor and VS Code, nothing where the client starts in the project", () => {
    expect(Object.fromEntries(CLIENT_IDS.map((id) => [id, clientById(id).cwdOption(ctx(linux)) ?? null]))).toEqual({
      "claude-code": null,
      "claude-desktop": "/work/proj",
      cursor: "${workspaceFolder}",
      windsurf: "/work/proj",
      vscode: "${workspaceFolder}",
      codex: null,
      zed: null,
      gemini: null,
      opencode: null,
    });
  });
});

describe("how each client starts an entry (what verification runs)", () => {
  const h = host("linux", { SKILLS_TOKEN: "tok", PATH: "/bin" });
  const reach = (id: ClientId, value: unknown) => clientById(id).reach(value, ctx(h));

  test("variables are filled in the way each client does", () => {
    expect(
      reach("cursor", {
        command: "${userHome}/bin/sc",
        args: ["mcp", "--cwd", "${workspaceFolder}", "${workspaceFolderBasename}"],
      }),
    ).toMatchObject({ command: "/home/u/bin/sc", args: ["mcp", "--cwd", "/work/proj", "proj"], cwd: "/home/u" });
    expect(reach("claude-code", { command: "sc", args: ["${MISSING:-fallback}", "${SKILLS_TOKEN}"] })).toMatchObject({
      args: ["fallback", "tok"],
      cwd: "/work/proj",
    });
    expect(
      reach("gemini", { command: "sc", args: ["$SKILLS_TOKEN", "${SKILLS_TOKEN}"], cwd: "/elsewhere" }),
    ).toMatchObject({ args: ["tok", "tok"], cwd: "/elsewhere" });
    expect(
      reach("opencode", {
        type: "local",
        command: ["sc", "{env:SKILLS_TOKEN}"],
        environment: { A: "{env:SKILLS_TOKEN}" },
      }),
    ).toMatchObject({ command: "sc", args: ["tok"], env: { A: "tok" } });
    expect(reach("zed", { command: { path: "/old/sc", args: ["mcp"], env: { B: "1" } } })).toMatchObject({
      command: "/old/sc",
      args: ["mcp"],
      env: { B: "1" },
      cwd: "/work/proj",
    });
    expect(reach("claude-desktop", { command: "sc", args: ["mcp", "--cwd", "/work/proj"] })).toMatchObject({
      cwd: "/home/u",
    });
  });

  test("HTTP entries resolve the token from the environment", () => {
    expect(reach("codex", { url: "https://x/mcp", bearer_token_env_var: "SKILLS_TOKEN" })).toEqual({
      transport: "http",
      url: "https://x/mcp",
      headers: { Authorization: "Bearer tok" },
    });
    expect(
      reach("windsurf", { serverUrl: "https://x/mcp", headers: { Authorization: "Bearer ${env:SKILLS_TOKEN}" } }),
    ).toEqual({ transport: "http", url: "https://x/mcp", headers: { Authorization: "Bearer tok" } });
    expect(
      reach("opencode", {
        type: "remote",
        url: "https://x/mcp",
        headers: { Authorization: "Bearer {env:SKILLS_TOKEN}" },
      }),
    ).toEqual({ transport: "http", url: "https://x/mcp", headers: { Authorization: "Bearer tok" } });
  });

  test("entries that cannot be started from here say why", () => {
    expect(reach("vscode", { type: "stdio", command: "sc", env: { K: "${input:key}" } })).toEqual({
      refused: "${input:key} asks for input in the editor; skill-central cannot check this entry",
    });
    expect(reach("cursor", { command: "sc", args: "mcp" })).toEqual({
      refused: "args must be a list of strings and env a map of strings",
    });
    expect(reach("opencode", { type: "local", command: "sc" })).toHaveProperty("refused");
  });
});

describe("detecting clients", () => {
  test("a config folder or a command on PATH counts; nothing else does", () => {
    const home = join(root, "detect-home");
    const bin = join(root, "detect-bin");
    mkdirSync(join(home, ".cursor"), { recursive: true });
    mkdirSync(join(home, ".codeium", "windsurf"), { recursive: true });
    mkdirSync(join(home, ".gemini-not-it"), { recursive: true });
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, "codex"), "#!/bin/sh\n");
    chmodSync(join(bin, "codex"), 0o755);
    const found = detectClients(hostFromEnv({ HOME: home, PATH: bin }, "linux"));
    expect(found.map((d) => [d.client.id, d.reason])).toEqual([
      ["cursor", "~/.cursor exists"],
      ["windsurf", "~/.codeium/windsurf exists"],
      ["codex", "codex is on PATH"],
    ]);
    expect(detectClients(hostFromEnv({ HOME: join(root, "empty-home"), PATH: "" }, "linux"))).toEqual([]);
  });
});

test("claude mcp command lines", () => {
  expect(claudeCommands("add", "user", STDIO)).toEqual([
    ["mcp", "add", "--scope", "user", "skill-central", "--", "/opt/skill-central", "mcp"],
  ]);
  expect(claudeCommands("update", "project", STDIO)).toEqual([
    ["mcp", "remove", "--scope", "project", "skill-central"],
    ["mcp", "add", "--scope", "project", "skill-central", "--", "/opt/skill-central", "mcp"],
  ]);
  expect(claudeCommands("add", "user", HTTP)).toEqual([
    [
      "mcp",
      "add",
      "--scope",
      "user",
      "--transport",
      "http",
      "skill-central",
      HTTP.url,
      "--header",
      "Authorization: Bearer ${SKILLS_TOKEN}",
    ],
  ]);
  expect(claudeCommands("remove", "user")).toEqual([["mcp", "remove", "--scope", "user", "skill-central"]]);
  expect(CLIENTS.map((c) => c.id)).toEqual([...CLIENT_IDS]);
});
