/** An HTTP answer as it came off the socket. */
export interface RawHttpResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** Everything the server sent. */
  raw: string;
}

/**
 * Sends `request` as it is over a plain TCP connection and reads until the server closes it:
 * for requests no HTTP client would send (HTTP/1.0 without a Host, a Host that is not a host).
 * Send `HTTP/1.0`, or `Connection: close`, so that the server closes after its answer.
 */
export function rawHttp(base: string, request: string, timeoutMs = 30_000): Promise<RawHttpResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(
      () => reject(new Error(`no end of answer within ${timeoutMs} ms to ${JSON.stringify(request.slice(0, 60))}`)),
      timeoutMs,
    );
    const done = () => {
      clearTimeout(timer);
      const raw = Buffer.concat(chunks).toString("latin1");
      const end = raw.indexOf("\r\n\r\n");
      if (end < 0) return reject(new Error(`not an HTTP answer: ${JSON.stringify(raw.slice(0, 200))}`));
      const [statusLine = "", ...lines] = raw.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: raw.slice(end + 4), raw });
    };
    Bun.connect({
      hostname: hostname.replace(/^\[|\]$/g, ""),
      port: Number(port),
      socket: {
        open(socket) {
          socket.write(request);
        },
        data(_socket, data) {
          chunks.push(Buffer.from(data));
        },
        close: done,
        error(_socket, error) {
          clearTimeout(timer);
          reject(error);
        },
      },
    }).catch((error: unknown) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/**
 * One HTTP/1.1 request to 127.0.0.1 with the Host header as given: how a client on another
 * machine reaches a server (or a proxy) by its address or name, without sending anything anywhere
 * but this machine. Resolves with the status and the whole response once the server closes.
 */
export async function rawRequest(
  port: number,
  host: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; text: string }> {
  const head = [
    `${method} ${path} HTTP/1.1`,
    `Host: ${host}`,
    "Connection: close",
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  const answer = await rawHttp(`http://127.0.0.1:${port}`, `${head.join("\r\n")}\r\n\r\n${body}`);
  return { status: answer.status, text: Buffer.from(answer.raw, "latin1").toString("utf8") };
}
