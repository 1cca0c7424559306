import { SOURCE_ENTRY } from "../helpers/server.ts";
import { boardAccessSuite } from "./board-access-suite.ts";
import { boardSuite } from "./board-suite.ts";

const target = { name: "source", command: process.execPath, args: [SOURCE_ENTRY, "board"] };
boardSuite(target);
boardAccessSuite(target);
