import { SOURCE_TARGET } from "../helpers/server.ts";
import { slowClientsSuite } from "./slow-clients-suite.ts";

slowClientsSuite(SOURCE_TARGET);
