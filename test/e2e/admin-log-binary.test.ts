import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { adminLogSuite } from "./admin-log-suite.ts";

/** Issue 50 item 4, `skill-central log`, against the compiled executable (built once per `bun test` process). */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

adminLogSuite(target);
