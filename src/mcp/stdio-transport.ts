/** Our stdio transport: newline-delimited frames with a bound, a few requests handled at once, and an end at stdin's EOF. */
import { ProtocolErrorCode, type JSONRPCMessage, type RequestId, type Transport } from "@modelcontextprotocol/server";
import { FrameIdScanner } from "./frame-id.ts";
import { logValue } from "./log-value.ts";
import { classifyIncoming } from "./incoming.ts";

/** Frames above this are refused with an error instead of closing the stream (the SDK's reader dies at 10 MiB). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** How much of an ignored stdin line a warning quotes (escaped, so it cannot hold a control character). */
const MAX_QUOTED_LINE_CHARS = 80;
/**
 * Requests handed to the server and not yet answered. Further lines wait, unread by the server,
 * until one is answered: a client that sends hundreds of requests for big answers has this many
 * answers made at once, not hundreds.
 */
export const MAX_STDIO_REQUESTS_IN_FLIGHT = 8;
/**
 * Bytes written to stdout since it last pushed back and not yet drained. Past this the server
 * takes no more lines (and stops reading stdin) until stdout drains; below it, the next answers
 * are made while the client reads the last ones.
 */
export const MAX_STDIO_QUEUED_OUTPUT_BYTES = 16 * 1024 * 1024;

/** The real stdout; everything else that writes to stdout is routed to stderr. */
export interface FrameOutput {
  /** False when the stream's buffer is full: wait for `drain` before writing more. */
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
  once(event: "drain", listener: () => void): unknown;
}

export interface StdioStreams {
  /** Paused while lines wait (see `held`): the client's writes then block, as a pipe's do. */
  input: NodeJS.ReadableStream;
  output: FrameOutput;
  warn: (message: string) => void;
}

