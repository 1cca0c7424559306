import type { Subprocess } from "bun";
import type { ServerTarget } from "./server.ts";

/**
 * A client that speaks newline-delimited JSON-RPC to a spawned server with nothing in between:
 * for tests whose point is the exact wire (errors, limits, notifications) or hostile input a
 * real client library would refuse to send. Every wait is bounded.
 */
export interface RawMessage {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
}

export class RawClient {
  private buffer = "";
  private nextId = 1000;
  private readonly messages: RawMessage[] = [];
  private readonly waiters: {
    test: (m: RawMessage) => boolean;
    resolve: (m: RawMessage) => void;
    reject: (error: Error) => void;
    drop: () => void;
    what: string;
  }[] = [];
  private stderrText = "";
  /** Every stdout line, in order. */
  readonly lines: string[] = [];
  /** Every stdout line that was not JSON: must stay empty (stdout is the protocol channel). */
  readonly garbage: string[] = [];
  /** Characters of the longest stdout line seen. */
  longestLine = 0;

  private closing = false;

  private constructor(readonly proc: Subprocess<"pipe", "pipe", "pipe">) {
    const output = Promise.all([this.pump(), this.pumpStderr()]);
    // A server that exits will answer nothing more: fail every wait at once, with its stderr
    // (e.g. "Module not found"), instead of when each one's timer runs out, maybe in a later test.
    void Promise.all([proc.exited, output.catch(() => undefined)]).then(([code]) => {
      this.ended = `the server exited (code ${code})`;
      if (this.closing) return;
      for (const waiter of this.waiters.splice(0)) waiter.reject(this.endedError(waiter.what));
    });
  }

  /** Set once the server has exited and its output is all read. */
  private ended: string | undefined;

  private endedError(what: string): Error {
    return new Error(`${this.ended} before ${what}; stderr:\n${this.stderrText.slice(-2000)}`);
  }

  static spawn(cmd: string[], options: { cwd: string; env: Record<string, string> }): RawClient {
    return new RawClient(
      Bun.spawn(cmd, { cwd: options.cwd, env: options.env, stdin: "pipe", stdout: "pipe", stderr: "pipe" }),
    );
  }

  /** Spawns a target and completes the handshake. */
  static async start(target: ServerTarget, cwd: string, env: Record<string, string>): Promise<RawClient> {
    const client = RawClient.spawn([target.command, ...target.args], { cwd, env });
    await client.initialize();
    return client;
  }

  private async pump(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stdout) {
      this.buffer += decoder.decode(chunk, { stream: true });
      for (let newline = this.buffer.indexOf("\n"); newline >= 0; newline = this.buffer.indexOf("\n")) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (line === "") continue;
        this.lines.push(line);
        this.longestLine = Math.max(this.longestLine, line.length);
        let message: RawMessage;
        try {
          message = JSON.parse(line) as RawMessage;
        } catch {
          this.garbage.push(line.slice(0, 200));
          continue;
        }
        this.messages.push(message);
        for (const waiter of [...this.waiters]) {
          if (!waiter.test(message)) continue;
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  }

  private async pumpStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stderr) {
      this.stderrText += decoder.decode(chunk, { stream: true });
      for (const waiter of this.stderrWaiters.splice(0)) waiter();
    }
    for (const waiter of this.stderrWaiters.splice(0)) waiter();
  }

  /** Called on each chunk of stderr, and once at its end. */
  private readonly stderrWaiters: (() => void)[] = [];

  /** Resolves once stderr holds `text` (a server's log line is the event waited on); throws at the end of stderr or after `timeoutMs`. */
  async stderrIncludes(text: string, timeoutMs = 15_000): Promise<void> {
    const timedOut = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), timeoutMs).unref?.());
    while (!this.stderrText.includes(text)) {
      if (this.ended !== undefined) throw this.endedError(`"${text}" on stderr`);
      const more = new Promise<"more">((resolve) => this.stderrWaiters.push(() => resolve("more")));
      if ((await Promise.race([more, timedOut])) === "timeout")
        throw new Error(`no "${text}" on stderr within ${timeoutMs} ms; stderr:\n${this.stderrText.slice(-2000)}`);
    }
  }

  stderr(): string {
    return this.stderrText;
  }

  /** Every message received so far. */
  received(): readonly RawMessage[] {
    return this.messages;
  }

  send(text: string): void {
    this.proc.stdin.write(text.endsWith("\n") ? text : `${text}\n`);
    void this.proc.stdin.flush();
  }

  /** The first message (already received or still to come) that passes `test`. */
  waitFor(test: (m: RawMessage) => boolean, timeoutMs = 15_000, what = "a message"): Promise<RawMessage> {
    const seen = this.messages.find(test);
    if (seen) return Promise.resolve(seen);
    if (this.ended !== undefined) return Promise.reject(this.endedError(what));
    return new Promise((resolve, reject) => {
      const waiter = {
        test,
        what,
        resolve: (m: RawMessage) => {
          clearTimeout(timer);
          resolve(m);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
        drop: () => clearTimeout(timer),
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        reject(
          new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${this.stderrText.slice(-2000)}`),
        );
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  request(method: string, params: Record<string, unknown> = {}, timeoutMs = 15_000): Promise<RawMessage> {
    const id = this.nextId++;
    this.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    return this.waitFor((m) => m.id === id, timeoutMs, `the answer to ${method}`);
  }

  /** The result of `method`, or throws with the JSON-RPC error. */
  async call<T = Record<string, unknown>>(
    method: string,
    params: Record<string, unknown> = {},
    timeoutMs = 15_000,
  ): Promise<T> {
    const answer = await this.request(method, params, timeoutMs);
    if (answer.error) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
    return answer.result as T;
  }

  /** Resolves once `method` has been notified `count` times in all. */
  async notified(method: string, count = 1, timeoutMs = 15_000): Promise<void> {
    const seen = () => this.messages.filter((m) => m.method === method && m.id === undefined).length;
    const deadline = Date.now() + timeoutMs;
    while (seen() < count) {
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        throw new Error(`no ${method} #${count} within ${timeoutMs} ms; stderr:\n${this.stderrText.slice(-2000)}`);
      await this.waitFor((m) => m.method === method, remaining, method).catch(() => undefined);
      if (seen() < count) await Bun.sleep(10);
    }
  }

  notify(method: string, params: Record<string, unknown> = {}): void {
    this.send(JSON.stringify({ jsonrpc: "2.0", method, params }));
  }

  /** initialize + notifications/initialized, as the 2025-11-25 handshake goes. */
  async initialize(clientName = "raw-test"): Promise<RawMessage> {
    const answer = await this.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: clientName, version: "0" },
    });
    this.notify("notifications/initialized");
    return answer;
  }

  /** Closes stdin and waits for the process to end (killed after `timeoutMs`). */
  async close(timeoutMs = 5000): Promise<number | null> {
    // Waits still pending belong to a test that has ended (timed out, or gave up): drop them, so
    // neither their timers nor the exit fail anything after it.
    this.closing = true;
    for (const waiter of this.waiters.splice(0)) waiter.drop();
    try {
      this.proc.stdin.end();
    } catch {
      // Already closed.
    }
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), timeoutMs);
    const code = await this.proc.exited;
    clearTimeout(timer);
    return code;
  }
}
