import { SOURCE_ENTRY } from "../helpers/server.ts";
import { boardGovernanceSuite } from "./board-governance-suite.ts";

boardGovernanceSuite({ name: "source", command: process.execPath, args: [SOURCE_ENTRY, "board"] });
