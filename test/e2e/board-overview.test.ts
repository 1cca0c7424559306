import { SOURCE_ENTRY } from "../helpers/server.ts";
import { boardOverviewSuite } from "./board-overview-suite.ts";

boardOverviewSuite({ name: "source", command: process.execPath, args: [SOURCE_ENTRY, "board"] });
