import { SOURCE_TARGET } from "../helpers/server.ts";
import { fetchMissingSuite } from "./fetch-missing-suite.ts";

/** Issue 51 item 2 on the wire, against the source entry (the binary: fetch-missing-binary.test.ts). */
fetchMissingSuite(SOURCE_TARGET);
