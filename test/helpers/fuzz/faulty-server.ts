/**
 * A server with one planted fault, for proving that the fuzzer notices it: runs the real server
 * and passes its stdin and stdout through, except that it breaks the output once, as `FAULT`
 * says, after the first `AFTER` lines.
 *
 *   FAULT=garbage AFTER=20 bun test/helpers/fuzz/faulty-server.ts <server command…>
 *
 * garbage   writes a line that is not JSON
 * drop      swallows one reply
 * wrong-id  answers one request with an id nobody sent
 * internal  turns one reply into an internal error (-32603)
 * no-null   swallows every id-null refusal
 * crash     exits 3
 */
const fault = process.env.FAULT ?? "";
const after = Number(process.env.AFTER ?? "20");
const command = process.argv.slice(2);

const child = Bun.spawn(command, { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
void (async () => {
  for await (const chunk of Bun.stdin.stream()) {
    child.stdin.write(chunk);
    await child.stdin.flush();
  }
  child.stdin.end();
})();

let seen = 0;
let done = false;
const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function pass(line: string): void {
  seen++;
  const reply = (() => {
    try {
      return JSON.parse(line) as { id?: unknown; error?: unknown; result?: unknown };
    } catch {
      return undefined;
    }
  })();
  if (fault === "no-null" && reply?.id === null) return;
  const isReply = reply !== undefined && reply.id !== undefined && reply.id !== null;
  if (done || seen <= after || (fault !== "garbage" && fault !== "crash" && !isReply)) {
    out(line);
    return;
  }
  done = true;
  if (fault === "crash") process.exit(3);
  switch (fault) {
    case "garbage":
      out(line);
      out("this is not JSON-RPC");
      return;
    case "drop":
      return;
    case "wrong-id":
      out(JSON.stringify({ ...reply, id: "nobody-sent-this" }));
      return;
    case "internal":
      out(JSON.stringify({ jsonrpc: "2.0", id: reply!.id, error: { code: -32603, message: "planted" } }));
      return;
    default:
      out(line);
  }
}

let buffer = "";
const decoder = new TextDecoder();
for await (const chunk of child.stdout) {
  buffer += decoder.decode(chunk, { stream: true });
  for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
    pass(buffer.slice(0, newline));
    buffer = buffer.slice(newline + 1);
  }
}
process.exit(await child.exited);

export {};
