import type { Socket } from "bun";
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { INITIALIZE } from "./http-server.ts";

/**
 * Clients that ask for a big answer and never read it, for the memory tests of the HTTP and stdio
 * transports and for bench/slow-clients.ts: an Agent Skills folder holding one big file, HTTP
 * connections that send one `resources/read` of it and stop reading, a stdout nobody reads, and
 * the server's RSS and `/healthz` watched meanwhile.
 */

export const BIG_SKILL = "big-data";
export const BIG_FILE_URI = `skill://${BIG_SKILL}/data.txt`;

/** The URI of `big.txt`, the second file `bigFileProject` writes when asked for one. */
export const BIGGER_FILE_URI = `skill://${BIG_SKILL}/big.txt`;

/** Text of about `mb` MiB, in lines. */
export function textOfMb(mb: number): string {
  const line = `${"0123456789abcdef".repeat(4)}\n`;
  return line.repeat(Math.ceil((mb * 1024 * 1024) / line.length));
}

/**
 * A project whose one skill folder holds `data.txt` of `mb` MiB and, with `biggerMb`, `big.txt`
 * of that size (together inside the 16 MiB folder limit).
 */
export function bigFileProject(mb: number, biggerMb?: number): Record<string, string> {
  return {
    "skill-central.yaml": "builtin: false\n",
    [`.skills/${BIG_SKILL}/SKILL.md`]: `---\nname: ${BIG_SKILL}\ndescription: A skill with a big data file\n---\nRead data.txt.\n`,
    [`.skills/${BIG_SKILL}/data.txt`]: textOfMb(mb),
    ...(biggerMb !== undefined && { [`.skills/${BIG_SKILL}/big.txt`]: textOfMb(biggerMb) }),
  };
}

/** The server's resident memory now, in MiB (Linux `/proc`). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** CPU time a process has used, in clock ticks, and whether it is running now (Linux `/proc`). */
function cpuOf(pid: number): { ticks: number; running: boolean } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces), from field 3 (state) on.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { ticks: Number(fields[11]) + Number(fields[12]), running: fields[0] === "R" };
}

/**
 * Resolves once a process has done all it is going to do: asleep, with no CPU time used for
 * `quietMs`. Waiting on this rather than for a fixed time: a server that goes on working (making
 * answers nobody asked to stop) is waited for, however slow the machine.
 */
export async function quiescent(pid: number, quietMs = 300, timeoutMs = 120_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let last = cpuOf(pid).ticks;
  let quietSince = performance.now();
  for (;;) {
    await Bun.sleep(25);
    const now = cpuOf(pid);
    if (now.ticks !== last || now.running) {
      last = now.ticks;
      quietSince = performance.now();
    } else if (performance.now() - quietSince >= quietMs) return;
    if (performance.now() > deadline) throw new Error(`process ${pid} was still busy after ${timeoutMs} ms`);
  }
}

/** Samples a process's RSS until stopped; `peak` is the highest sample. */
export class RssWatch {
  peak = 0;
  private readonly timer: ReturnType<typeof setInterval>;
  constructor(
    private readonly pid: number,
    everyMs = 20,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }
  sample(): number {
    let now = Number.NaN;
    try {
      now = rssMb(this.pid);
    } catch {
      // The process ended.
    }
    if (now > this.peak) this.peak = now;
    return now;
  }
  stop(): void {
    clearInterval(this.timer);
  }
}

/** Asks `/healthz` again and again, one at a time, recording each answer's latency. */
export class HealthProbe {
  readonly latencies: number[] = [];
  /** When each answer came (performance.now()), beside `latencies`. */
  readonly times: number[] = [];
  failures = 0;
  private running = true;
  private readonly loop: Promise<void>;
  constructor(
    base: string,
    private readonly timeoutMs = 5_000,
  ) {
    this.loop = (async () => {
      while (this.running) {
        const started = performance.now();
        try {
          const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(this.timeoutMs) });
          await response.text();
          if (response.status === 200) {
            this.latencies.push(performance.now() - started);
            this.times.push(performance.now());
          } else this.failures++;
        } catch {
          this.failures++;
        }
        await Bun.sleep(20);
      }
    })();
  }
  get max(): number {
    return Math.max(0, ...this.latencies);
  }
  /** Resolves once the probe has had `count` answers (or failures) in all. */
  async answered(count: number): Promise<void> {
    while (this.latencies.length + this.failures < count) await Bun.sleep(10);
  }
  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

