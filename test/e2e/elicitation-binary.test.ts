import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { elicitationSuite } from "./elicitation-suite.ts";

/** Asking for missing arguments from the compiled executable, in both eras over stdio and HTTP. */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

elicitationSuite({ era: "legacy", transport: "stdio" }, target);
elicitationSuite({ era: "modern", transport: "stdio" }, target);
elicitationSuite({ era: "modern", transport: "http" }, target);
