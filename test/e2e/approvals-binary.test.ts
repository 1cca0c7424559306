import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { approvalsSuite } from "./approvals-suite.ts";

/** Issue 50 item 2, approvals tied to digests, against the compiled executable (built once per `bun test` process). */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

approvalsSuite(target);
