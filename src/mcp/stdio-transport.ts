import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** Frames above this are refused with an error instead of closing the stream (the SDK's reader dies at 10 MiB). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** Enough of an oversized frame to find its `id`. */
const OVERSIZED_HEAD_BYTES = 64 * 1024;

/** The real stdout; everything else that writes to stdout is routed to stderr. */
export interface FrameOutput {
  /** False when the stream's buffer is full: wait for `drain` before writing more. */
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  once(event: "drain", listener: () => void): unknown;
}

export interface StdioStreams {
  input: NodeJS.ReadableStream;
  output: FrameOutput;
  warn: (message: string) => void;
}

/**
 * Finds the top-level `"id"` of a JSON-RPC frame from its first bytes, without parsing the rest:
 * enough to answer an oversized request with an error its sender can match.
 */
export function topLevelId(head: string): string | number | undefined {
  let depth = 0;
  for (let i = 0; i < head.length; i++) {
    const ch = head[i];
    if (ch === '"') {
      const end = skipString(head, i);
      if (end < 0) return undefined;
      if (depth === 1 && head.slice(i, end + 1) === '"id"') {
        const value = /^\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/.exec(head.slice(end + 1));
        if (value) return value[1]!.startsWith('"') ? (JSON.parse(value[1]!) as string) : Number(value[1]);
      }
      i = end;
    } else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") depth--;
  }
  return undefined;
}

function skipString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/**
 * Newline-delimited JSON-RPC over stdio, written for a server that must never lose its stream:
 * garbage lines are skipped with a warning, oversized frames are refused with a JSON-RPC error,
 * `send` resolves only once the bytes are handed to the OS, and stdin EOF is reported (the SDK's
 * transport misses it, typescript-sdk#2002) so the process can drain and exit.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** Called once stdin has ended and every request read from it has been answered. */
  onDrained?: () => void;

  private chunks: Buffer[] = [];
  private buffered = 0;
  /** While discarding an oversized frame: its head, for the id. */
  private oversizedHead: string | undefined;
  /** Set while the output pushes back; frames written meanwhile resolve with it. */
  private drained: Promise<void> | undefined;
  private readonly unanswered = new Set<string | number>();
  private ended = false;
  private closed = false;

  constructor(private readonly streams: StdioStreams) {}

  async start(): Promise<void> {
    const input = this.streams.input;
    input.on("data", (chunk: Buffer | string) => this.receive(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
    input.on("end", () => this.endOfInput());
    input.on("close", () => this.endOfInput());
    input.on("error", (error: Error) => this.onerror?.(error));
  }

  private receive(chunk: Buffer): void {
    let offset = 0;
    while (offset < chunk.length) {
      const newline = chunk.indexOf(10, offset);
      const end = newline < 0 ? chunk.length : newline;
      this.append(chunk.subarray(offset, end));
      if (newline < 0) break;
      this.finishLine();
      offset = newline + 1;
    }
  }

  private append(part: Buffer): void {
    if (part.length === 0) return;
    if (this.oversizedHead !== undefined) return;
    if (this.buffered + part.length > MAX_FRAME_BYTES) {
      this.oversizedHead = Buffer.concat([...this.chunks, part]).subarray(0, OVERSIZED_HEAD_BYTES).toString("utf8");
      this.chunks = [];
      this.buffered = 0;
      return;
    }
    this.chunks.push(part);
    this.buffered += part.length;
  }

  private finishLine(): void {
    if (this.oversizedHead !== undefined) {
      const head = this.oversizedHead;
      this.oversizedHead = undefined;
      this.refuseOversized(head);
      return;
    }
    const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.buffered = 0;
    if (line.trim() !== "") this.deliver(line);
  }

  private refuseOversized(head: string): void {
    const id = topLevelId(head);
    const limit = `${MAX_FRAME_BYTES / (1024 * 1024)} MiB`;
    if (id === undefined) {
      this.streams.warn(`ignored an incoming frame over the ${limit} limit (it had no id to answer)`);
      return;
    }
    void this.send({ jsonrpc: "2.0", id, error: { code: -32600, message: `Request too large: frames are limited to ${limit}` } });
  }

  private deliver(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.streams.warn(`ignored a line on stdin that is not JSON: ${line.slice(0, 80)}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(json);
    if (!parsed.success) {
      const id = typeof json === "object" && json !== null ? (json as { id?: unknown }).id : undefined;
      if (typeof id === "string" || typeof id === "number") {
        void this.send({ jsonrpc: "2.0", id, error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message" } });
      } else {
        this.streams.warn(`ignored a line on stdin that is not a JSON-RPC message: ${line.slice(0, 80)}`);
      }
      return;
    }
    const message = parsed.data;
    if ("method" in message && "id" in message) this.unanswered.add(message.id);
    this.onmessage?.(message);
  }

  /**
   * Writes one frame. Resolves at once while the stream accepts data, after `drain` when it
   * pushes back. A write callback per frame would be the simplest proof of delivery, but in Bun
   * it costs more than the rest of a `tools/call` together; `flush` gives that proof once, when
   * it matters (before exiting).
   */
  send(message: JSONRPCMessage): Promise<void> {
    if ("id" in message && !("method" in message) && message.id !== undefined) this.unanswered.delete(message.id);
    const accepted = this.streams.output.write(`${JSON.stringify(message)}\n`);
    if (!accepted && !this.drained) {
      this.drained = new Promise<void>((resolve) => this.streams.output.once("drain", resolve)).finally(() => {
        this.drained = undefined;
      });
    }
    const sent = this.drained ?? Promise.resolve();
    if (this.ended) void sent.then(() => this.checkDrained());
    return sent;
  }

  private endOfInput(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.chunks.length > 0) this.finishLine();
    this.checkDrained();
  }

  private checkDrained(): void {
    if (!this.ended || this.unanswered.size > 0) return;
    // Let any response scheduled in this tick reach `send` before declaring the stream drained.
    setImmediate(() => {
      if (this.unanswered.size === 0) void this.flush().then(() => this.onDrained?.());
    });
  }

  /**
   * Resolves once every frame written so far has been handed to the OS: after the pending
   * `drain` (a frame larger than the pipe's buffer is still being written until then), then
   * after an empty write's callback, which runs behind every earlier write.
   */
  async flush(): Promise<void> {
    while (this.drained) await this.drained;
    await new Promise<void>((resolve) => this.streams.output.write("", () => resolve()));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.flush();
    this.onclose?.();
  }
}
