/**
 * Smoke-check and time a stdio MCP server with the SDK client.
 *
 *   bun bench/floor/check.ts [runs=10] -- <command> [args...]
 *   bun bench/floor/check.ts 10 -- bench/.out/floor
 *
 * The first session also exercises listTools/callTool (the floor's `echo`)
 * and getPrompt (`hello`); every session measures spawn→initialize, i.e. the
 * time `client.connect` takes to start the process and finish the handshake.
 */
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { median } from "../lib/stats.ts";

interface Session {
  client: Client;
  initMs: number;
}

async function openSession(command: string, args: string[]): Promise<Session> {
  const transport = new StdioClientTransport({ command, args, stderr: "inherit" });
  const client = new Client({ name: "bench-check", version: "0.0.0" });
  const started = performance.now();
  await client.connect(transport);
  return { client, initMs: performance.now() - started };
}

function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(`check failed: ${message}`);
}

/** Functional smoke test against the floor's fixed surface. */
async function smoke(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  assert(
    tools.some((t) => t.name === "echo"),
    "tools/list lacks echo",
  );
  const result = await client.callTool({ name: "echo", arguments: { text: "ping" } });
  const content = Array.isArray(result.content) ? result.content : [];
  const first: unknown = content[0];
  assert(
    typeof first === "object" && first !== null && "text" in first && first.text === "ping",
    `echo returned ${JSON.stringify(result)}`,
  );
  const prompt = await client.getPrompt({ name: "hello", arguments: { name: "bench" } });
  const message = prompt.messages[0]?.content;
  assert(message?.type === "text" && message.text === "Hello, bench!", "prompts/get hello mismatch");
}

function parseArgs(argv: string[]): { runs: number; command: string; args: string[] } {
  const sep = argv.indexOf("--");
  const head = sep === -1 ? [] : argv.slice(0, sep);
  const [command, ...args] = sep === -1 ? argv : argv.slice(sep + 1);
  const runs = head[0] === undefined ? 10 : Number(head[0]);
  if (!command || !Number.isInteger(runs) || runs < 1) {
    console.error("usage: bun bench/floor/check.ts [runs] -- <command> [args...]");
    process.exit(2);
  }
  return { runs, command, args };
}

async function main(): Promise<void> {
  const { runs, command, args } = parseArgs(process.argv.slice(2));
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { client, initMs } = await openSession(command, args);
    if (i === 0) await smoke(client);
    samples.push(initMs);
    await client.close();
  }
  const fmt = (v: number): string => v.toFixed(1);
  console.log(
    `spawn→initialize over ${runs} runs: median ${fmt(median(samples))} ms ` +
      `(min ${fmt(Math.min(...samples))}, max ${fmt(Math.max(...samples))}); samples ${samples.map(fmt).join(" ")}`,
  );
}

await main();
