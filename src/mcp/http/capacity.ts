/** The HTTP server's caps: requests in flight, per session and in all, answer bytes not yet taken, and when to say busy. */
import { errorResponse } from "./responses.ts";

/** Requests admitted and not yet answered, all clients together (health probes are never counted). */
export const MAX_REQUESTS_IN_FLIGHT = 128;
/** Requests admitted and not yet answered in one 2025-11-25 session (by its `Mcp-Session-Id`). */
export const MAX_SESSION_REQUESTS_IN_FLIGHT = 16;
/**
 * Bytes of answers their clients have not fully taken yet, all connections together. A client
 * that asks for a big file and does not read keeps its answer in memory until it reads, goes
 * away, or Bun's idle timeout cuts it.
 */
export const MAX_QUEUED_ANSWER_BYTES = 64 * 1024 * 1024;
/** What a refused client is told to wait before trying again. */
export const BUSY_RETRY_AFTER_S = 1;
/** Answer work one turn of the event loop may do before waiting requests yield to other events (health probes among them). */
export const TURN_BUDGET_MS = 10;
/** An answer is handed to the socket this much at a time, so that the server knows when the client has taken it all. */
const CHUNK_BYTES = 64 * 1024;

const busy = (why: string) =>
  errorResponse(503, -32000, `Server busy: ${why}; retry after ${BUSY_RETRY_AFTER_S} s`, {
    "Retry-After": String(BUSY_RETRY_AFTER_S),
  });
const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MiB`;
const queueFull = (queued: number) =>
  busy(
    `answers of ${mib(queued)} are waiting for their clients to read them (the limit is ${mib(MAX_QUEUED_ANSWER_BYTES)})`,
  );

type Slot = { ok: true; release(): void } | { ok: false; response: Response };

/**
 * Bounds what slow or greedy clients can make the HTTP server hold, and keeps a burst of big
 * answers from starving everything else of the event loop:
 *
 * - requests in flight, in all and per session: over either cap a request is refused at once,
 *   before any of its work, with 503 and `Retry-After`;
 * - answers not fully taken by their clients: while they add up to the cap, new requests are
 *   refused the same way;
 * - answer work per turn of the event loop: past `TURN_BUDGET_MS`, admitted requests wait for a
 *   later turn (in order), so `/healthz` and the rest are served between two big answers.
 *
 * Per connection there is nothing to count: Bun answers one request at a time on a connection (a
 * pipelined request is read only once the answer before it is fully written), so a connection
 * holds one answer at most.
 */
export class Capacity {
  private inFlight = 0;
  private readonly perSession = new Map<string, number>();
  private queued = 0;
  /** Admitted requests waiting for a turn with time to spare, in arrival order. */
  private readonly waiting: (() => void)[] = [];
  /** When answer work began in this turn of the event loop (undefined: none yet). */
  private turnStartedAt: number | undefined;
  private turnEndScheduled = false;

  /** Answers one request within the caps: `answer` runs only if the request is admitted. */
  async serve(request: Request, answer: () => Promise<Response>): Promise<Response> {
    const slot = this.admit(request.headers.get("mcp-session-id"));
    if (!slot.ok) return slot.response;
    try {
      if (!this.mayStart()) {
        await new Promise<void>((resolve) => this.waiting.push(resolve));
        // The queue may have filled while this request waited for its turn.
        if (this.queued >= MAX_QUEUED_ANSWER_BYTES) return queueFull(this.queued);
      }
      this.turnStartedAt ??= performance.now();
      this.scheduleTurnEnd();
      const response = await this.meter(await answer());
      // Time to spare in this turn: the next waiting request goes now.
      if (this.mayStart(true)) this.waiting.shift()?.();
      return response;
    } finally {
      slot.release();
    }
  }

  private admit(session: string | null): Slot {
    if (this.queued >= MAX_QUEUED_ANSWER_BYTES) return { ok: false, response: queueFull(this.queued) };
    if (this.inFlight >= MAX_REQUESTS_IN_FLIGHT)
      return { ok: false, response: busy(`${this.inFlight} requests are in flight (the limit)`) };
    const ofSession = session === null ? 0 : (this.perSession.get(session) ?? 0);
    if (session !== null && ofSession >= MAX_SESSION_REQUESTS_IN_FLIGHT)
      return { ok: false, response: busy(`${ofSession} requests of this session are in flight (the limit)`) };
    this.inFlight++;
    if (session !== null) this.perSession.set(session, ofSession + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        this.inFlight--;
        if (session === null) return;
        const left = (this.perSession.get(session) ?? 1) - 1;
        if (left === 0) this.perSession.delete(session);
        else this.perSession.set(session, left);
      },
    };
  }

  /**
   * Whether answer work may start now: nobody is waiting, and this turn of the event loop has
   * not yet spent `TURN_BUDGET_MS` on answers. Otherwise the request waits for a later turn, in
   * arrival order: one goes each turn whatever it waits for, and more while that turn has time
   * to spare. Bun runs a request's handler to its end before the next request's, so without this
   * a burst of big answers would keep the loop for all of them together, `/healthz` waiting.
   */
  private mayStart(evenWithWaiting = false): boolean {
    if (!evenWithWaiting && this.waiting.length > 0) return false;
    return this.turnStartedAt === undefined || performance.now() - this.turnStartedAt < TURN_BUDGET_MS;
  }

  private scheduleTurnEnd(): void {
    if (this.turnEndScheduled) return;
    this.turnEndScheduled = true;
    setImmediate(() => {
      this.turnEndScheduled = false;
      this.turnStartedAt = undefined;
      if (this.waiting.length === 0) return;
      // With the queue full every waiting request is refused now (that costs nothing); otherwise one goes.
      const going = this.queued >= MAX_QUEUED_ANSWER_BYTES ? this.waiting.splice(0) : this.waiting.splice(0, 1);
      for (const go of going) go();
      this.scheduleTurnEnd();
    });
  }

  /**
   * The answer, its body handed to the socket a chunk at a time as the client takes it, and
   * counted as queued until the last chunk is taken or the client is gone. Event streams
   * (notifications: small, and open as long as the client listens) pass as they are.
   */
  private async meter(response: Response): Promise<Response> {
    if (response.body === null || response.headers.get("content-type")?.startsWith("text/event-stream"))
      return response;
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length <= CHUNK_BYTES) return new Response(bytes, response);
    // The whole answer counts until its last byte is taken: it is held in one piece until then.
    this.queued += bytes.length;
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      this.queued -= bytes.length;
    };
    let cancelled = false;
    const body = new ReadableStream({
      type: "direct",
      pull: async (controller) => {
        try {
          for (let offset = 0; offset < bytes.length && !cancelled; offset += CHUNK_BYTES) {
            // A promise while the socket pushes back: it settles once the client has taken more.
            await controller.write(bytes.subarray(offset, offset + CHUNK_BYTES));
          }
          // Every byte is handed over: released before the stream ends, so a reader sees it released.
          release();
          if (!cancelled) await controller.close();
        } finally {
          release();
        }
      },
      cancel: () => {
        // The client went away, or Bun's idle timeout cut it: what it did not take is dropped.
        cancelled = true;
        release();
      },
    });
    // (Bun sends a streamed body chunked, whatever Content-Length says.)
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  }
}
