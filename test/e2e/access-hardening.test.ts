import { SOURCE_TARGET } from "../helpers/server.ts";
import { accessHardeningSuite } from "./access-hardening-suite.ts";

/** Issue 34's layer-access items on the wire, against the source entry (the binary: access-hardening-binary.test.ts). */
accessHardeningSuite(SOURCE_TARGET);
