import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { protocolSuite } from "./protocol-suite.ts";
import { modernEraSuite } from "./modern-era-suite.ts";
import { stdioRobustnessSuite } from "./stdio-robustness-suite.ts";

/**
 * The whole protocol suite (and the stdio robustness suite) again, against the compiled executable (minified, bytecode, skills
 * embedded). The suite's hooks read `target.command` when they run, after this file's
 * `beforeAll` has built the binary (once per `bun test` process, shared with binary.test.ts).
 */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["mcp"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

protocolSuite(target);
stdioRobustnessSuite(target);
modernEraSuite(target);
