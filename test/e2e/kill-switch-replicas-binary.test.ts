import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { killSwitchReplicasSuite } from "./kill-switch-replicas-suite.ts";

/** Issue 50 item 3 across two replicas on one PostgreSQL store, against the compiled executable (built once per `bun test` process). */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

killSwitchReplicasSuite(target);
