import { SOURCE_TARGET } from "../helpers/server.ts";
import { protocolSuite } from "./protocol-suite.ts";
import { modernEraSuite } from "./modern-era-suite.ts";
import { stdioRobustnessSuite } from "./stdio-robustness-suite.ts";

protocolSuite(SOURCE_TARGET);
stdioRobustnessSuite(SOURCE_TARGET);
modernEraSuite(SOURCE_TARGET);
