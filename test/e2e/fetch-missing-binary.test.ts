import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { fetchMissingSuite } from "./fetch-missing-suite.ts";

/** Issue 51 item 2 on the wire, against the compiled executable (built once per `bun test` process). */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

fetchMissingSuite(target);
