/**
 * MIME types of the files skills carry, by extension. Bun's own table is the web's (`.ts` is
 * JavaScript, `.rs` an XML format, `.py` unknown), which misnames what skill folders hold.
 */
const BY_EXTENSION: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  text: "text/plain",
  csv: "text/csv",
  tsv: "text/tab-separated-values",
  html: "text/html",
  htm: "text/html",
  css: "text/css",
  xml: "application/xml",
  json: "application/json",
  jsonl: "application/jsonl",
  yaml: "application/yaml",
  yml: "application/yaml",
  toml: "application/toml",
  ini: "text/plain",
  cfg: "text/plain",
  conf: "text/plain",
  sql: "application/sql",
  graphql: "application/graphql",
  py: "text/x-python",
  rb: "text/x-ruby",
  pl: "text/x-perl",
  php: "application/x-httpd-php",
  sh: "application/x-sh",
  bash: "application/x-sh",
  zsh: "application/x-sh",
  ps1: "text/plain",
  bat: "text/plain",
  js: "text/javascript",
  mjs: "text/javascript",
  cjs: "text/javascript",
  jsx: "text/javascript",
  ts: "text/typescript",
  mts: "text/typescript",
  cts: "text/typescript",
  tsx: "text/typescript",
  go: "text/x-go",
  rs: "text/x-rust",
  java: "text/x-java",
  kt: "text/x-kotlin",
  kts: "text/x-kotlin",
  swift: "text/x-swift",
  c: "text/x-c",
  h: "text/x-c",
  cpp: "text/x-c++",
  hpp: "text/x-c++",
  cs: "text/x-csharp",
  lua: "text/x-lua",
  r: "text/x-r",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  ico: "image/vnd.microsoft.icon",
  bmp: "image/bmp",
  pdf: "application/pdf",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  wasm: "application/wasm",
  woff: "font/woff",
  woff2: "font/woff2",
  ttf: "font/ttf",
  otf: "font/otf",
  mp3: "audio/mpeg",
  wav: "audio/wav",
  mp4: "video/mp4",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
};

/** What a file of unknown kind is served as: text when it is text, bytes otherwise. */
export const PLAIN_TEXT = "text/plain";
export const OCTET_STREAM = "application/octet-stream";

/** The MIME type of a file name, or undefined when its extension says nothing. */
export function mimeTypeOf(fileName: string): string | undefined {
  const dot = fileName.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const extension = fileName.slice(dot + 1).toLowerCase();
  return Object.hasOwn(BY_EXTENSION, extension) ? BY_EXTENSION[extension] : undefined;
}

/** Types whose content is text (sent as `text` when the bytes are UTF-8), as opposed to images, archives, fonts. */
export function isTextual(mimeType: string): boolean {
  return (
    mimeType.startsWith("text/") ||
    mimeType === "image/svg+xml" ||
    /^application\/(json|jsonl|yaml|toml|xml|sql|graphql|x-sh|x-httpd-php)$/.test(mimeType)
  );
}