/** Opens a 2025-11-25 session (initialize, then notifications/initialized) and returns its id. */
export async function openSession(url: string): Promise<string> {
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
  const init = await fetch(url, { method: "POST", headers, body: JSON.stringify(INITIALIZE) });
  await init.text();
  const id = init.headers.get("mcp-session-id");
  if (id === null) throw new Error(`initialize answered ${init.status} without a session`);
  const done = await fetch(url, {
    method: "POST",
    headers: { ...headers, "Mcp-Session-Id": id, "MCP-Protocol-Version": "2025-11-25" },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await done.text();
  return id;
}

/** `count` sessions, opened a few at a time (a burst of hundreds of initialize would itself be refused as too many at once). */
export async function openSessions(url: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  while (ids.length < count)
    ids.push(...(await Promise.all(Array.from({ length: Math.min(16, count - ids.length) }, () => openSession(url)))));
  return ids;
}

/** The raw HTTP/1.1 request a client sends for one `resources/read` in a session. */
export function readRequest(url: string, session: string, id: number, uri = BIG_FILE_URI): string {
  const { host, pathname } = new URL(url);
  const body = JSON.stringify({ jsonrpc: "2.0", id, method: "resources/read", params: { uri } });
  return [
    `POST ${pathname} HTTP/1.1`,
    `Host: ${host}`,
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
    `Mcp-Session-Id: ${session}`,
    "MCP-Protocol-Version: 2025-11-25",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "",
    body,
  ].join("\r\n");
}

/** What a stalled client finally read once it resumed. */
export interface StalledAnswer {
  status: number;
  headers: Record<string, string>;
  /** Bytes after the head (the whole body once `complete`). */
  bodyBytes: number;
  complete: boolean;
  body: string;
}

/**
 * A TCP connection that sends one request and then reads nothing: the server's answer piles up
 * wherever the server lets it. `resume()` reads it all at last.
 */
export class StalledConnection {
  private chunks: Buffer[] = [];
  private finished = Promise.withResolvers<void>();
  private socket: Socket<undefined> | undefined;

  private constructor() {}

  static async open(url: string, request: string): Promise<StalledConnection> {
    const connection = new StalledConnection();
    const { hostname, port } = new URL(url);
    connection.socket = await Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open(socket) {
          socket.pause();
          socket.write(request);
        },
        data(_socket, data) {
          connection.chunks.push(Buffer.from(data));
          if (connection.parse()?.complete) connection.finished.resolve();
        },
        close() {
          connection.finished.resolve();
        },
        error() {
          connection.finished.resolve();
        },
      },
    });
    return connection;
  }

  private parse(): StalledAnswer | undefined {
    const all = Buffer.concat(this.chunks);
    this.chunks = [all];
    const headEnd = all.indexOf("\r\n\r\n");
    if (headEnd < 0) return undefined;
    const [statusLine, ...lines] = all.subarray(0, headEnd).toString("latin1").split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyBytes = all.length - headEnd - 4;
    const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"]);
    // A chunked body ends with its zero-length chunk.
    const complete =
      length !== undefined ? bodyBytes >= length : all.subarray(all.length - 5).toString("latin1") === "0\r\n\r\n";
    return {
      status: Number(statusLine!.split(" ")[1]),
      headers,
      bodyBytes,
      complete,
      body: complete && bodyBytes < 4096 ? all.subarray(headEnd + 4).toString("utf8") : "",
    };
  }

  /** Reads the whole answer (or until the server closes the connection). */
  async resume(): Promise<StalledAnswer | undefined> {
    this.socket?.resume();
    await this.finished.promise;
    return this.parse();
  }

  close(): void {
    this.socket?.end();
  }
}

/**
 * A stdout nobody reads: a FIFO whose read end this process holds open and leaves alone, so the
 * server's writes block once the pipe's buffer is full (Bun's own `stdout: "pipe"` reads eagerly).
 */
export class UnreadPipe {
  readonly writeFd: number;
  private readonly readFd: number;

  constructor(folder: string) {
    const path = join(folder, `stdout-${process.pid}-${Math.random().toString(36).slice(2)}.fifo`);
    execFileSync("mkfifo", [path]);
    this.readFd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    this.writeFd = openSync(path, constants.O_WRONLY);
  }

  /** After spawning: only the child holds the write end, so reading ends when it exits. */
  detach(): void {
    closeSync(this.writeFd);
  }

  /** Reads everything until the writer closes, calling `onLine` per line. */
  async drain(onLine: (line: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of Bun.file(this.readFd).stream()) {
      pending += decoder.decode(chunk, { stream: true });
      for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
        onLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
      }
    }
    closeSync(this.readFd);
  }
}
