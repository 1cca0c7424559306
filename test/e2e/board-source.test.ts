import { SOURCE_ENTRY } from "../helpers/server.ts";
import { boardSuite } from "./board-suite.ts";

boardSuite({ name: "source", command: process.execPath, args: [SOURCE_ENTRY, "board"] });
