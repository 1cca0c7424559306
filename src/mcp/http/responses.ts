/** Responses the HTTP server builds itself, and the ones it rewraps on their way out. */

/** A JSON-RPC error as a complete HTTP response (id null: the request was not read). */
export function errorResponse(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

export const isEventStream = (response: Response): boolean =>
  response.body !== null && response.headers.get("content-type")?.startsWith("text/event-stream") === true;

export function withHeaders(response: Response, headers: Record<string, string>): Response {
  if (Object.keys(headers).length === 0) return response;
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}

const OPENING_COMMENT = new TextEncoder().encode(": stream open\n\n");

/**
 * The stream with an SSE comment first. Bun sends a streaming response's headers with its first
 * chunk, and a session's GET stream may have nothing to say for a long time: without this the
 * client waits that long for the stream to open.
 */
export function opened(response: Response): Response {
  const source = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(OPENING_COMMENT);
    },
    async pull(controller) {
      const next = await source.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return source.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
