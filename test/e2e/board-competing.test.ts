import { SOURCE_ENTRY } from "../helpers/server.ts";
import { boardCompetingSuite } from "./board-competing-suite.ts";

boardCompetingSuite({ name: "source", command: process.execPath, args: [SOURCE_ENTRY, "board"] });
