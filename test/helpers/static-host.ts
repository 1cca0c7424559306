import { existsSync, statSync } from "node:fs";
import { join, resolve, sep } from "node:path";

/** A static web host for a folder on 127.0.0.1 (a published well-known tree): files by path, else 404. */
export function serveFolder(root: string): ReturnType<typeof Bun.serve> {
  return Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = resolve(join(root, decodeURIComponent(new URL(request.url).pathname)));
      if (!path.startsWith(root + sep) || !existsSync(path) || !statSync(path).isFile())
        return new Response("not found", { status: 404 });
      return new Response(Bun.file(path));
    },
  });
}
