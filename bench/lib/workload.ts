/**
 * What each target is asked, and how every answer is checked. A check returns a problem (a
 * string) or null; a session with any problem is reported FAILED, so a server that answers
 * wrongly cannot post a fast number.
 */
import type { Client } from "@modelcontextprotocol/client";
import type { Prompt, Tool } from "@modelcontextprotocol/client";
import type { CorpusInfo } from "../corpus.ts";

export const OP_NAMES = [
  "prompts/list",
  "tools/list",
  "prompts/get",
  "skills:compose",
  "tools/call valid",
  "tools/call invalid",
] as const;
export type OpName = (typeof OP_NAMES)[number];

export type Problem = string | null;

export interface Op {
  name: OpName;
  run: (client: Client) => Promise<unknown>;
  check: (result: unknown) => Problem;
}

export interface Workload {
  /** Checks the first complete prompts/list of a session (also used by the prompts/list op). */
  checkPrompts: (prompts: Prompt[]) => Problem;
  ops: Record<OpName, Op>;
}

export const COMPOSE_NAME = "skills:compose";
const COMPOSE_SEPARATOR = "\n\n---\n\n";
const REQUEST_TIMEOUT_MS = 30_000;
/** Pagination is followed to the end, but never forever. */
const MAX_PAGES = 10_000;

export const requestOptions = { timeout: REQUEST_TIMEOUT_MS };

// ---------------------------------------------------------------------------
// Requests

/** Follows `nextCursor` until the last page (bounded), so paged servers are measured whole. */
async function listAll<T>(
  fetch: (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await fetch(cursor);
    all.push(...result.items);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return all;
}

const pageParams = (cursor: string | undefined) => (cursor === undefined ? undefined : { cursor });

export function listAllPrompts(client: Client): Promise<Prompt[]> {
  return listAll(async (cursor) => {
    const { prompts, nextCursor } = await client.listPrompts(pageParams(cursor), requestOptions);
    return { items: prompts, ...(nextCursor !== undefined && { nextCursor }) };
  });
}

function listAllTools(client: Client): Promise<Tool[]> {
  return listAll(async (cursor) => {
    const { tools, nextCursor } = await client.listTools(pageParams(cursor), requestOptions);
    return { items: tools, ...(nextCursor !== undefined && { nextCursor }) };
  });
}

function getPrompt(name: string, args: Record<string, string>): (client: Client) => Promise<unknown> {
  return (client) => client.getPrompt({ name, arguments: args }, requestOptions);
}

function callTool(name: string, args: Record<string, unknown>): (client: Client) => Promise<unknown> {
  return (client) => client.callTool({ name, arguments: args }, requestOptions);
}

// ---------------------------------------------------------------------------
// Reading results (the SDK has validated their shape; we still read them defensively)

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}

/** The text of a prompts/get result's single user message, or a problem. */
function promptText(result: unknown): { text: string } | { problem: string } {
  const messages = record(result).messages;
  if (!Array.isArray(messages) || messages.length !== 1)
    return { problem: `expected 1 message, got ${JSON.stringify(messages)?.slice(0, 200)}` };
  const message = record(messages[0]);
  const content = record(message.content);
  if (message.role !== "user" || content.type !== "text" || typeof content.text !== "string") {
    return { problem: `expected one user text message, got ${JSON.stringify(message).slice(0, 200)}` };
  }
  return { text: content.text };
}

/** The concatenated text of a tools/call result and its isError flag. */
function toolText(result: unknown): { text: string; isError: boolean } {
  const r = record(result);
  const content = Array.isArray(r.content) ? r.content : [];
  const text = content
    .map((c) => record(c))
    .filter((c) => c.type === "text")
    .map((c) => String(c.text))
    .join("\n");
  return { text, isError: r.isError === true };
}

function excerpt(text: string): string {
  return JSON.stringify(text.length > 160 ? `${text.slice(0, 160)}…` : text);
}

// ---------------------------------------------------------------------------
// Checks

function checkExactPrompt(expected: string): (result: unknown) => Problem {
  return (result) => {
    const got = promptText(result);
    if ("problem" in got) return got.problem;
    return got.text === expected ? null : `rendered text differs: got ${excerpt(got.text)}, want ${excerpt(expected)}`;
  };
}

function checkToolOk(expected: string): (result: unknown) => Problem {
  return (result) => {
    const { text, isError } = toolText(result);
    if (isError) return `valid call returned isError: ${excerpt(text)}`;
    return text === expected ? null : `tool text differs: got ${excerpt(text)}, want ${excerpt(expected)}`;
  };
}

function checkToolRejects(expectedMessage: string): (result: unknown) => Problem {
  return (result) => {
    const { text, isError } = toolText(result);
    if (!isError) return `invalid call was not isError: ${excerpt(text)}`;
    return text.includes(expectedMessage)
      ? null
      : `invalid call message lacks ${excerpt(expectedMessage)}: got ${excerpt(text)}`;
  };
}

