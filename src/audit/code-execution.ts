/**
 * The code-execution class of the audit's rules (rules.ts: `remote-code-pipe`,
 * `remote-code-instructions`, `download-execute`, `decode-execute`, `package-from-url`), built
 * from named parts (issue 48 items 5 and 7): an attack has many ordinary spellings (`| /bin/bash`,
 * `| sudo bash -s`, `| tee f | sh`, `bash <(curl …)`, `iex (iwr …)`, a download saved then run,
 * an aliased `b64decode` fed to `exec`, the same in plain words), and a rule written as one long
 * literal cannot be read or reviewed. Kept apart from rules.ts so each class's parts sit together
 * and the class owners' edits do not collide.
 *
 * Every pattern here, and every one a check builds, is bounded (the linear-time proof of
 * test/helpers/linear-pattern.ts is applied to each): a check reads at most a fixed window after
 * its match.
 */
import type { MatchContext, Severity } from "./rules.ts";

/** Commands and cmdlets that download. */
const FETCHERS = "curl|wget|fetch|aria2c|iwr|irm|Invoke-WebRequest|Invoke-RestMethod";
/** Shells that run what they read on stdin. */
const SHELLS = "(?:ba|z|da|k|fi|c|tc|a|y)?sh|pwsh|powershell(?:\\.exe)?";
/** Interpreters that run stdin as a program when given no script, `-c`, `-m` or `-e`. */
const INTERPRETERS = "python[0-9.]{0,8}|perl|ruby|node|php|bun|deno|lua";
/** Commands that run a string as code: PowerShell's, always. */
const EVALUATORS = "iex|Invoke-Expression";
/** `sudo -E`, `doas`, `env X=1` before the program. */
const RUN_AS = `(?:(?:sudo|doas)(?:\\s{1,16}-{1,2}[A-Za-z][\\w-]{0,31}(?:=\\S{1,64})?){0,4}\\s{1,16}|env(?:\\s{1,16}[A-Za-z_]\\w{0,63}=\\S{0,256}){0,4}\\s{1,16})?`;
/** A program named by its path: `/bin/`, `/usr/local/bin/`, `$PREFIX/bin/`. */
const BIN_DIR = "(?:[\\w.${}~/-]{0,128}/)?";
/** An interpreter reads data, not code, when a script, `-c`, `-m` or `-e` follows it. */
const READS_DATA =
  "(?!\\s{0,16}(?:-[cmeEpnr]\\b|--eval\\b|--print\\b|-[A-Za-z]{1,8}[cme]\\s|[\\w./-]{1,256}\\.(?:py|js|mjs|cjs|ts|pl|rb|php|lua)\\b))";
/** One stage of a pipeline before the last (`| tee f`, `| gunzip`); `||` is not a pipe. */
const STAGE = "\\|(?!\\|)\\s{0,16}[^\\n|;]{0,256}";
/** A download's output piped, through at most three more stages, into a shell, an interpreter or `iex`. */
const PIPED = `\\b(?:${FETCHERS})\\b[^\\n|;]{0,256}(?:${STAGE}){0,3}\\|(?!\\|)\\s{0,16}${RUN_AS}${BIN_DIR}(?:(?:${SHELLS})\\b|(?:${INTERPRETERS})\\b${READS_DATA}|(?:${EVALUATORS})\\b)`;
/** `bash <(curl …)`, `bash < <(curl …)`, `source <(curl …)`, `. <(curl …)`. */
const PROCESS_SUBSTITUTION = `(?:\\b(?:${SHELLS}|${INTERPRETERS}|source|eval)|(?:^|[\\s;&|(])\\.)\\s{1,16}(?:-\\S{1,16}\\s{1,16}){0,3}<\\s{0,16}<?\\(\\s{0,16}(?:${FETCHERS})\\b`;
/** `sh -c "$(wget -qO- …)"`, `python3 -c "$(curl …)"`, `eval "$(curl …)"`, `` eval `curl …` ``. */
const COMMAND_SUBSTITUTION = `\\b(?:(?:${SHELLS}|${INTERPRETERS})\\s{1,16}(?:-\\S{1,16}\\s{1,16}){0,3}-[ce]|eval|exec|source|${EVALUATORS})\\s{1,16}["']?(?:\\$\\(|\`)\\s{0,16}(?:${FETCHERS})\\b`;
/** `S=$(curl …)` then, a few lines on, `eval "$S"` / `bash -c "$S"` / `iex $S`. */
const SAVED_THEN_RUN = `=\\s{0,16}["']?(?:\\$\\(|\\(|\`)\\s{0,16}(?:${FETCHERS})\\b[\\s\\S]{0,600}?\\b(?:eval|exec|${EVALUATORS}|(?:${SHELLS})\\s{1,16}-c)\\s{1,16}["']?\\$\\{?[A-Za-z_]`;
/** Calls that fetch a URL's body, in Python, Ruby, Perl, PHP and .NET. */
const FETCH_CALLS =
  "(?:urllib(?:2|\\.request)?\\.)?urlopen|requests\\.get|httpx\\.get|URI\\.open|Net::HTTP\\.get|file_get_contents|\\(?\\s{0,16}New-Object\\s{1,16}(?:System\\.)?Net\\.WebClient\\s{0,16}\\)?\\s{0,16}\\.DownloadString";
