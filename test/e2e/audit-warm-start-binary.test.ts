import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { auditWarmStartSuite } from "./audit-warm-start-suite.ts";

/** Against the compiled executable (built once per `bun test` process), which always uses its start-up index. */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

auditWarmStartSuite(target);
