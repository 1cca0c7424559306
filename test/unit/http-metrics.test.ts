import { describe, expect, test } from "bun:test";
import { chmodSync } from "node:fs";
import { join } from "node:path";
import { accessLine, accessRecord } from "../../src/mcp/http/access-log.ts";
import { namedSkill } from "../../src/mcp/http/body.ts";
import { loadMetricsToken } from "../../src/mcp/http/bearer-tokens.ts";
import { methodLabel } from "../../src/mcp/http/metrics.ts";
import { ANONYMOUS } from "../../src/registry/caller.ts";
import { createLogger } from "../../src/serve/log.ts";
import { makeFixture } from "../helpers/fixture.ts";

const TOKEN = "metrics-secret-0123456789abcdef";

describe("namedSkill: the skill a request names, for the access log", () => {
  test("prompts/get and tools/call by name; load_skill and run_skill_tool by their name argument; find_skills none", () => {
    expect(namedSkill("prompts/get", { name: "greet" })).toBe("greet");
    expect(namedSkill("tools/call", { name: "echo", arguments: {} })).toBe("echo");
    expect(namedSkill("tools/call", { name: "load_skill", arguments: { name: "greet" } })).toBe("greet");
    expect(namedSkill("tools/call", { name: "run_skill_tool", arguments: { name: "echo" } })).toBe("echo");
    expect(namedSkill("tools/call", { name: "find_skills", arguments: { query: "x" } })).toBeUndefined();
  });

  test("skills/get by the name in its manifest URI, else the URI as sent", () => {
    expect(namedSkill("skills/get", { uri: "skill://pdf-tools/SKILL.md" })).toBe("pdf-tools");
    expect(namedSkill("skills/get", { uri: "skill://pdf-tools/other.md" })).toBe("skill://pdf-tools/other.md");
  });

  test("only a string; other methods and odd params name nothing", () => {
    expect(namedSkill("prompts/get", { name: 42 })).toBeUndefined();
    expect(namedSkill("prompts/get", null)).toBeUndefined();
    expect(namedSkill("tools/call", { name: "load_skill", arguments: "greet" })).toBeUndefined();
    expect(namedSkill("prompts/list", { name: "greet" })).toBeUndefined();
  });
});

describe("accessRecord: one request as a JSON log line", () => {
  test("every key, null when unknown; the caller by its name (an OAuth claim, a token label)", () => {
    const time = new Date("2026-01-02T03:04:05.678Z");
    expect(accessRecord("GET", "/healthz", 200, 1.26, { caller: ANONYMOUS }, time)).toEqual({
      time: "2026-01-02T03:04:05.678Z",
      method: "GET",
      route: "/healthz",
      status: 200,
      ms: 1.3,
      rpc: null,
      session: null,
      caller: null,
      skill: null,
    });
    const exchange = {
      rpc: "prompts/get",
      session: "0123abcd",
      caller: { kind: "token", label: "alice" } as const,
      skill: "greet",
    };
    expect(accessRecord("POST", "/mcp", 200, 2, exchange)).toMatchObject({ caller: "alice", skill: "greet" });
    const oauth = {
      kind: "oauth",
      issuer: "https://id.example.com",
      subject: "u-1",
      name: "alice@example.com",
      claims: {},
    } as const;
    expect(accessRecord("POST", "/mcp", 200, 2, { ...exchange, caller: oauth }).caller).toBe("alice@example.com");
  });

  test("a client's values are capped, and stay one line once serialised", () => {
    const record = accessRecord("POST", "/mcp", 400, 0, {
      rpc: `a\n${"x".repeat(500)}`,
      skill: 'q"\u2028',
      caller: ANONYMOUS,
    });
    expect(record.rpc).toEndWith("…(502 chars)");
    expect(record.rpc!.length).toBeLessThan(100);
    const line = JSON.stringify(record);
    expect(line).not.toContain("\n");
    expect(JSON.parse(line).skill).toBe('q"\u2028');
  });

  test("the text line is unchanged by the new fields", () => {
    const alice = { kind: "token", label: "alice" } as const;
    expect(accessLine("POST", "/mcp", 200, 1.25, { rpc: "tools/call", caller: alice, skill: "echo" })).toBe(
      "http POST /mcp 200 1.3ms rpc=tools/call token=alice",
    );
  });
});

