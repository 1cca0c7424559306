import { beforeAll } from "bun:test";
import { buildForTests } from "../../script/build.ts";
import type { ServerTarget } from "../helpers/server.ts";
import { boardCompetingSuite } from "./board-competing-suite.ts";

/** The board from the compiled executable. */
const target: ServerTarget = { name: "binary", command: "<built in beforeAll>", args: ["board"] };

beforeAll(async () => {
  target.command = await buildForTests();
}, 120_000);

boardCompetingSuite(target);