/** `exec(urllib.request.urlopen(…).read())`, `eval(get("https://…"))` (LWP), `eval(URI.open(…).read)`. */
const FETCH_EVAL = `\\b(?:exec|eval|instance_eval|execfile)\\s{0,16}\\(\\s{0,16}(?:compile\\s{0,16}\\(\\s{0,16})?(?:(?:${FETCH_CALLS})\\s{0,16}\\(|(?:get|open)\\s{0,16}\\(\\s{0,16}["']https?:)`;
/** JavaScript: a fetched body handed to `eval` or `Function` (`fetch(u).then(r=>r.text()).then(eval)`). */
const JS_FETCH_EVAL =
  "\\b(?:fetch|https?(?:['\"]\\s{0,16}\\))?\\.get|axios\\.get|got)\\s{0,16}\\([\\s\\S]{0,400}?(?:\\.then\\(\\s{0,16}(?:eval|Function)\\b|\\beval\\s{0,16}\\(|\\bnew\\s{1,16}Function\\s{0,16}\\()";
/** PowerShell: `iex (iwr …)`, `IEX(New-Object Net.WebClient).DownloadString(…)`, `[scriptblock]::Create((iwr …).Content)`. */
const POWERSHELL = `\\b(?:${EVALUATORS})\\b[^\\n]{0,256}?(?:\\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|curl|wget)\\b|\\.DownloadString\\s{0,16}\\(|\\bNet\\.WebClient\\b)|(?:\\.DownloadString\\s{0,16}\\(|\\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\\b)[^\\n]{0,256}?\\|\\s{0,16}(?:${EVALUATORS})\\b|\\[scriptblock\\]::Create\\s{0,16}\\([^\\n]{0,256}?(?:\\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\\b|\\.DownloadString)`;

export const REMOTE_CODE_PIPE = new RegExp(
  [PIPED, PROCESS_SUBSTITUTION, COMMAND_SUBSTITUTION, SAVED_THEN_RUN, FETCH_EVAL, JS_FETCH_EVAL, POWERSHELL].join("|"),
  "gim",
);

/** The program a pipeline ends in. */
const PIPED_PROGRAM =
  /\|\s{0,16}(?:(?:sudo|doas|env)\b[^|\n]{0,512}?\s)?(?:[\w.${}~/-]{0,128}\/)?([A-Za-z][\w.-]{0,64})$/;

/**
 * remote-code-pipe's judge: a pipe into `Python` or `PHP` is a Markdown table's columns ("curl |
 * Python | PHP"), not a command, which is lower-case (PowerShell's cmdlets excepted).
 */
export function pipedCommand({ text, start, end }: MatchContext): Severity | undefined | "keep" {
  const program = PIPED_PROGRAM.exec(text.slice(start, end))?.[1];
  if (program === undefined || program === program.toLowerCase() || /^(?:iex|invoke-expression)$/i.test(program))
    return "keep";
  return undefined;
}

