import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { Transport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeFixture, type Fixture } from "../helpers/fixture.ts";
import { startHttpServer, type HttpServer } from "../helpers/http-server.ts";
import { MODERN_VERSION, SOURCE_TARGET, wireError, type Era, type ServerTarget } from "../helpers/server.ts";

/** The skills the suite asks about: a prompt with a choice, a tool with bounds, a tool whose required argument is an array. */
export const ELICITATION_FILES: Record<string, string> = {
  ".skills/review.yaml": [
    "id: review",
    "description: Review a change",
    "type: prompt",
    "tags: [quality]",
    "arguments:",
    "  - { name: focus, description: What to look at, required: true, enum: [security, style] }",
    "  - { name: context, description: Anything else }",
    "prompt: 'Review for {{focus}}.'",
    "",
  ].join("\n"),
  ".skills/greet.yaml": [
    "id: greet",
    "description: Greet someone somewhere",
    "type: prompt",
    "arguments:",
    "  - { name: who, required: true }",
    "  - { name: place, required: true }",
    "prompt: 'Hello {{who}} from {{place}}.'",
    "",
  ].join("\n"),
  ".skills/commit.yaml": [
    "id: commit",
    "description: Write a commit message",
    "type: tool",
    "inputSchema:",
    "  type: object",
    "  properties:",
    "    type: { type: string, enum: [feat, fix], description: The kind of change }",
    "    summary: { type: string, title: Summary, minLength: 3, maxLength: 72 }",
    "    count: { type: integer, minimum: 1, maximum: 5 }",
    "  required: [type, summary]",
    "prompt: '{{type}}: {{summary}}'",
    "",
  ].join("\n"),
  ".skills/batch.yaml": [
    "id: batch",
    "description: Many at once",
    "type: tool",
    "inputSchema: { type: object, properties: { items: { type: array, items: { type: string } } }, required: [items] }",
    "",
  ].join("\n"),
};

export interface Asked {
  message: string;
  requestedSchema: { properties: Record<string, Record<string, unknown>>; required?: string[] };
}
type Answer =
  | { action: "accept"; content: Record<string, string | number | boolean | string[]> }
  | { action: "decline" }
  | { action: "cancel" };

/** A client that declared form elicitation and answers each form from a script, recording what it was asked. */
export class ScriptedUser {
  readonly asked: Asked[] = [];
  private script: Answer[] = [];

  answers(...answers: Answer[]): this {
    this.asked.length = 0;
    this.script = answers;
    return this;
  }

  install(client: Client): void {
    client.setRequestHandler("elicitation/create", async (request) => {
      this.asked.push(request.params as unknown as Asked);
      const next = this.script.shift();
      if (next === undefined) throw new Error("the script has no answer for another form");
      return next;
    });
  }
}

export type Way = { era: Era; transport: "stdio" | "http"; stateless?: boolean };

export const wayName = (way: Way) =>
  `${way.era === "modern" ? MODERN_VERSION : "2025-11-25"} over ${way.transport}${way.stateless ? " (stateless)" : way.transport === "http" && way.era === "legacy" ? " (session)" : ""}`;

export function askingClient(era: Era, user: ScriptedUser | undefined): Client {
  const client = new Client(
    { name: "asking-tests", version: "0.0.0" },
    {
      ...(era === "modern" && { versionNegotiation: { mode: { pin: MODERN_VERSION } } }),
      ...(user && { capabilities: { elicitation: { form: {} } } }),
    },
  );
  user?.install(client);
  return client;
}

const textOf = (result: { content?: unknown }) =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");
const promptText = (result: { messages: { content: unknown }[] }) =>
  (result.messages[0]!.content as { text: string }).text;

interface InputRequired {
  resultType: string;
  inputRequests: Record<string, { method: string; params: Asked }>;
  requestState: string;
}

/**
 * Asking for missing required arguments in one era over one transport (docs/protocol.md): the
 * SDK's v2 client, its elicitation handler scripted, its input-required handling left on. The
 * target is the source entry unless given (the compiled binary: elicitation-binary.test.ts).
 */
