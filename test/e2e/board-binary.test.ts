import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { boardAccessSuite } from "./board-access-suite.ts";
import { boardEvalsSuite } from "./board-evals-suite.ts";
import { boardGovernanceSuite } from "./board-governance-suite.ts";
import { boardOverviewSuite } from "./board-overview-suite.ts";
import { boardSuite } from "./board-suite.ts";

/** The board from the compiled executable: the page is bundled into it, no file of it on disk. */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["board"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

boardSuite(target);
boardAccessSuite(target);
boardOverviewSuite(target);
boardGovernanceSuite(target);
boardEvalsSuite(target);
