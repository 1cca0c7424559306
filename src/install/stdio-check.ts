/**
 * Starts a stdio entry as an IDE would and checks it with the SDK's client, over Bun's own process rather than the
 * SDK's `StdioClientTransport`: that one skips stdout lines that are not JSON (which break some IDEs, so here they
 * fail the check), keeps no exit code and spawns through Node's child_process.
 */
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/client";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { converse, type CheckResult } from "./check.ts";

export interface StdioTarget {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** Keeps the last part of a growing text: the end of stderr says why a process stopped. */
const STDERR_KEEP = 4000;

function tail(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return "";
  const lines = (trimmed.length > STDERR_KEEP ? `…${trimmed.slice(-STDERR_KEEP)}` : trimmed).split("\n").slice(-12);
  return `\n  stderr: ${lines.join("\n          ")}`;
}

type Child = Bun.Subprocess<"pipe", "pipe", "pipe">;

/** Newline-delimited JSON-RPC on a child's stdin and stdout; the first line that is not JSON-RPC ends it. */
class ChildTransport implements Transport {
  onclose?: () => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The line that was not JSON-RPC, in words. */
  badLine?: string;
  stdoutEnded = false;

  constructor(private readonly child: Child) {}

  async start(): Promise<void> {
    void this.read();
  }

  private async read(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of this.child.stdout) {
      const lines = (buffer + decoder.decode(chunk, { stream: true })).split("\n");
      buffer = lines.pop()!;
      for (const line of lines.map((l) => l.replace(/\r$/, "")).filter((l) => l.trim() !== "")) {
        try {
          this.onmessage?.(deserializeMessage(line));
        } catch {
          const shown = line.length > 160 ? `${line.slice(0, 160)}…` : line;
          this.badLine = `wrote a line that is not JSON-RPC to stdout (clients drop such servers): ${shown}`;
          this.child.kill("SIGKILL");
          break;
        }
      }
      if (this.badLine) break;
    }
    this.stdoutEnded = true;
    this.onclose?.();
  }

  /** A write to a server that has gone fails quietly: the end of its stdout reports it, with the exit code. */
  async send(message: JSONRPCMessage): Promise<void> {
    try {
      this.child.stdin.write(serializeMessage(message));
      await this.child.stdin.flush();
    } catch {
      // reported by read()
    }
  }

  /** Closes stdin as a client does on shutdown; a server that lingers is stopped. */
  async close(): Promise<void> {
    try {
      await this.child.stdin.end();
    } catch {
      // already closed
    }
    const exited = await Promise.race([this.child.exited.then(() => true), Bun.sleep(2000).then(() => false)]);
    if (!exited) this.child.kill("SIGKILL");
  }
}

export async function checkStdioServer(
  target: StdioTarget,
  options: { timeoutMs: number; expectName: string },
): Promise<CheckResult> {
  let child: Child;
  const env = Object.fromEntries(Object.entries(target.env).filter((e): e is [string, string] => e[1] !== undefined));
  try {
    const pipes = { stdin: "pipe", stdout: "pipe", stderr: "pipe" } as const;
    child = Bun.spawn([target.command, ...target.args], { cwd: target.cwd, env, ...pipes });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "not found" : code === "EACCES" ? "not executable" : (error as Error).message;
    return { ok: false, reason: `cannot start ${target.command} (in ${target.cwd}): ${why}` };
  }
  let stderr = "";
  const stderrDone = (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      stderr = (stderr + decoder.decode(chunk, { stream: true })).slice(-STDERR_KEEP * 2);
    }
  })().catch(() => {});

  const transport = new ChildTransport(child);
  const result = await converse(
    {
      transport,
      abandon: () => child.kill("SIGKILL"),
      explain: async (error, stage) => {
        if (transport.badLine) return transport.badLine;
        if (transport.stdoutEnded) return `exited with code ${await child.exited} before answering ${stage}`;
        return `${stage} failed: ${(error as Error).message}`;
      },
    },
    options,
  );
  await Promise.race([stderrDone, Bun.sleep(500)]);
  return result.ok ? result : { ok: false, reason: `${result.reason}${tail(stderr)}` };
}
