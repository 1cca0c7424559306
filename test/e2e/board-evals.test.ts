import { SOURCE_ENTRY } from "../helpers/server.ts";
import { boardEvalsSuite } from "./board-evals-suite.ts";

boardEvalsSuite({ name: "source", command: process.execPath, args: [SOURCE_ENTRY, "board"] });