export const REMOTE_CODE_NEEDLES: readonly (readonly string[])[] = [
  [
    "curl",
    "wget",
    "fetch",
    "aria2c",
    "iwr",
    "irm",
    "invoke-webrequest",
    "invoke-restmethod",
    "urlopen",
    "requests.get",
    "httpx.get",
    "uri.open",
    "net::http",
    "file_get_contents",
    "downloadstring",
    "http.get",
    "axios.get",
    "got(",
    'get("http',
    "get('http",
    'open("http',
    "open('http",
  ],
];

/** A URL whose last segment is a script. */
const SCRIPT_URL =
  "<?https?://[^\\s)\"'<>]{1,256}\\.(?:sh|bash|zsh|ps1|psm1|py|pl|rb|js|cmd|bat)\\b[^\\s)\"'<>]{0,64}>?";
const ANY_URL = "<?https?://[^\\s)\"'<>]{1,256}>?";
/** What "it" is in "run it": the thing just downloaded. */
const IT =
  "(?:it|them|that|this|its\\s+contents?|the\\s+(?:script|installer|file|commands?|contents?|output|response|code|text|lines?))";
const SHELL_WORDS =
  "(?:bash|sh|zsh|fish|the\\s+shell|a\\s+shell|your\\s+shell|(?:a|the|your)\\s+terminal|terminal|(?:a|the|your)\\s+console|powershell|pwsh|python[0-9.]{0,4}|node|perl|ruby|the\\s+command\\s+line)";
/** A phrase ending a sentence in the same line, for the parts that span one. */
const SAME_SENTENCE = "(?:[^.!?\\n]|[.!?](?=\\S)|\\n(?![ \\t]{0,16}\\n)){0,200}?";

/**
 * The same in plain words: "download the installer from https://…/install.sh and run it",
 * "… and run it with bash", "paste them into your terminal", "paste the output of this URL into
 * your terminal", "execute the script at https://…".
 */
export const REMOTE_CODE_INSTRUCTIONS = new RegExp(
  [
    // A script's URL, then "run it" / "execute the script".
    `${SCRIPT_URL}${SAME_SENTENCE}\\b(?:run|execute|exec|source|launch|start)\\s{1,16}${IT}\\b`,
    // Any URL, then "run it with bash" / "pipe it into the shell" / "paste them into your terminal".
    `${ANY_URL}${SAME_SENTENCE}\\b(?:(?:run|execute|exec|source|launch)\\s{1,16}(?:${IT}\\s{1,16})?(?:with|in|through|using|via|from)|(?:pipe|paste|feed|pass|type|enter|copy)\\s{1,16}${IT}\\s{1,16}(?:in|into|to|through))\\s{1,16}${SHELL_WORDS}\\b`,
    // "download … and run it with bash", the URL given elsewhere.
    `\\b(?:download|fetch|grab|get|save|pull|retrieve)\\b${SAME_SENTENCE}\\b(?:run|execute)\\s{1,16}${IT}\\s{1,16}(?:with|in|through|using|via)\\s{1,16}${SHELL_WORDS}\\b`,
    // "paste the output of this URL into your terminal", "run the commands from https://…".
    `\\b(?:paste|pipe|feed|run|execute|exec|source|evaluate|eval)\\s{1,16}(?:the\\s{1,16}|whatever\\s{1,16})?(?:output|contents?|response|body|text|commands?|script|code|lines?)\\s{1,16}(?:(?:of|from|at|on|returned\\s{1,16}by|served\\s{1,16}(?:at|by))\\s{1,16}(?:this\\s{1,16}|that\\s{1,16}|the\\s{1,16})?(?:url|link|page|address|endpoint|${ANY_URL})\\b${SAME_SENTENCE}\\b(?:in|into|to|with)\\s{1,16}${SHELL_WORDS}\\b|(?:at|from|served\\s{1,16}(?:at|by))\\s{1,16}${ANY_URL})`,
  ].join("|"),
  "gi",
);

