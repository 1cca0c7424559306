import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { twoPersonSuite } from "./two-person-suite.ts";

/** Issue 50 item 2, policy.twoPerson end to end, against the compiled executable (built once per `bun test` process). */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

twoPersonSuite(target);
