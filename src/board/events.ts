/**
 * The page's live feed (server-sent events): each open page holds one stream, and every load
 * is announced to all of them as `event: load` with the board's version.
 */

const encoder = new TextEncoder();

export class EventFeed {
  private readonly streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  private latest = "";

  /** A new stream, which starts with the latest announcement so a page that connects late catches up. */
  open(): Response {
    let own: ReadableStreamDefaultController<Uint8Array> | undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        own = controller;
        this.streams.add(controller);
        controller.enqueue(encoder.encode(`retry: 500\n\n${this.latest}`));
      },
      cancel: () => {
        if (own) this.streams.delete(own);
      },
    });
    return new Response(body, {
      headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", "X-Accel-Buffering": "no" },
    });
  }

  announce(event: string, data: unknown): void {
    this.latest = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    const bytes = encoder.encode(this.latest);
    for (const stream of this.streams) {
      try {
        stream.enqueue(bytes);
      } catch {
        this.streams.delete(stream);
      }
    }
  }

  close(): void {
    for (const stream of this.streams) {
      try {
        stream.close();
      } catch {
        // Already closed by the page.
      }
    }
    this.streams.clear();
  }
}
