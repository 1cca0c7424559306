import type { Subprocess } from "bun";
import { exitedWithin, killGroup } from "./processes.ts";

/**
 * A tiny MCP client speaking newline-delimited JSON-RPC over a child's stdio, with nothing of the
 * SDK in between: what goes over the pipe is exactly what the test sends and reads. Every wait is
 * bounded, and the child runs in its own process group so a launcher chain (npx → sh → node →
 * binary) ends as one.
 */

export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: number;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface JsonRpcSession {
  proc: Subprocess<"pipe", "pipe", "pipe">;
  /** Sends a request and waits (at most `timeoutMs`) for the response with its id. */
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<JsonRpcResponse>;
  notify(method: string, params?: Record<string, unknown>): void;
  /** Lines on stdout that were not JSON-RPC messages (must stay empty in stdio mode). */
  strayLines(): string[];
  stderr(): string;
  /** Closes stdin and waits for the exit code; kills the group if it does not come in time. */
  close(timeoutMs?: number): Promise<number>;
  /** Ends the process group now (cleanup after a failure). */
  kill(): void;
}

export interface SessionOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  /** Default bound for each request. */
  timeoutMs?: number;
}

export function openSession(command: string[], options: SessionOptions): JsonRpcSession {
  const proc = Bun.spawn(command, {
    cwd: options.cwd,
    env: options.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    detached: true,
  });
  const pending = new Map<number, { resolve: (response: JsonRpcResponse) => void; reject: (error: Error) => void }>();
  const stray: string[] = [];
  let stderr = "";
  let nextId = 1;
  let ended = false;

  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  const reading = (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of proc.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
        const line = buffer.slice(0, newline).replace(/\r$/, "");
        buffer = buffer.slice(newline + 1);
        if (line === "") continue;
        let message: Partial<JsonRpcResponse> & { method?: string };
        try {
          message = JSON.parse(line);
        } catch {
          stray.push(line);
          continue;
        }
        if (message.jsonrpc !== "2.0") stray.push(line);
        else if (typeof message.id === "number" && message.method === undefined)
          pending.get(message.id)?.resolve(message as JsonRpcResponse);
        // Server notifications (list_changed, logging) are JSON-RPC too and need no answer here.
      }
    }
    if (buffer.trim() !== "") stray.push(buffer);
    ended = true;
    // No answer can come any more: fail what is waiting now rather than at its timeout.
    await Promise.race([proc.exited, Bun.sleep(2_000)]);
    for (const waiting of pending.values())
      waiting.reject(
        new Error(`stdout closed before the response (exit ${proc.exitCode ?? proc.signalCode}); stderr:\n${stderr}`),
      );
  })();

  const write = (message: Record<string, unknown>) => {
    try {
      proc.stdin.write(`${JSON.stringify(message)}\n`);
      void proc.stdin.flush();
    } catch {
      // The child is gone; the reader fails whatever is waiting.
    }
  };

  return {
    proc,
    request(method, params = {}, timeoutMs = options.timeoutMs ?? 30_000) {
      const id = nextId++;
      return new Promise<JsonRpcResponse>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(
            new Error(
              `no response to ${method} within ${timeoutMs} ms${ended ? " (stdout closed)" : ""}; stderr:\n${stderr}`,
            ),
          );
        }, timeoutMs);
        const settle = () => {
          clearTimeout(timer);
          pending.delete(id);
        };
        if (ended) return reject(new Error(`stdout already closed; cannot send ${method}; stderr:\n${stderr}`));
        pending.set(id, {
          resolve: (response) => {
            settle();
            resolve(response);
          },
          reject: (error) => {
            settle();
            reject(error);
          },
        });
        write({ jsonrpc: "2.0", id, method, params });
      });
    },
    notify(method, params = {}) {
      write({ jsonrpc: "2.0", method, params });
    },
    strayLines: () => stray,
    stderr: () => stderr,
    async close(timeoutMs = 15_000) {
      try {
        proc.stdin.end();
      } catch {
        // Already closed by the child exiting.
      }
      const code = await exitedWithin(proc, timeoutMs, command.join(" "));
      await reading;
      return code;
    },
    kill: () => killGroup(proc),
  };
}

/** The MCP exchange every install path must carry: what an IDE does when it connects. */
export interface McpCheck {
  serverInfo: { name: string; version: string };
  tools: string[];
  prompts: string[];
  toolText: string;
  exitCode: number;
  strayLines: string[];
}

/**
 * initialize → notifications/initialized → tools/list → tools/call (a built-in tool) →
 * prompts/list, then stdin closes and the server must exit. `firstTimeoutMs` bounds initialize,
 * which includes whatever installing the launcher does first (npx, bunx).
 */
export async function mcpExchange(
  command: string[],
  options: SessionOptions & { firstTimeoutMs: number },
): Promise<McpCheck> {
  const session = openSession(command, options);
  try {
    const init = await session.request(
      "initialize",
      {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "skill-central-release-test", version: "0" },
      },
      options.firstTimeoutMs,
    );
    if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init.error)}\n${session.stderr()}`);
    session.notify("notifications/initialized");
    const tools = await session.request("tools/list");
    const call = await session.request("tools/call", {
      name: "commit-conventions",
      arguments: { type: "feat", scope: "cli", summary: "add x" },
    });
    const prompts = await session.request("prompts/list");
    const exitCode = await session.close();
    const names = (response: JsonRpcResponse, key: string) =>
      ((response.result?.[key] ?? []) as { name: string }[]).map((entry) => entry.name);
    return {
      serverInfo: init.result.serverInfo as McpCheck["serverInfo"],
      tools: names(tools, "tools"),
      prompts: names(prompts, "prompts"),
      toolText: ((call.result?.content ?? []) as { text?: string }[]).map((c) => c.text ?? "").join(""),
      exitCode,
      strayLines: session.strayLines(),
    };
  } catch (error) {
    session.kill();
    throw error;
  }
}
