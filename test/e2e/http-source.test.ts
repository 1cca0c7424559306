import { SOURCE_TARGET } from "../helpers/server.ts";
import { httpEdgeSuite } from "./http-edge-suite.ts";
import { httpSuite } from "./http-suite.ts";

httpSuite(SOURCE_TARGET);
httpEdgeSuite(SOURCE_TARGET);