/** Named items' descriptions must be the override winners'. */
function checkWinners(
  items: ReadonlyArray<{ name: string; description?: string }>,
  winners: CorpusInfo["overrides"],
): Problem {
  const byName = new Map(items.map((i) => [i.name, i.description]));
  for (const w of winners) {
    const got = byName.get(w.id);
    if (got !== w.description)
      return `override ${w.id}: description ${excerpt(String(got))}, want the ${w.layer} layer's ${excerpt(w.description)}`;
  }
  return null;
}

function checkCount(what: string, got: number, want: number): Problem {
  return got === want ? null : `${what}: got ${got}, want ${want}`;
}

/** skills:compose: one `## <id>` section per matching prompt, joined by the separator. */
function checkCompose(expectedSections: number): (result: unknown) => Problem {
  return (result) => {
    const got = promptText(result);
    if ("problem" in got) return got.problem;
    const sections = got.text.split(COMPOSE_SEPARATOR);
    const headed = sections.filter((s) => /^## [a-z0-9-]+\n/.test(s)).length;
    if (headed !== sections.length)
      return `compose: ${sections.length - headed} of ${sections.length} sections lack a "## <id>" heading`;
    return checkCount("compose sections", sections.length, expectedSections);
  };
}

// ---------------------------------------------------------------------------
// Workloads

/** skill-central on a generated corpus: everything is checked against corpus.json. */
export function corpusWorkload(info: CorpusInfo): Workload {
  const promptWinners = info.overrides.filter((o) => o.type === "prompt");
  const toolWinners = info.overrides.filter((o) => o.type === "tool");
  const { samplePrompt, sampleTool, tagQuery } = info;
  const checkPrompts = (prompts: Prompt[]): Problem => {
    const skills = prompts.filter((p) => p.name !== COMPOSE_NAME);
    return (
      checkCount("prompts/list (without skills:compose)", skills.length, info.effective.prompts) ??
      checkWinners(skills, promptWinners)
    );
  };
  return {
    checkPrompts,
    ops: {
      "prompts/list": { name: "prompts/list", run: listAllPrompts, check: (r) => checkPrompts(r as Prompt[]) },
      "tools/list": {
        name: "tools/list",
        run: listAllTools,
        check: (r) =>
          checkCount("tools/list", (r as Tool[]).length, info.effective.tools) ??
          checkWinners(r as Tool[], toolWinners),
      },
      "prompts/get": {
        name: "prompts/get",
        run: getPrompt(samplePrompt.id, samplePrompt.arguments),
        check: checkExactPrompt(samplePrompt.expectedText),
      },
      "skills:compose": {
        name: "skills:compose",
        run: getPrompt(COMPOSE_NAME, { tags: tagQuery.tag }),
        check: checkCompose(tagQuery.expectedPrompts),
      },
      "tools/call valid": {
        name: "tools/call valid",
        run: callTool(sampleTool.id, sampleTool.arguments),
        check: checkToolOk(sampleTool.expectedText),
      },
      "tools/call invalid": {
        name: "tools/call invalid",
        run: callTool(sampleTool.id, sampleTool.invalidArguments),
        check: checkToolRejects(`Missing required argument: "${sampleTool.missingProperty}"`),
      },
    },
  };
}

/**
 * What the floor's `echo` is sent in a corpus: our sample tool's expected answer itself, so the
 * floor answers exactly as many characters (and the same ones, with the same JSON escaping) as our
 * tools/call does there. An echo of a short word would make the floor's per-call cost unfairly low.
 */
export function floorEchoText(info: Pick<CorpusInfo, "sampleTool">): string {
  return info.sampleTool.expectedText;
}

/**
 * The floor (bench/floor/server.ts) beside a corpus: one prompt, one tool. It has no compose; it
 * answers its prompts/get there.
 */
export function floorWorkload(info: Pick<CorpusInfo, "sampleTool">): Workload {
  const echoText = floorEchoText(info);
  const checkPrompts = (prompts: Prompt[]): Problem =>
    prompts.length === 1 && prompts[0]?.name === "hello"
      ? null
      : `floor prompts/list: ${excerpt(JSON.stringify(prompts))}`;
  const hello: Omit<Op, "name"> = {
    run: getPrompt("hello", { name: "bench" }),
    check: checkExactPrompt("Hello, bench!"),
  };
  return {
    checkPrompts,
    ops: {
      "prompts/list": { name: "prompts/list", run: listAllPrompts, check: (r) => checkPrompts(r as Prompt[]) },
      "tools/list": {
        name: "tools/list",
        run: listAllTools,
        check: (r) =>
          (r as Tool[]).length === 1 && (r as Tool[])[0]?.name === "echo" ? null : "floor tools/list lacks echo",
      },
      "prompts/get": { name: "prompts/get", ...hello },
      "skills:compose": { name: "skills:compose", ...hello },
      "tools/call valid": {
        name: "tools/call valid",
        run: callTool("echo", { text: echoText }),
        check: checkToolOk(echoText),
      },
      "tools/call invalid": {
        name: "tools/call invalid",
        run: callTool("echo", {}),
        check: checkToolRejects("text must be a string"),
      },
    },
  };
}
