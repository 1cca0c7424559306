import { initializeLine, requestLine, type ServerTarget } from "./server.ts";

interface Message {
  id?: number | string;
  method?: string;
  result?: unknown;
  error?: { code: number; message: string };
}

/**
 * A long-lived stdio session spoken in raw JSON-RPC lines (no SDK client, so these tests do not
 * depend on the SDK's version): requests by id, notifications recorded as they arrive, and every
 * stdout line kept, to check that nothing but JSON-RPC ever reaches it.
 */
export class RawClient {
  readonly lines: string[] = [];
  readonly notifications: string[] = [];
  private stderrText = "";
  private nextId = 1;
  private readonly waiting = new Map<number, (message: Message) => void>();
  private readonly watchers: (() => void)[] = [];
  private readonly done: Promise<void>;

  private constructor(private readonly proc: Bun.Subprocess<"pipe", "pipe", "pipe">) {
    this.done = Promise.all([this.readStdout(), this.readStderr()]).then(() => {});
  }

  static async start(target: ServerTarget, cwd: string, env: Record<string, string>): Promise<RawClient> {
    const proc = Bun.spawn([target.command, ...target.args], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const client = new RawClient(proc);
    const init = client.send(initializeLine(0), 0);
    await init;
    client.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    return client;
  }

  private async readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of this.proc.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line === "") continue;
        this.lines.push(line);
        let message: Message;
        try {
          message = JSON.parse(line) as Message;
        } catch {
          continue;
        }
        if (message.method && message.id === undefined) {
          this.notifications.push(message.method);
          this.watchers.splice(0).forEach((w) => w());
        } else if (typeof message.id === "number") {
          this.waiting.get(message.id)?.(message);
          this.waiting.delete(message.id);
        }
      }
    }
  }

  private async readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.proc.stderr) this.stderrText += decoder.decode(chunk, { stream: true });
  }

  private write(line: string): void {
    this.proc.stdin.write(`${line}\n`);
    void this.proc.stdin.flush();
  }

  private send(line: string, id: number): Promise<Message> {
    const response = new Promise<Message>((resolve) => this.waiting.set(id, resolve));
    this.write(line);
    return response;
  }

  /** The result of `method`, or throws with the JSON-RPC error. */
  async request<T = Record<string, unknown>>(method: string, params: unknown = {}): Promise<T> {
    const id = this.nextId++;
    const message = await this.send(requestLine(id, method, params), id);
    if (message.error) throw new Error(`${method}: ${message.error.code} ${message.error.message}`);
    return message.result as T;
  }

  /** Resolves once `method` has been notified `count` times in all. */
  async notified(method: string, count = 1, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.notifications.filter((n) => n === method).length < count) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`no ${method} #${count} within ${timeoutMs} ms; stderr:\n${this.stderrText}`);
      await Promise.race([new Promise<void>((resolve) => this.watchers.push(resolve)), Bun.sleep(remaining)]);
    }
  }

  get stderr(): string {
    return this.stderrText;
  }

  async close(): Promise<number> {
    this.proc.stdin.end();
    const code = await this.proc.exited;
    await this.done;
    return code;
  }
}
