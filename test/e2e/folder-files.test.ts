import { SOURCE_TARGET } from "../helpers/server.ts";
import { folderFilesSuite } from "./folder-files-suite.ts";

folderFilesSuite(SOURCE_TARGET);
