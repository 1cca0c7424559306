import { SOURCE_TARGET } from "../helpers/server.ts";
import { httpSuite } from "./http-suite.ts";

httpSuite(SOURCE_TARGET);
