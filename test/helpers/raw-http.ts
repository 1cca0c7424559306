/**
 * One HTTP/1.1 request over a plain TCP connection to 127.0.0.1 with the Host header as given:
 * how a client on another machine reaches a server (or a proxy) by its address or name, without
 * sending anything anywhere but this machine. Resolves with the status and the whole response
 * once the server closes the connection.
 */
export async function rawRequest(port: number, host: string, method: string, path: string, headers: Record<string, string>, body = ""): Promise<{ status: number; text: string }> {
  const head = [`${method} ${path} HTTP/1.1`, `Host: ${host}`, "Connection: close", `Content-Length: ${Buffer.byteLength(body)}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  const chunks: Uint8Array[] = [];
  const closed = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data: (_s, chunk) => void chunks.push(new Uint8Array(chunk)),
      close: () => closed.resolve(),
      error: (_s, error) => closed.reject(error),
    },
  });
  socket.write(`${head.join("\r\n")}\r\n\r\n${body}`);
  await closed.promise;
  const text = Buffer.concat(chunks).toString("utf8");
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]), text };
}
