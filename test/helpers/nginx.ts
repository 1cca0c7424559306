import type { Subprocess } from "bun";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The Debian package's nginx (.ci/run installs it), or `$NGINX`. */
export function nginxBinary(): string {
  const found = [process.env.NGINX, Bun.which("nginx"), "/usr/sbin/nginx"].find(
    (p): p is string => p !== undefined && p !== null && existsSync(p),
  );
  if (found === undefined)
    throw new Error(
      "nginx not found: install the Debian package (apt-get install nginx; .ci/run does) or set NGINX to its path",
    );
  return found;
}

/**
 * nginx run unprivileged in the foreground with `site` (a server block, or upstream and server, as
 * a docs/ recipe gives it) inside a minimal main config, everything under `prefix`.
 */
export function spawnNginx(prefix: string, site: string): Subprocess<"ignore", "pipe", "pipe"> {
  mkdirSync(join(prefix, "logs"), { recursive: true });
  const main = join(prefix, "nginx.conf");
  writeFileSync(
    main,
    [
      `pid ${prefix}/nginx.pid;`,
      `error_log ${prefix}/logs/error.log warn;`,
      "worker_processes 1;",
      "events { worker_connections 256; }",
      "http {",
      `  access_log ${prefix}/logs/access.log;`,
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t}_temp_path ${prefix}/${t}_temp;`),
      site,
      "}",
    ].join("\n"),
  );
  return Bun.spawn([nginxBinary(), "-p", prefix, "-e", `${prefix}/logs/error.log`, "-c", main, "-g", "daemon off;"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
}