describe("methodLabel: a bounded label set", () => {
  test("known methods as they are, others `other`, none `none`", () => {
    expect(methodLabel("tools/call")).toBe("tools/call");
    expect(methodLabel("skills/get")).toBe("skills/get");
    expect(methodLabel("anything/else")).toBe("other");
    expect(methodLabel(undefined)).toBe("none");
  });
});

describe("loadMetricsToken: the one token /metrics takes", () => {
  test("trimmed; only the token matches; a file others may read is used with a warning", () => {
    const fixture = makeFixture({ token: `  ${TOKEN}\n\n` });
    const path = join(fixture.cwd, "token");
    chmodSync(path, 0o644);
    const warnings: string[] = [];
    const token = loadMetricsToken(path, (w) => warnings.push(w));
    expect(token.check(`Bearer ${TOKEN}`)).toEqual({ ok: true, label: "metrics" });
    expect(token.check(`Bearer ${TOKEN}x`).ok).toBe(false);
    expect(warnings).toEqual([`${path} can be read by other users: chmod 600 it`]);
    chmodSync(path, 0o600);
    warnings.length = 0;
    loadMetricsToken(path, (w) => warnings.push(w));
    expect(warnings).toEqual([]);
    fixture.cleanup();
  });

  test("a missing, empty, short or two-token file is refused, and the message never holds the token", () => {
    const fixture = makeFixture({ empty: "\n", short: "abc\n", two: `${TOKEN} ${TOKEN}2\n` });
    const refusal = (name: string) => {
      try {
        loadMetricsToken(join(fixture.cwd, name), () => {});
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error(`${name} was accepted`);
    };
    expect(refusal("missing")).toContain("cannot read");
    expect(refusal("missing")).toContain("ENOENT");
    expect(refusal("empty")).toContain("no token");
    expect(refusal("short")).toContain("shorter than 16 characters");
    expect(refusal("two")).toContain("characters an Authorization header cannot carry");
    expect(refusal("two")).not.toContain(TOKEN);
    fixture.cleanup();
  });
});

describe("createLogger: text or JSON lines", () => {
  test("text: [skill-central] lines, as before", () => {
    const out: string[] = [];
    const logger = createLogger({}, (text) => out.push(text));
    logger.info("hello");
    logger.warn("careful");
    expect(out).toEqual(["[skill-central] hello\n", "[skill-central] careful\n"]);
    expect(logger.record).toBeUndefined();
  });

  test("json: {time, level, message} per line; records as they are; debug only when asked", () => {
    const out: string[] = [];
    const logger = createLogger({ format: "json" }, (text) => out.push(text));
    logger.info("hello\nworld");
    logger.warn("careful");
    logger.debug("hidden");
    logger.record?.({ route: "/mcp" });
    expect(out.every((line) => line.endsWith("\n") && !line.slice(0, -1).includes("\n"))).toBe(true);
    const parsed = out.map((line) => JSON.parse(line));
    expect(parsed).toHaveLength(3);
    expect(parsed[0]).toMatchObject({ level: "info", message: "hello\nworld" });
    expect(Object.keys(parsed[0])).toEqual(["time", "level", "message"]);
    expect(parsed[1]).toMatchObject({ level: "warn", message: "careful" });
    expect(parsed[2]).toEqual({ route: "/mcp" });
    const debugOut: string[] = [];
    createLogger({ format: "json", debug: true }, (text) => debugOut.push(text)).debug("shown");
    expect(JSON.parse(debugOut[0]!)).toMatchObject({ level: "debug", message: "shown" });
  });
});
