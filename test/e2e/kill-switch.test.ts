import { SOURCE_TARGET } from "../helpers/server.ts";
import { killSwitchSuite } from "./kill-switch-suite.ts";

/** Issue 50 item 3, the kill switch on one machine, against the source entry (the binary: kill-switch-binary.test.ts). */
killSwitchSuite(SOURCE_TARGET);