/** The download commands download-execute follows to see whether what they saved is run. */
export const DOWNLOAD_COMMAND =
  /\b(?:curl|wget|aria2c|iwr|Invoke-WebRequest|Start-BitsTransfer)\b[^\n;&|]{0,400}|\burlretrieve\([\s\S]{0,400}?\b(?:os\.chmod|subprocess\.\w{1,64}|os\.system|os\.exec\w{1,8})\(/gi;

/** How far after a download its file may be run and still count as the same step. */
const RUN_WINDOW = 1200;
/** A checksum or signature checked between download and run: what a careful install does. */
const VERIFIED =
  /\b(?:sha(?:1|224|256|384|512)sum|shasum|b2sum|md5sum)\b[^\n]{0,256}(?:\s-c\b|--check\b|\|\s{0,16}grep\b|==|!=)|\bgpg2?\s{1,16}(?:--verify|-v)\b|\bcosign\s{1,16}verify|\bminisign\s{1,16}-V|\bGet-FileHash\b|\bopenssl\s{1,16}dgst\b|\bhashlib\.\w{1,16}\(|\bsha256(?:sum)?\s{0,16}=|\bsha256:\s{0,16}[0-9a-f]{64}|\bcheck_hash|\bverify_checksum/i;
/** What the download was saved as: `-o f`, `-fsSLo f`, `-O f`, `--output f`, `-OutFile f`, `> f`, the URL's name. */
const SAVED_AS =
  /\s-[A-Za-z]{0,8}[oO](?:\s{1,16}|(?=["'$~./\\]))["']?([^\s"';|&]{1,256})|\s--output(?:-document)?[=\s]\s{0,16}["']?([^\s"';|&]{1,256})|\s-(?:OutFile|Destination)\s{1,16}["']?([^\s"';|&]{1,256})|>\s{0,16}["']?([^\s"';|&>]{1,256})/gi;
/** wget and aria2c save under the URL's last segment when told no name. */
const URL_NAME = /https?:\/\/[^\s"'?#]{0,256}\/([^\s"'/?#]{1,128})/i;
const ARCHIVE = /\.(?:tar\.gz|tgz|tar\.xz|txz|tar\.bz2|tar|zip)$/i;

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The names a saved download may be run by: its basename, or the variable holding it. */
function savedNames(command: string): string[] {
  const names = new Set<string>();
  SAVED_AS.lastIndex = 0;
  for (const m of command.matchAll(SAVED_AS)) {
    const value = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? "").replace(/["']/g, "");
    if (value === "" || value === "-" || /^\/dev\/(?:null|stdout|stderr)$/.test(value) || /^&?\d$/.test(value))
      continue;
    const base = value.split(/[\\/]/).pop()!;
    if (base !== "" && base !== "." && base !== "..") names.add(base);
    else if (/^\$\{?\w{1,64}\}?$/.test(value)) names.add(value);
  }
  if (names.size === 0 && /^(?:wget|aria2c)\b/i.test(command)) {
    const name = URL_NAME.exec(command)?.[1];
    if (name) names.add(name);
  }
  return [...names];
}

/** A run of `name` in `after`: by a shell or interpreter, by its path at a command's start, or made executable. */
function runOf(name: string): RegExp {
  const n = escaped(name);
  const path = `["']?(?:[^\\s"'(\`]{0,256}[\\\\/])?${n}(?![\\w.-])`;
  return new RegExp(
    `(?:^|[\\s;&|(\`"'])(?:sudo\\s{1,16})?(?:(?:ba|z|da|k)?sh|source|python[0-9.]{0,8}|perl|ruby|node|pwsh|powershell(?:\\.exe)?|php|bun|deno|Start-Process|&|\\.)\\s{1,16}(?:-\\S{1,16}\\s{1,16}){0,3}${path}|(?:^|[;&|(]|\\bthen|\\bdo|\\$\\()\\s{0,16}["']?(?:[^\\s"'(\`]{0,256}[\\\\/])${n}(?![\\w.-])|\\bchmod\\s{1,16}(?:-\\w{1,8}\\s{1,16})?(?:[ugoa]{0,4}\\+[rwx]{0,2}x|[0-7]?[0-7]{0,4}[1357][0-7]{0,4})\\s{1,16}${path}|\\b(?:tar|unzip|7z|bsdtar)\\b[^\\n]{0,256}${n}(?![\\w.-])`,
    "im",
  );
}
/** After an archive is unpacked: a program run by its path at a command's start. */
const RUN_BY_PATH =
  /(?:^|[;&|(]|\bthen|\bdo)\s{0,16}["']?(?:\.{1,2}|~|\$\{?\w{1,64}\}?|[\w.-]{0,64})?\/[\w./${}-]{1,256}(?=[\s"';&|)]|$)/m;

/**
 * download-execute's judge: a download counts when what it saved is run (or made executable, or,
 * an archive, unpacked and a program in it run) within RUN_WINDOW characters, with no checksum or
 * signature checked in between.
 */
export function savedThenRun({ text, start, end }: MatchContext): Severity | undefined | "keep" {
  const command = text.slice(start, end);
  if (/^urlretrieve/i.test(command)) return VERIFIED.test(command) ? undefined : "keep";
  const after = text.slice(end, end + RUN_WINDOW);
  for (const name of savedNames(command)) {
    const run = runOf(name).exec(after);
    if (!run) continue;
    const between = after.slice(0, run.index);
    if (VERIFIED.test(between)) continue;
    if (/^\s*\S*\s*(?:tar|unzip|7z|bsdtar)\b/i.test(run[0]) || /\b(?:tar|unzip|7z|bsdtar)\b/i.test(run[0])) {
      if (!ARCHIVE.test(name)) continue;
      const rest = after.slice(run.index + run[0].length);
      const program = RUN_BY_PATH.exec(rest);
      if (program && !VERIFIED.test(rest.slice(0, program.index))) return "keep";
      continue;
    }
    return "keep";
  }
  return undefined;
}

/** Shell decoders whose output is code when it is run. */
const SHELL_DECODERS =
  "base(?:64|32)\\s{1,16}(?:-[A-Za-z]{0,4}d|--decode|-D)\\b|openssl\\s{1,16}(?:base64|enc\\s{1,16}-base64)\\s{1,16}-d\\b|xxd\\s{1,16}-r\\b|uudecode\\b";
/** Calls that decode (Python, JavaScript, PowerShell), for the names bound to what they return. */
const DECODE_CALLS = `b(?:64|32|16|85)decode|a85decode|decodebytes|decodestring|codecs\\.decode|zlib\\.decompress|bz2\\.decompress|lzma\\.decompress|gzip\\.decompress|unhexlify|fromhex|marshal\\.loads|atob\\s{0,16}\\(|Buffer\\.from\\([^\\n)]{0,256}['"](?:base64|hex)|FromBase64String|${SHELL_DECODERS}`;
const DECODER_MODULES = "base64|codecs|zlib|binascii|marshal|bz2|lzma|gzip";
/** A name bound to a decoder or to what one returned: an import, an alias, an assignment. */
const DECODER_BINDING = new RegExp(
  `\\bfrom\\s{1,16}(?:${DECODER_MODULES})\\s{1,16}import\\s{1,16}([\\w ,]{1,256})|\\bimport\\s{1,16}(?:${DECODER_MODULES})\\s{1,16}as\\s{1,16}(\\w{1,64})|(?:^|[\\s;{(,])(?:const\\s|let\\s|var\\s|local\\s|export\\s|\\$)?\\s{0,16}([A-Za-z_]\\w{0,63})\\s{0,16}=\\s{0,16}[^\\n;]{0,256}?(?:${DECODE_CALLS})`,
  "gm",
);
/** Decoded text run directly: `| base64 -d | sh`, `eval "$(… | base64 -d)"`, `exec(base64.b64decode(…))`. */
const DECODE_RUN_DIRECT = [
  `\\b(?:${SHELL_DECODERS})[^\\n]{0,256}\\|(?!\\|)\\s{0,16}${RUN_AS}${BIN_DIR}(?:(?:${SHELLS})\\b|(?:${INTERPRETERS})\\b${READS_DATA}|(?:${EVALUATORS})\\b)`,
  `\\b(?:eval|exec|source|${EVALUATORS}|(?:${SHELLS}|${INTERPRETERS})\\s{1,16}-[ce])\\s{1,16}["']?(?:\\$\\(|\`|<\\()[^\\n)]{0,256}\\b(?:${SHELL_DECODERS})`,
  `\\b(?:exec|eval)\\s{0,16}\\(\\s{0,16}(?:compile\\s{0,16}\\(\\s{0,16})?(?:base64\\.b(?:64|32|16|85)decode|codecs\\.decode|zlib\\.decompress|bytes\\.fromhex|binascii\\.unhexlify|marshal\\.loads|__import__\\(\\s{0,16}['"](?:${DECODER_MODULES}))`,
  "\\beval\\s{0,16}\\(\\s{0,16}compile\\s{0,16}\\(",
  `\\b(?:eval|Function|exec)\\s{0,16}\\(\\s{0,16}(?:atob|Buffer\\.from\\([^)]{0,256}['"](?:base64|hex)['"]\\))`,
  "\\bpowershell(?:\\.exe)?\\b[^\\n]{0,256}\\s-(?:e|ec|enc|encodedcommand)\\s{1,16}[A-Za-z0-9+/=]{16}",
  `\\b(?:${EVALUATORS})\\b[^\\n]{0,256}FromBase64String|FromBase64String[^\\n]{0,256}\\|\\s{0,16}(?:${EVALUATORS})\\b`,
].join("|");
/** A name run as code: `eval "$P"`, `bash -c "$P"`, `iex $s`, `exec(d(…))`, `exec(b.b64decode(…))`, `new Function(src)`. */
const RUN_NAMED = `\\b(?:eval|exec|source|${EVALUATORS}|(?:${SHELLS})\\s{1,16}-c)\\s{1,16}["']?\\$\\{?[A-Za-z_]\\w{0,63}|\\b(?:exec|eval|Function|execfile)\\s{0,16}\\(\\s{0,16}(?:compile\\s{0,16}\\(\\s{0,16})?[A-Za-z_][\\w.]{0,128}`;

export const DECODE_EXECUTE = new RegExp(`${DECODE_RUN_DIRECT}|${RUN_NAMED}`, "gi");
const DIRECT = new RegExp(`^(?:${DECODE_RUN_DIRECT})`, "i");
const NAME_RUN =
  /^(?:eval|exec|source|iex|Invoke-Expression|\S{1,16}\s{1,16}-c|new\s{1,16}Function|Function|execfile)\s{0,16}\(?\s{0,16}(?:compile\s{0,16}\(\s{0,16})?["']?\$?\{?([A-Za-z_][\w.]{0,128})/i;

/** The last file's decoder-bound names: every match of a file asks the same question of the same text. */
let boundIn: { text: string; names: Set<string> } | undefined;
function decoderNames(text: string): Set<string> {
  if (boundIn?.text === text) return boundIn.names;
  const names = new Set<string>();
  DECODER_BINDING.lastIndex = 0;
  for (const m of text.matchAll(DECODER_BINDING)) {
    if (m[1] !== undefined)
      for (const item of m[1].split(",")) {
        const words = item.trim().split(/\s+/);
        const name = words[2] ?? words[0];
        if (name) names.add(name);
      }
    else names.add((m[2] ?? m[3])!);
  }
  boundIn = { text, names };
  return names;
}

/**
 * decode-execute's judge for a name run as code: kept when the name (or, for `b.b64decode`, its
 * module `b`) is bound to a decoder or to what a decoder returned, anywhere in the file.
 */
export function decodedThenRun({ text, start, end }: MatchContext): Severity | undefined | "keep" {
  const matched = text.slice(start, end);
  if (DIRECT.test(matched)) return "keep";
  const name = NAME_RUN.exec(matched)?.[1];
  if (name === undefined) return undefined;
  const names = decoderNames(text);
  return names.has(name) || names.has(name.split(".")[0]!) ? "keep" : undefined;
}

export const DECODE_EXECUTE_NEEDLES: readonly (readonly string[])[] = [
  [
    "base64",
    "base32",
    "b64decode",
    "b32decode",
    "b16decode",
    "b85decode",
    "a85decode",
    "decodebytes",
    "codecs",
    "zlib",
    "binascii",
    "unhexlify",
    "fromhex",
    "marshal",
    "bz2",
    "lzma",
    "gzip",
    "__import__",
    "compile(",
    "atob",
    "buffer.from",
    "powershell",
    "frombase64string",
    "xxd",
    "uudecode",
  ],
  ["eval", "exec", "function", "source", "iex", "invoke-expression", "-c", "-e", "|", "powershell"],
];

/** Indexes that are the public registries (or a project's own documented wheel index): an install from them is no finding. */
const TRUSTED_PYPI = "(?!https://(?:pypi\\.org|download\\.pytorch\\.org)/)";
const TRUSTED_NPM = "(?!https://registry\\.(?:npmjs\\.org|yarnpkg\\.com)\\b)";
const PIP =
  "\\b(?:pip[0-9.]{0,4}|pipx|uv\\s{1,16}pip|uv|python[0-9.]{0,8}\\s{1,16}-m\\s{1,16}pip)\\s{1,16}(?:install|add)\\b";
const NPM = "\\b(?:npm|pnpm|yarn|bun)\\s{1,16}(?:install|i|add)\\b";

/**
 * package-from-url: an install by URL or from another index (pip, uv, npm, gem, cargo), and the
 * configuration that points every later install at one (`npm config set registry`, `PIP_INDEX_URL=`).
 */
export const PACKAGE_FROM_URL = new RegExp(
  [
    `${PIP}[^\\n]{0,256}?(?:\\s(?:git\\+)?https?://\\S{1,256}|\\s--(?:extra-)?index(?:-url)?[=\\s]\\s{0,16}${TRUSTED_PYPI}\\S{1,256}|\\s-i\\s{1,16}${TRUSTED_PYPI}https?://\\S{1,256}|\\s--trusted-host\\b|\\s--default-index[=\\s]\\s{0,16}${TRUSTED_PYPI}\\S{1,256})`,
    `${NPM}[^\\n]{0,256}?(?:\\s(?:git\\+)?https?://\\S{1,256}\\.(?:tgz|tar\\.gz)\\b|\\s--registry[=\\s]\\s{0,16}${TRUSTED_NPM}\\S{1,256})`,
    `\\b(?:npm|pnpm|yarn)\\s{1,16}config\\s{1,16}set\\s{1,16}(?:@[\\w-]{1,64}:)?(?:registry|npmRegistryServer)[=\\s]\\s{0,16}["']?${TRUSTED_NPM}\\S{1,256}`,
    `\\bpip[0-9.]{0,4}\\s{1,16}config\\s{1,16}set\\s{1,16}(?:global|user|site)\\.(?:extra-)?index-url[=\\s]\\s{0,16}["']?${TRUSTED_PYPI}\\S{1,256}`,
    `\\b(?:PIP_(?:EXTRA_)?INDEX_URL|UV_(?:EXTRA_|DEFAULT_)?INDEX(?:_URL)?|npm_config_registry|NPM_CONFIG_REGISTRY)\\s{0,16}=\\s{0,16}["']?${TRUSTED_PYPI}${TRUSTED_NPM}https?://\\S{1,256}`,
    `^\\s{0,16}(?:(?:extra-)?index-url|registry)\\s{0,16}=\\s{0,16}http://\\S{1,256}`,
    "\\bgem\\s{1,16}install\\b[^\\n]{0,256}\\s--source\\s{1,16}\\S{1,256}",
    "\\bcargo\\s{1,16}install\\b[^\\n]{0,256}\\s--(?:git|index|registry)[=\\s]\\s{0,16}\\S{1,256}",
  ].join("|"),
  "gim",
);

/** A package index no one can vouch for: plain HTTP, an IP address, TLS checks off, a tunnel or paste host. */
const UNSAFE_SOURCE =
  /http:\/\/(?!(?:localhost|127\.0\.0\.1|\[::1\])[:/])|https?:\/\/(?!127\.)(?:\d{1,3}\.){3}\d{1,3}\b|--trusted-host\b|\.ngrok(?:-free)?\.(?:io|app|dev)|trycloudflare\.com|\.loca\.lt\b|serveo\.net|transfer\.sh|pastebin\.com/i;

/** package-from-url's judge: high from a source no one can vouch for, medium (it combines) otherwise. */
export function packageSource({ text, start, end }: MatchContext): Severity | undefined | "keep" {
  const matched = text.slice(start, end);
  if (UNSAFE_SOURCE.test(matched)) return "high";
  // The lazy gap stops at the first URL: an index option naming a public registry is no finding.
  const url = /https?:\/\/\S{1,256}$/.exec(matched)?.[0];
  return url !== undefined && PUBLIC_INDEX.test(url) ? undefined : "keep";
}
const PUBLIC_INDEX =
  /^https:\/\/(?:pypi\.org|files\.pythonhosted\.org|download\.pytorch\.org|registry\.npmjs\.org|registry\.yarnpkg\.com)\//;

/** The fixed patterns of the checks, for the linear-time proof. */
export const CODE_EXECUTION_PATTERNS: readonly RegExp[] = [
  VERIFIED,
  SAVED_AS,
  RUN_BY_PATH,
  runOf("x.sh"),
  DECODER_BINDING,
  DIRECT,
  NAME_RUN,
  UNSAFE_SOURCE,
  PUBLIC_INDEX,
  URL_NAME,
  PIPED_PROGRAM,
];

/** A shell started interactive (`sh -i`), whose input and output a socket holds. */
const INTERACTIVE_SHELL = "(?:/bin/)?(?:ba|z|da)?sh\\s{1,16}-i\\b";
/** Connections: netcat and friends, or a socket opened in code. */
const NETCAT = "(?:nc|ncat|netcat|telnet|openssl\\s{1,16}s_client)\\b";

/** reverse-shell: a shell whose input and output go to a remote host, in the ordinary spellings. */
export const REVERSE_SHELL = new RegExp(
  [
    "/dev/(?:tcp|udp)/[^\\s/]{1,64}/\\d{1,5}",
    `\\b(?:nc|ncat|netcat)\\b[^\\n|;]{0,256}\\s-(?:e|c)\\s{1,16}\\S{0,64}(?:sh|cmd)\\b`,
    "\\bsocat\\b[^\\n]{0,256}\\bexec:[^\\n]{0,256}(?:sh|cmd)",
    `\\bmkfifo\\b[^\\n]{0,256}\\|\\s{0,16}${NETCAT}`,
    `\\b${INTERACTIVE_SHELL}[^\\n]{0,256}\\|\\s{0,16}${NETCAT}`,
    `\\b${NETCAT}[^\\n|;]{0,256}\\|\\s{0,16}(?:/bin/)?(?:ba|z|da)?sh\\b`,
    `\\b${INTERACTIVE_SHELL}\\s{0,16}[<>]&\\s{0,16}\\d`,
    "\\bpty\\.spawn\\(\\s{0,16}['\"][^'\"]{0,64}(?:ba|z)?sh['\"]",
    "\\bos\\.dup2\\(\\s{0,16}\\w{1,64}\\.fileno\\(\\)\\s{0,16},\\s{0,16}[012]\\s{0,16}\\)",
    "\\bstdin\\s{0,16}=\\s{0,16}\\w{1,64}\\.fileno\\(\\)",
    "\\bspawn\\(\\s{0,16}['\"](?:/bin/)?(?:ba|z)?sh['\"][\\s\\S]{0,400}?\\.pipe\\(",
    "\\bNet\\.Sockets\\.TCPClient\\([\\s\\S]{0,800}?\\b(?:iex|Invoke-Expression)\\b",
    "\\bfsockopen\\([\\s\\S]{0,256}?(?:/bin/)?(?:ba)?sh\\b",
  ].join("|"),
  "gi",
);

export const REVERSE_SHELL_NEEDLES: readonly (readonly string[])[] = [
  [
    "/dev/tcp",
    "/dev/udp",
    " -e ",
    " -c ",
    "socat",
    "mkfifo",
    "sh -i",
    "| nc",
    "|nc",
    "| ncat",
    "| netcat",
    "pty.spawn",
    "os.dup2",
    "fileno()",
    "spawn(",
    "tcpclient",
    "fsockopen",
  ],
];