export function elicitationSuite(way: Way, target: ServerTarget = SOURCE_TARGET): void {
  describe(`asking for missing arguments: ${wayName(way)} (${target.name})`, () => {
    let fixture: Fixture;
    let http: HttpServer | undefined;
    let client: Client;
    const user = new ScriptedUser();

    beforeAll(async () => {
      fixture = makeFixture(ELICITATION_FILES);
      let transport: Transport;
      if (way.transport === "http") {
        http = await startHttpServer({
          target,
          cwd: fixture.cwd,
          home: fixture.home,
          args: way.stateless ? ["--stateless"] : [],
        });
        transport = new StreamableHTTPClientTransport(new URL(http.url));
      } else {
        transport = new StdioClientTransport({
          command: target.command,
          args: target.args,
          cwd: fixture.cwd,
          env: { HOME: fixture.home, PATH: process.env.PATH ?? "", NO_COLOR: "1" },
          stderr: "pipe",
        });
      }
      client = askingClient(way.era, user);
      await client.connect(transport);
    });
    afterAll(async () => {
      await client?.close();
      await http?.stop();
      fixture?.cleanup();
    });

    test("prompts/get without a required argument asks for it alone, as a choice, and answers with the value given", async () => {
      user.answers({ action: "accept", content: { focus: "security" } });
      const result = await client.getPrompt({ name: "review", arguments: {} });
      expect(promptText(result)).toBe("Review for security.");
      expect(user.asked).toHaveLength(1);
      expect(user.asked[0]!.requestedSchema.properties).toEqual({
        focus: { type: "string", title: "focus", description: "What to look at", enum: ["security", "style"] },
      });
      expect(user.asked[0]!.requestedSchema.required).toEqual(["focus"]);
    });

    test("tools/call asks only for what is missing, with the schema's title, bounds and choices", async () => {
      user.answers({ action: "accept", content: { summary: "add the form" } });
      const result = await client.callTool({ name: "commit", arguments: { type: "feat" } });
      expect(result.isError).toBeFalsy();
      expect(textOf(result)).toBe("feat: add the form");
      expect(user.asked[0]!.requestedSchema.properties).toEqual({
        summary: { type: "string", title: "Summary", minLength: 3, maxLength: 72 },
      });
    });

    test("a declined form gets today's error for prompts (-32602), with the reason in words", async () => {
      user.answers({ action: "decline" });
      const error = await wireError(client.getPrompt({ name: "review", arguments: {} }));
      expect(error.code).toBe(-32602);
      expect(error.message).toBe('Missing required argument: "focus" (the user declined to fill in the form for it)');
    });

    test("a cancelled form gets today's isError result for tools, with the reason in words", async () => {
      user.answers({ action: "cancel" });
      const result = await client.callTool({ name: "commit", arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        'Missing required argument: "type"\nMissing required argument: "summary" (the user cancelled the form for it)',
      );
      expect(Object.keys(user.asked[0]!.requestedSchema.properties)).toEqual(["type", "summary"]);
    });

    test("invalid values are asked for again once, with what is wrong, then answered", async () => {
      user.answers({ action: "accept", content: { summary: "ab" } }, { action: "accept", content: { summary: "abc" } });
      const result = await client.callTool({ name: "commit", arguments: { type: "fix" } });
      expect(textOf(result)).toBe("fix: abc");
      expect(user.asked).toHaveLength(2);
      expect(user.asked[1]!.message).toContain('Argument "summary" must be at least 3 characters long');
    });

    test("invalid twice: refused with today's error and both reasons", async () => {
      user.answers({ action: "accept", content: { focus: "speed" } }, { action: "accept", content: { focus: 3 } });
      const error = await wireError(client.getPrompt({ name: "review", arguments: {} }));
      expect(error.code).toBe(-32602);
      expect(error.message).toBe(
        'Missing required argument: "focus" (asked twice, and still not valid: Argument "focus" must be text)',
      );
      expect(user.asked[1]!.message).toContain('Argument "focus" must be one of: security, style');
    });

    test("a required array argument cannot be a form: today's error, nothing asked", async () => {
      user.answers();
      const result = await client.callTool({ name: "batch", arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe('Missing required argument: "items"');
      expect(user.asked).toHaveLength(0);
    });

    test("an empty answer for a required argument is asked for again, not rendered empty", async () => {
      user.answers(
        { action: "accept", content: { who: "", place: "Oslo" } },
        { action: "accept", content: { who: "Ann", place: "Oslo" } },
      );
      const result = await client.getPrompt({ name: "greet", arguments: {} });
      expect(promptText(result)).toBe("Hello Ann from Oslo.");
      expect(user.asked).toHaveLength(2);
      expect(user.asked[1]!.message).toContain('Argument "who" must not be empty');
    });

    /** A 2026-07-28 request handed back at its first round, and its retry with `args` re-sent and `content` as the answer. */
    const firstRoundAndRetry = async (
      method: "prompts/get" | "tools/call",
      name: string,
      args: Record<string, string>,
      content: Record<string, unknown>,
    ) => {
      const raw = (params: object) =>
        client.request({ method, params } as never, { allowInputRequired: true }) as unknown as Promise<InputRequired>;
      const first = await raw({ name, arguments: {} });
      const retried = await raw({
        name,
        arguments: args,
        requestState: first.requestState,
        inputResponses: { arguments: { action: "accept", content } },
      });
      return { first, retried };
    };

    test.skipIf(way.era !== "modern")(
      "a retry that re-sends an argument still has every answer validated: an object never reaches the template",
      async () => {
        // The client re-sends `who` as an argument, and answers the form with an object for it.
        const { first, retried } = await firstRoundAndRetry(
          "prompts/get",
          "greet",
          { who: "Ann" },
          { who: { evil: 1 }, place: "Oslo" },
        );
        expect(first.inputRequests.arguments!.params.requestedSchema.required).toEqual(["who", "place"]);
        expect(JSON.stringify(retried)).not.toContain("[object Object]");
        expect(retried.resultType).toBe("input_required");
        const again = retried.inputRequests.arguments!.params;
        expect(again.message).toContain('Argument "who" must be text');
        expect(Object.keys(again.requestedSchema.properties)).toEqual(["who", "place"]);
      },
    );

    test.skipIf(way.era !== "modern")(
      "a tool's retry that re-sends an argument: an invalid answer for it is asked again, as for any asked argument",
      async () => {
        const { retried } = await firstRoundAndRetry(
          "tools/call",
          "commit",
          { type: "feat" },
          { type: { evil: 1 }, summary: "add it" },
        );
        expect(retried.resultType).toBe("input_required");
        expect(retried.inputRequests.arguments!.params.message).toContain('Argument "type" must be');
      },
    );

    test("skills:compose without tags asks for them, naming the known tags", async () => {
      user.answers({ action: "accept", content: { tags: "quality" } });
      const result = await client.getPrompt({ name: "skills:compose", arguments: { focus: "style" } });
      expect(promptText(result)).toBe("## review\nReview for style.");
      expect(user.asked[0]!.requestedSchema.properties.tags!.description).toMatch(/Known tags: .*\bquality\b/);
    });
  });
}
