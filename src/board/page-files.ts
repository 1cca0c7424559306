/**
 * The page's files (its HTML, script and style), served by the board itself rather than by Bun's
 * HTML route, so that each answer passes the guard and carries the board's security headers like
 * every other one. The compiled binary has them built in (`bun build --compile` bundles the HTML
 * import and lists its outputs); from source they are bundled once, by the same bundler, when the
 * page is first asked for.
 */
import { join } from "node:path";

interface PageFile {
  body: Blob;
  type: string;
  etag: string;
}

/** Each file by the path the page asks for it at (`/` for the HTML). */
export type PageFiles = ReadonlyMap<string, PageFile>;

const PAGE_SOURCE = join(import.meta.dir, "page", "index.html");

async function built(): Promise<PageFiles> {
  // Lazy: only `board` pays for it. In the binary this is the bundle built into it.
  const page = (await import("./page/index.html")).default;
  const files = new Map<string, PageFile>();
  const add = (path: string, type: string, etag: string, body: Blob) => {
    const name = path.slice(path.lastIndexOf("/") + 1);
    files.set(type.startsWith("text/html") ? "/" : `/${name}`, { body, type, etag: `"${etag}"` });
  };
  if (page.files) {
    for (const file of page.files) add(file.path, file.headers["content-type"], file.headers.etag, Bun.file(file.path));
    return files;
  }
  const result = await Bun.build({
    entrypoints: [PAGE_SOURCE],
    target: "browser",
    minify: true,
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, "cannot bundle the board's page");
  for (const output of result.outputs) add(output.path, output.type, output.hash ?? String(output.size), output);
  return files;
}

let files: Promise<PageFiles> | undefined;

/** The page's files, bundled (from source) on the first call only. */
export function pageFiles(): Promise<PageFiles> {
  files ??= built();
  return files;
}

/** The file at `path`, or undefined; a browser holding this very version gets 304. */
export function servePageFile(all: PageFiles, path: string, request: Request): Response | undefined {
  const file = all.get(path);
  if (!file) return undefined;
  const headers = { "Content-Type": file.type, ETag: file.etag, "Cache-Control": "no-cache" };
  if (request.headers.get("if-none-match") === file.etag) return new Response(null, { status: 304, headers });
  return new Response(request.method === "HEAD" ? null : file.body, { headers });
}