/**
 * Newline-delimited JSON-RPC over stdio, written for a server that must never lose its stream:
 * garbage lines are skipped with a warning, oversized frames are refused with a JSON-RPC error,
 * `send` resolves only once the bytes are handed to the OS, and stdin EOF is reported (the SDK's
 * transport misses it, typescript-sdk#2002) so the process can drain and exit.
 *
 * Backpressure: while `MAX_STDIO_QUEUED_OUTPUT_BYTES` wait in stdout (the client does not read
 * its answers) or `MAX_STDIO_REQUESTS_IN_FLIGHT` requests are unanswered, lines read are held, in
 * order, and stdin is paused; they go on when stdout drains or an answer is sent. A client that
 * writes requests and never reads makes the server hold a few answers, not one per request.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  /** Called once stdin has ended (or `stopReading`) and every request read from it has been answered. */
  onDrained?: () => void;

  private chunks: Buffer[] = [];
  private buffered = 0;
  /** While discarding an oversized frame: scans it for the id to answer. */
  private oversized: FrameIdScanner | undefined;
  /** Set while the output pushes back; frames written meanwhile resolve with it. */
  private drained: Promise<void> | undefined;
  /** Bytes written while `drained` is pending: what stdout holds, at most (Bun's stdout reports no `writableLength`). */
  private queuedOutput = 0;
  private readonly unanswered = new Set<RequestId>();
  /** Lines read while the server may not take more; handed on in order once it may. */
  private readonly held: string[] = [];
  private inputPaused = false;
  private pumpScheduled = false;
  private ended = false;
  private closed = false;
  private readonly firstLine = Promise.withResolvers<void>();

  constructor(private readonly streams: StdioStreams) {}

  /** Settles when the first non-empty line has been read and handled, or stdin has ended. */
  get firstLineRead(): Promise<void> {
    return this.firstLine.promise;
  }

  async start(): Promise<void> {
    const input = this.streams.input;
    input.on("data", (chunk: Buffer | string) => {
      if (!this.ended) this.receive(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    });
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
    if (this.oversized) {
      this.oversized.feed(part);
      return;
    }
    if (this.buffered + part.length > MAX_FRAME_BYTES) {
      // From here on the frame is scanned as it streams past, never held: its id may be its last field.
      this.oversized = new FrameIdScanner();
      for (const chunk of this.chunks) this.oversized.feed(chunk);
      this.oversized.feed(part);
      this.chunks = [];
      this.buffered = 0;
      return;
    }
    this.chunks.push(part);
    this.buffered += part.length;
  }

  private finishLine(): void {
    if (this.oversized) {
      const scanner = this.oversized;
      this.oversized = undefined;
      this.refuseOversized(scanner);
      return;
    }
    const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.buffered = 0;
    if (line.trim() !== "") {
      this.hold(line);
      this.firstLine.resolve();
    }
  }

  private refuseOversized(scanner: FrameIdScanner): void {
    const found = scanner.result();
    const limit = `${MAX_FRAME_BYTES / (1024 * 1024)} MiB`;
    if (found.kind === "none") {
      this.streams.warn(`ignored an incoming frame over the ${limit} limit (it had no id to answer)`);
      return;
    }
    this.refuse(found.kind === "id" ? found.id : null, `Request too large: frames are limited to ${limit}`);
  }

  private refuse(id: RequestId | null, message: string): void {
    // JSON-RPC's id null (the id could not be read) is outside the SDK's message type.
    void this.send({
      jsonrpc: "2.0",
      id,
      error: { code: ProtocolErrorCode.InvalidRequest, message },
    } as JSONRPCMessage);
  }

  /** The server may take another line: stdout is not pushing back and few enough requests are unanswered. */
  private get open(): boolean {
    return this.queuedOutput < MAX_STDIO_QUEUED_OUTPUT_BYTES && this.unanswered.size < MAX_STDIO_REQUESTS_IN_FLIGHT;
  }

  private hold(line: string): void {
    if (this.held.length === 0 && this.open) this.deliver(line);
    else this.held.push(line);
    this.steerInput();
  }

  /** Hands on held lines while the server may take them (later, not inside `send`: the SDK is mid-reply there). */
  private schedulePump(): void {
    if (this.pumpScheduled || this.held.length === 0) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      while (this.held.length > 0 && this.open) this.deliver(this.held.shift()!);
      this.steerInput();
      if (this.ended) this.checkDrained();
    });
  }

  /** Reads stdin only while nothing is held and stdout takes what is written. */
  private steerInput(): void {
    // Once stdin has ended (or a signal stopped reading) there is nothing more to steer.
    if (this.ended) return;
    const pause = this.held.length > 0 || this.queuedOutput >= MAX_STDIO_QUEUED_OUTPUT_BYTES;
    if (pause === this.inputPaused) return;
    this.inputPaused = pause;
    if (pause) this.streams.input.pause();
    else this.streams.input.resume();
  }

  private deliver(line: string): void {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      this.streams.warn(`ignored a line on stdin that is not JSON: ${logValue(line, MAX_QUOTED_LINE_CHARS)}`);
      return;
    }
    const incoming = classifyIncoming(json);
    if (incoming.kind === "skip") {
      this.streams.warn(
        `ignored a line on stdin that is not a JSON-RPC message: ${logValue(line, MAX_QUOTED_LINE_CHARS)}`,
      );
      return;
    }
    if (incoming.kind === "refuse") {
      this.refuse(incoming.id, incoming.message);
      return;
    }
    const message = incoming.message;
    // A subscriptions/listen request stays open for the whole connection; it is answered when the connection closes.
    if ("method" in message && "id" in message && message.method !== "subscriptions/listen")
      this.unanswered.add(message.id);
    this.onmessage?.(message);
  }

  /**
   * Writes one frame. Resolves at once while the stream accepts data, after `drain` when it
   * pushes back. A write callback per frame would be the simplest proof of delivery, but in Bun
   * it costs more than the rest of a `tools/call` together; `flush` gives that proof once, when
   * it matters (before exiting).
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (
      "id" in message &&
      !("method" in message) &&
      message.id !== undefined &&
      message.id !== null &&
      this.unanswered.delete(message.id)
    )
      this.schedulePump();
    const frame = `${JSON.stringify(message)}\n`;
    const accepted = this.streams.output.write(frame);
    if (!accepted && !this.drained) {
      this.drained = new Promise<void>((resolve) => this.streams.output.once("drain", resolve)).finally(() => {
        this.drained = undefined;
        this.queuedOutput = 0;
        this.schedulePump();
        this.steerInput();
      });
    }
    if (this.drained) {
      // Characters, not bytes: close enough for a threshold, and free.
      this.queuedOutput += frame.length;
      this.steerInput();
    }
    const sent = this.drained ?? Promise.resolve();
    if (this.ended) void sent.then(() => this.checkDrained());
    return sent;
  }

  /**
   * Stops reading (a signal asked the process to end): what was read is still answered, a
   * partial line is dropped, and `onDrained` follows as after stdin EOF.
   */
  stopReading(): void {
    if (this.ended) return;
    this.ended = true;
    this.streams.input.pause();
    this.inputPaused = true;
    this.chunks = [];
    this.buffered = 0;
    this.oversized = undefined;
    this.checkDrained();
  }

  private endOfInput(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.chunks.length > 0) this.finishLine();
    this.firstLine.resolve();
    this.checkDrained();
  }

  private checkDrained(): void {
    if (!this.ended || this.unanswered.size > 0 || this.held.length > 0) return;
    // Let any response scheduled in this tick reach `send` before declaring the stream drained.
    setImmediate(() => {
      if (this.unanswered.size === 0 && this.held.length === 0) void this.flush().then(() => this.onDrained?.());
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
