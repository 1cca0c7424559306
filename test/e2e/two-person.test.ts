import { SOURCE_TARGET } from "../helpers/server.ts";
import { twoPersonSuite } from "./two-person-suite.ts";

/** Issue 50 item 2, policy.twoPerson end to end, against the source entry (the binary: two-person-binary.test.ts). */
twoPersonSuite(SOURCE_TARGET);
