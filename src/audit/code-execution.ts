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
import type { MatchContext, Severity } from "./match-context.ts";

/** Commands and cmdlets that download. */
const FETCHERS = "curl|wget|fetch|aria2c|iwr|irm|Invoke-WebRequest|Invoke-RestMethod";
/** Shells that run what they read on stdin. */
const SHELLS = String.raw`(?:ba|z|da|k|fi|c|tc|a|y)?sh|pwsh|powershell(?:\.exe)?`;
/** Interpreters that run stdin as a program when given no script, `-c`, `-m` or `-e`. */
const INTERPRETERS = "python[0-9.]{0,8}|perl|ruby|node|php|bun|deno|lua";
/** Commands that run a string as code: PowerShell's, always. */
const EVALUATORS = "iex|Invoke-Expression";
/** A program named by its path: `/bin/`, `/usr/local/bin/`, `$PREFIX/bin/`. */
const BIN_DIR = String.raw`(?:[\w.${"$"}{}~/-]{0,128}/)?`;
/** Wrappers before the program, with their options and variables: `sudo -E`, `doas`, `env -i X=1`, `/usr/bin/env`, `busybox`, `xargs -0`. */
const RUN_AS = String.raw`(?:${BIN_DIR}(?:sudo|doas|env|busybox|xargs|nohup|command|stdbuf|setsid)(?:\s{1,16}-{1,2}[A-Za-z0-9][\w-]{0,31}(?:=\S{1,64})?|\s{1,16}[A-Za-z_]\w{0,63}=\S{0,256}){0,4}\s{1,16}){0,3}`;
/** An interpreter reads data, not code, when a script, `-c`, `-m` or `-e` follows it. */
const READS_DATA = String.raw`(?!\s{0,16}(?:-[cmeEpnr]\b|--eval\b|--print\b|-[A-Za-z]{1,8}[cme]\s|[\w./-]{1,256}\.(?:py|js|mjs|cjs|ts|pl|rb|php|lua)\b))`;
/** The program at the end of a pipe that runs what it reads. */
const RUNS_STDIN = String.raw`${RUN_AS}${BIN_DIR}(?:(?:${SHELLS})\b|(?:${INTERPRETERS})\b${READS_DATA}|(?:${EVALUATORS})\b)`;
/**
 * A download's output piped into a shell, an interpreter or `iex`, directly or through more stages
 * (`| tee f | sh`, `| gunzip | sh`); `||` is not a pipe. Two plain alternatives, not a repeated
 * group: a greedy class that fails costs a tight loop, a group repeated inside it costs far more.
 */
const PIPED = String.raw`\b(?:${FETCHERS})\b[^\n|;]{0,256}\|(?!\|)(?:[^\n;]{0,768}\|(?!\|))?\s{0,16}${RUNS_STDIN}`;
/** `bash <(curl …)`, `bash < <(curl …)`, `source <(curl …)`, `. <(curl …)` (the `(` first, then a look back: a look back first would run at every position). */
const PROCESS_SUBSTITUTION = String.raw`\((?<=(?:\b(?:${SHELLS}|${INTERPRETERS}|source|eval)|(?:^|[\s;&|(])\.)\s{1,16}(?:-\S{1,16}\s{1,16}){0,3}<\s{0,16}<?\()\s{0,16}(?:${FETCHERS})\b`;
/** `sh -c "$(wget -qO- …)"`, `python3 -c "$(curl …)"`, `eval "$(curl …)"`, `` eval `curl …` ``. */
const COMMAND_SUBSTITUTION = String.raw`(?:\B-[ce]|\b(?:eval|exec|source|${EVALUATORS}))\s{1,16}["']?(?:\$\(|\x60)\s{0,16}(?:${FETCHERS})\b`;
/** A download fed to a shell as a here-string: `bash <<< "$(curl …)"`, `source /dev/stdin <<< "$(curl …)"`. */
const HERE_STRING = String.raw`<<<(?<=\b(?:${SHELLS}|${INTERPRETERS}|source)\b[^\n]{0,64}<<<)\s{0,16}["']?(?:\$\(|\x60)\s{0,16}(?:${FETCHERS})\b`;
/** Calls that fetch a URL's body, in Python, Ruby, Perl, PHP and .NET. */
const FETCH_CALLS = String.raw`(?:[\w.]{0,64}\.)?urlopen|requests\.get|httpx\.get|URI\.open|Net::HTTP\.get|file_get_contents|\(?\s{0,16}New-Object\s{1,16}(?:System\.)?Net\.WebClient\s{0,16}\)?\s{0,16}\.DownloadString`;
/** What runs a string as code or as a command, in Python, Ruby, Perl, PHP and Node. */
const RUNS_TEXT = String.raw`exec|eval|instance_eval|execfile|os\.system|os\.popen|subprocess\.(?:run|call|Popen|check_output|check_call)|system|execSync`;
/** `exec(urllib.request.urlopen(…).read())`, `os.system(requests.get(…).text)`, `eval(get("https://…"))` (LWP), `eval(URI.open(…).read)`. */
const FETCH_EVAL = String.raw`\b(?:${RUNS_TEXT})\s{0,16}\(\s{0,16}(?:compile\s{0,16}\(\s{0,16})?(?:(?:${FETCH_CALLS})\s{0,16}\(|(?:get|open)\s{0,16}\(\s{0,16}["']https?:)`;
/** `S=$(curl …)`, `$s = irm …`, `code = requests.get(…).text` then, a few lines on, `eval "$S"` / `iex $s` / `exec(code)`. */
const SAVED_THEN_RUN = String.raw`=\s{0,16}["']?(?:\$\(|\(|\x60)?\s{0,16}(?:(?:${FETCHERS})\b|(?:${FETCH_CALLS})\s{0,16}\()[\s\S]{0,600}?(?:\b(?:eval|exec|${EVALUATORS}|(?:${SHELLS})\s{1,16}-c)\s{1,16}["']?\$\{?[A-Za-z_]|\b(?:exec|eval|os\.system|os\.popen)\s{0,16}\(\s{0,16}[A-Za-z_])`;
/** JavaScript: a fetched body handed to `eval` or `Function` (`fetch(u).then(r=>r.text()).then(eval)`). */
const JS_FETCH_EVAL = String.raw`\b(?:fetch|https?(?:['"]\s{0,16}\))?\.get|axios\.get|got)\s{0,16}\([\s\S]{0,400}?(?:\.then\(\s{0,16}(?:eval|Function)\b|\beval\s{0,16}\(|\bnew\s{1,16}Function\s{0,16}\()`;
/** PowerShell: `iex (iwr …)`, `IEX(New-Object Net.WebClient).DownloadString(…)`, `[scriptblock]::Create((iwr …).Content)`. */
const POWERSHELL = String.raw`\b(?:${EVALUATORS})\b[^\n]{0,256}?(?:\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|curl|wget)\b|\.DownloadString\s{0,16}\(|\bNet\.WebClient\b)|(?:\.DownloadString\s{0,16}\(|\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b)[^\n]{0,256}?\|\s{0,16}(?:${EVALUATORS})\b|\[scriptblock\]::Create\s{0,16}\([^\n]{0,256}?(?:\b(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod)\b|\.DownloadString)`;
/** Windows programs that run what a URL serves: `mshta https://…`, `regsvr32 /i:https://…`, `msiexec /i https://…`. */
const WINDOWS_RUNNERS = String.raw`\bmshta(?:\.exe)?\s{1,16}["']?(?:https?:|vbscript:|javascript:)|\bregsvr32(?:\.exe)?\b[^\n]{0,128}/i:\s{0,4}["']?https?:|\bmsiexec(?:\.exe)?\b[^\n]{0,64}\s/(?:i|package|a)\s{1,16}["']?https?:`;
/** Deno runs a module by its URL (its own registries excepted). */
const DENO_URL = String.raw`\bdeno\s{1,16}run\b[^\n]{0,128}?\s["']?(?!https://(?:deno\.land|jsr\.io|esm\.sh)/)https?://`;

export const REMOTE_CODE_PIPE = new RegExp(
  [
    PIPED,
    PROCESS_SUBSTITUTION,
    COMMAND_SUBSTITUTION,
    HERE_STRING,
    SAVED_THEN_RUN,
    FETCH_EVAL,
    JS_FETCH_EVAL,
    POWERSHELL,
    WINDOWS_RUNNERS,
    DENO_URL,
  ].join("|"),
  "gi",
);

/** The program a pipeline ends in. */
const PIPED_PROGRAM = /\|\s{0,16}(?:\S{0,128}\s{1,16}){0,8}?(?:[\w.${}~/-]{0,128}\/)?([A-Za-z][\w.-]{0,64})$/;

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
    "irm http",
    "iex",
    "invoke-",
    "urlopen",
    "requests.get",
    "httpx.get",
    "uri.open",
    "net::http",
    "file_get_contents",
    "downloadstring",
    "http.get",
    "https.get",
    "require('http",
    'require("http',
    "lwp",
    "open-uri",
    "mshta",
    "regsvr32",
    "msiexec",
    "deno run",
  ],
];

/** A URL whose last segment is a script. */
/** A URL taken whole: what follows it cannot be its own tail, so a failed match never backtracks into it. */
const URL_END = String.raw`(?=[\s)"'<>]|$)>?`;
const SCRIPT_URL = String.raw`<?https?://[^\s)"'<>]{0,256}\.(?:sh|bash|zsh|ps1|psm1|py|pl|rb|js|cmd|bat)(?:[?#][^\s)"'<>]{0,64})?${URL_END}`;
const ANY_URL = String.raw`<?https?://[^\s)"'<>]{1,256}${URL_END}`;
/** What "it" is in "run it": the thing just downloaded. */
const IT = String.raw`(?:it|them|that|this|its\s{1,16}contents?|the\s{1,16}(?:script|installer|file|commands?|contents?|output|response|code|text|lines?|one-?liner|snippet)|whatever\s{1,16}(?:it|that|the\s{1,16}\w{1,32})\s{1,16}(?:returns|prints|serves|lists|outputs|gives|contains|says)|(?:each|every|all)\s{1,16}(?:of\s{1,16}the\s{1,16})?(?:commands?|lines?)(?:\s{1,16}(?:it|that\s{1,16}page|the\s{1,16}page)\s{1,16}(?:lists|contains|shows|gives))?)`;
/** What is run, named: "the install script", "the one-liner", "the output". */
const RUN_OBJECT = String.raw`(?:the\s{1,16}|this\s{1,16}|our\s{1,16}|whatever\s{1,16}|each\s{1,16}|every\s{1,16}|all\s{1,16}(?:the\s{1,16})?)?(?:[\w-]{1,32}\s{1,16})?(?:output|contents?|response|body|text|commands?|script|code|lines?|installer|one-?liner|snippet|instructions)`;
const SHELL_WORDS = String.raw`(?:bash|sh|zsh|fish|the\s{1,16}shell|a\s{1,16}shell|your\s{1,16}shell|(?:a|the|your)\s{1,16}terminal|terminal|(?:a|the|your)\s{1,16}console|powershell|pwsh|python[0-9.]{0,4}|node|perl|ruby|the\s{1,16}command\s{1,16}line)`;
/** Words up to 160 characters on, in one paragraph (a line break inside it included). */
const SAME_SENTENCE = String.raw`(?:[^\n]|\n(?![ \t]{0,16}\n)){0,160}?`;
/** A clause's worth: "curl the installer and pipe it into sh". */
const SHORT_SPAN = String.raw`(?:[^\n]|\n(?![ \t]{0,16}\n)){0,80}?`;
/** What tells the agent what a URL serves: what it returns. */
const SERVED = "(?:returns|prints|serves|lists|outputs|gives|contains|says)";

/**
 * The same in plain words: "download the installer from https://…/install.sh and run it",
 * "… and run it with bash", "paste them into your terminal", "paste the output of this URL into
 * your terminal", "execute the script at https://…", "run the command that https://… returns".
 */
export const REMOTE_CODE_INSTRUCTIONS = new RegExp(
  [
    // A script's URL, then "run it" / "execute the script".
    String.raw`${SCRIPT_URL}${SAME_SENTENCE}\b(?:run|execute|exec|source|launch|start)\s{1,16}${IT}\b`,
    // Any URL, then "run it with bash" / "pipe it into the shell" / "paste them into your terminal" / "execute whatever it returns".
    String.raw`${ANY_URL}${SAME_SENTENCE}\b(?:(?:(?:run|execute|exec|source|launch)\s{1,16}(?:${IT}\s{1,16})?(?:with|in|through|using|via|from)|(?:pipe|paste|feed|pass|type|enter|copy)\s{1,16}${IT}\s{1,16}(?:in|into|to|through))\s{1,16}${SHELL_WORDS}\b|(?:run|execute|exec|eval(?:uate)?)\s{1,16}whatever\s{1,16}(?:it|that|the\s{1,16}\w{1,32})\s{1,16}${SERVED})`,
    // "download … and run it with bash", "curl the installer and pipe it into sh", the URL given elsewhere.
    String.raw`\b(?:download|fetch|(?:curl|wget)\s{1,16}(?:to\s{1,16}(?:get|fetch|download|grab)\s{1,16})?(?:the|it|this|that|our|their|a|an)\b)${SHORT_SPAN}\b(?:(?:run|execute)\s{1,16}${IT}\s{1,16}(?:with|in|through|using|via)|(?:pipe|feed|paste|pass)\s{1,16}${IT}\s{1,16}(?:in|into|to|through))\s{1,16}${SHELL_WORDS}\b`,
    // "pipe https://…/install.sh into bash".
    String.raw`\b(?:pipe|feed)\s{1,16}${ANY_URL}\s{1,16}(?:in|into|to|through)\s{1,16}${SHELL_WORDS}\b`,
    // "paste the output of this URL into your terminal".
    String.raw`\b(?:paste|pipe|feed|run|execute|exec|source|evaluate|eval)\s{1,16}${RUN_OBJECT}\s{1,16}(?:of|from|at|on|returned\s{1,16}by|served\s{1,16}(?:at|by))\s{1,16}(?:this\s{1,16}|that\s{1,16}|the\s{1,16})?(?:url|link|page|address|endpoint|${ANY_URL})${SAME_SENTENCE}\b(?:in|into|to|with)\s{1,16}${SHELL_WORDS}\b`,
    // "run the commands from https://…", "run the install script from our CDN (https://…)", "run the command that https://… returns".
    String.raw`\b(?:run|execute|exec|source|evaluate|eval)\s{1,16}${RUN_OBJECT}\s{1,16}(?:(?:at|from|on|served\s{1,16}(?:at|by))\s{1,16}(?:[\w'-]{1,32}\s{1,16}){0,3}\(?${ANY_URL}|(?:that|which)\s{1,16}(?:the\s{1,16}(?:url|page|endpoint)\s{1,16})?${ANY_URL}\s{1,16}${SERVED})`,
  ].join("|"),
  "gi",
);

/** The download commands download-execute follows to see whether what they saved is run. */
export const DOWNLOAD_COMMAND =
  /\b(?:curl|wget|aria2c|iwr|Invoke-WebRequest|Start-BitsTransfer|certutil(?:\.exe)?|bitsadmin(?:\.exe)?)\b[^\n;&|]{0,400}|\.DownloadFile\s{0,16}\([^\n;]{0,400}|\burlretrieve\([\s\S]{0,400}?\b(?:os\.chmod|subprocess\.\w{1,64}|os\.system|os\.exec\w{1,8})\(/gi;

/** How far after a download its file may be run and still count as the same step. */
const RUN_WINDOW = 1200;
/** A checksum or signature checked between download and run: what a careful install does. */
const VERIFIED =
  /\b(?:sha(?:1|224|256|384|512)sum|shasum|b2sum|md5sum)\b[^\n]{0,256}(?:\s-c\b|--check\b|\|\s{0,16}grep\b|==|!=)|\bgpg2?\s{1,16}(?:--verify|-v)\b|\bcosign\s{1,16}verify|\bminisign\s{1,16}-V|\bGet-FileHash\b|\bopenssl\s{1,16}dgst\b|\bhashlib\.\w{1,16}\(|\bsha256(?:sum)?\s{0,16}=|\bsha256:\s{0,16}[0-9a-f]{64}|\bcheck_hash|\bverify_checksum/i;
/**
 * What the download was saved as: `-o f`, `-fsSLo f`, `-O f`, `--output f`, `-OutFile f`, `> f`,
 * `.DownloadFile(url, f)`, certutil's last argument.
 */
const SAVED_AS =
  /\s-[A-Za-z]{0,8}[oO](?:\s{1,16}|(?=["'$~./\\]))["']?([^\s"';|&]{1,256})|\s--output(?:-document)?[=\s]\s{0,16}["']?([^\s"';|&]{1,256})|\s-(?:OutFile|Destination)\s{1,16}["']?([^\s"';|&]{1,256})|>\s{0,16}["']?([^\s"';|&>]{1,256})|DownloadFile\s{0,16}\(\s{0,16}["'][^"'\n]{1,512}["']\s{0,16},\s{0,16}["']?([^"'\n)]{1,256})|["']-(?:o|O|-output(?:-document)?)["']\s{0,16},\s{0,16}["']?([^\s"',\])]{1,256})|^(?:certutil|bitsadmin)\b[^\n]{0,400}\s["']?([^\s"']{1,256})["']?\s{0,16}$/gi;
/** wget and aria2c save under the URL's last segment when told no name. */
const URL_NAME = /https?:\/\/[^\s"'?#]{0,256}\/([^\s"'/?#]{1,128})/i;
const ARCHIVE = /\.(?:tar\.gz|tgz|tar\.xz|txz|tar\.bz2|tar|zip)$/i;
/** Windows runs a program by its name alone. */
const WINDOWS_PROGRAM = /\.(?:exe|bat|cmd|com|msi|ps1|vbs|hta|scr)$/i;

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The names a saved download may be run by: its basename, or the variable holding it. */
function savedNames(command: string): string[] {
  const names = new Set<string>();
  SAVED_AS.lastIndex = 0;
  for (const m of command.matchAll(SAVED_AS)) {
    const value = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? m[6] ?? m[7] ?? "").replace(/["']/g, "");
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

/** A run of `name` in `after`: by a shell or interpreter, by its path at a command's start, made executable, or unpacked. */
function runOf(name: string): RegExp {
  const n = escaped(name);
  const path = String.raw`["']?(?:[^\s"'(\x60]{0,256}[\\/])?${n}(?![\w.-])`;
  const byName = WINDOWS_PROGRAM.test(name)
    ? String.raw`|(?:^|&&|\|\||[;&])\s{0,16}(?:start\s{1,16}(?:""\s{1,16})?)?["']?${n}(?![\w.-])`
    : "";
  return new RegExp(
    String.raw`(?:^|[\s;&|(\x60"'])(?:sudo\s{1,16})?(?:(?:ba|z|da|k)?sh|source|python[0-9.]{0,8}|perl|ruby|node|pwsh|powershell(?:\.exe)?|php|bun|deno|Start-Process|&|\.)\s{1,16}(?:-\S{1,16}\s{1,16}){0,3}${path}|(?:^|[;&|(]|\bthen|\bdo|\$\()\s{0,16}["']?(?:[^\s"'(\x60]{0,256}[\\/])${n}(?![\w.-])|\bchmod\s{1,16}(?:-\w{1,8}\s{1,16})?(?:[ugoa]{0,4}\+[rwx]{0,2}x|[0-7]?[0-7]{0,4}[1357][0-7]{0,4})\s{1,16}${path}|\b(?:tar|unzip|7z|bsdtar)\b[^\n]{0,256}${n}(?![\w.-])|\[\s{0,16}["'](?:[\w/]{0,32}/)?(?:(?:ba|z|da)?sh|python[0-9.]{0,8}|node|perl|ruby|pwsh|powershell)["']\s{0,16},\s{0,16}(?:["'][^"'\n]{0,16}["']\s{0,16},\s{0,16}){0,3}f?${path}${byName}`,
    "im",
  );
}
/** After an archive is unpacked: a program run by its path at a command's start. */
const RUN_BY_PATH =
  /(?:^|[;&|(]|\bthen|\bdo)\s{0,16}["']?(?:\.{1,2}|~|\$\{?\w{1,64}\}?|[\w.-]{0,64})?\/[\w./${}-]{1,256}(?=[\s"';&|)]|$)/m;
/** A download piped into `tee f`: saved as f. */
const PIPED_TEE =
  /^\s{0,16}\|\s{0,16}(?:sudo\s{1,16}(?:-\S{1,16}\s{1,16}){0,3})?tee\s{1,16}(?:-a\s{1,16})?["']?([^\s"';|&>]{1,256})/;
/** A download piped straight into an unpacker. */
const PIPED_UNPACK = /^\s{0,16}\|\s{0,16}(?:sudo\s{1,16})?(?:tar|bsdtar|busybox\s{1,16}tar|unzip|funzip)\b[^\n]{0,256}/;

/** Whether, in `after`, one of `names` is run with no checksum or signature checked first. */
function runs(after: string, names: readonly string[]): boolean {
  for (const name of names) {
    const run = runOf(name).exec(after);
    if (!run) continue;
    if (VERIFIED.test(after.slice(0, run.index))) continue;
    if (/\b(?:tar|unzip|7z|bsdtar)\b/i.test(run[0])) {
      if (ARCHIVE.test(name) && unpackedThenRun(after.slice(run.index + run[0].length))) return true;
      continue;
    }
    return true;
  }
  return false;
}

/** After an unpack: a program in it run by its path, no check in between. */
function unpackedThenRun(rest: string): boolean {
  const program = RUN_BY_PATH.exec(rest);
  return program !== null && !VERIFIED.test(rest.slice(0, program.index));
}

/**
 * download-execute's judge: a download counts when what it saved is run (or made executable, or,
 * an archive, unpacked and a program in it run) within RUN_WINDOW characters, with no checksum or
 * signature checked in between; a download piped into `tar` counts when a program is run after.
 */
export function savedThenRun({ text, start, end }: MatchContext): Severity | undefined | "keep" {
  const command = text.slice(start, end);
  if (/^urlretrieve/i.test(command)) return VERIFIED.test(command) ? undefined : "keep";
  const after = text.slice(end, end + RUN_WINDOW);
  const unpack = PIPED_UNPACK.exec(after);
  if (unpack && unpackedThenRun(after.slice(unpack[0].length))) return "keep";
  const names = savedNames(command);
  // `curl … | sudo tee /usr/local/bin/x`: saved by tee.
  const teed = PIPED_TEE.exec(after)?.[1]?.split(/[\\/]/).pop();
  if (teed) names.push(teed);
  return runs(after, names) ? "keep" : undefined;
}

/** Shell decoders whose output is code when it is run. */
const SHELL_DECODERS = String.raw`base(?:64|32)\s{1,16}(?:-[A-Za-z]{0,4}d|--decode|-D)\b|openssl\s{1,16}(?:base64|enc\s{1,16}-base64)\s{1,16}-d\b|xxd\s{1,16}-r\b|uudecode\b`;
/** Calls that decode (Python, JavaScript, PowerShell), for the names bound to what they return. */
const DECODE_CALLS = String.raw`b(?:64|32|16|85)decode|a85decode|decodebytes|decodestring|codecs\.decode|zlib\.decompress|bz2\.decompress|lzma\.decompress|gzip\.decompress|unhexlify|fromhex|marshal\.loads|atob\s{0,16}\(|Buffer\.from\([^\n)]{0,256}['"](?:base64|hex)|FromBase64String|String\.fromCharCode|unescape\s{0,16}\(|${SHELL_DECODERS}`;
const DECODER_MODULES = "base64|codecs|zlib|binascii|marshal|bz2|lzma|gzip";
/** A name bound to a decoder or to what one returned: an import, an alias, an assignment. */
const DECODER_BINDING = new RegExp(
  String.raw`\bfrom\s{1,16}(?:${DECODER_MODULES})\s{1,16}import\s{1,16}([\w ,]{1,256})|\bimport\s{1,16}(?:${DECODER_MODULES})\s{1,16}as\s{1,16}(\w{1,64})|(?:^|[\s;{(,])(?:const\s|let\s|var\s|local\s|export\s|\$)?\s{0,16}([A-Za-z_]\w{0,63})\s{0,16}=\s{0,16}[^\n;]{0,256}?(?:${DECODE_CALLS})`,
  "g",
);
/** Decoded text run directly: `| base64 -d | sh`, `eval "$(… | base64 -d)"`, `exec(base64.b64decode(…))`. */
const DECODE_RUN_DIRECT = [
  String.raw`\b(?:${SHELL_DECODERS})[^\n]{0,256}\|(?!\|)\s{0,16}${RUNS_STDIN}`,
  String.raw`(?:\B-[ce]|\b(?:eval|exec|source|${EVALUATORS}))\s{1,16}["']?(?:\$\(|\x60|<\()[^\n)]{0,256}\b(?:${SHELL_DECODERS})`,
  String.raw`\b(?:exec|eval)\s{0,16}\(\s{0,16}(?:compile\s{0,16}\(\s{0,16})?(?:base64\.b(?:64|32|16|85)decode|codecs\.decode|zlib\.decompress|bytes\.fromhex|binascii\.unhexlify|marshal\.loads|__import__\(\s{0,16}['"](?:${DECODER_MODULES})|bytes\s{0,16}\(\s{0,16}\[|(?:['"]{2}|str\(\s{0,16}['"]{2}\s{0,16}\))\.join\(\s{0,16}(?:chr\b|map\(\s{0,16}chr\b))`,
  String.raw`\beval\s{0,16}\(\s{0,16}compile\s{0,16}\(`,
  String.raw`\b(?:eval|Function|exec)\s{0,16}\(\s{0,16}(?:atob|unescape|decodeURIComponent|String\.fromCharCode|Buffer\.from\([^)]{0,256}['"](?:base64|hex)['"]\))`,
  String.raw`\bpowershell(?:\.exe)?\b[^\n]{0,256}\s-(?:e|ec|enc|encodedcommand)\s{1,16}[A-Za-z0-9+/=]{16}`,
  String.raw`\b(?:${EVALUATORS})\b[^\n]{0,256}FromBase64String|FromBase64String[^\n]{0,256}\|\s{0,16}(?:${EVALUATORS})\b`,
].join("|");
/** Decoded text written to a file: judged as a download is, by whether the file is then run. */
const DECODE_SAVED = String.raw`\b(?:${SHELL_DECODERS})[^\n;&|>]{0,200}>\s{0,16}["']?[^\s"';|&>]{1,256}`;
/** A name run as code: `eval "$P"`, `bash -c "$P"`, `iex $s`, `exec(d(…))`, `exec(b.b64decode(…))`, `new Function(src)`. */
const RUN_NAMED = String.raw`(?:\B-c|\b(?:eval|exec|source|${EVALUATORS}))\s{1,16}["']?\$\{?[A-Za-z_]\w{0,63}|\b(?:exec|eval|Function|execfile)\s{0,16}\(\s{0,16}(?:compile\s{0,16}\(\s{0,16})?[A-Za-z_][\w.]{0,128}`;

export const DECODE_EXECUTE = new RegExp(`${DECODE_RUN_DIRECT}|${DECODE_SAVED}|${RUN_NAMED}`, "gi");
const DIRECT = new RegExp(`^(?:${DECODE_RUN_DIRECT})`, "i");
const SAVED_DECODE = new RegExp(`^(?:${SHELL_DECODERS})`, "i");
const NAME_RUN =
  /^(?:eval|exec|source|iex|Invoke-Expression|-c|new\s{1,16}Function|Function|execfile)\s{0,16}\(?\s{0,16}(?:compile\s{0,16}\(\s{0,16})?["']?\$?\{?([A-Za-z_][\w.]{0,128})/i;

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
 * decode-execute's judge: a direct form is kept; decoded text saved to a file counts when the
 * file is run; a name run as code is kept when the name (or, for `b.b64decode`, its module `b`) is
 * bound to a decoder or to what a decoder returned, anywhere in the file.
 */
export function decodedThenRun({ text, start, end }: MatchContext): Severity | undefined | "keep" {
  const matched = text.slice(start, end);
  if (DIRECT.test(matched)) return "keep";
  if (SAVED_DECODE.test(matched))
    return runs(text.slice(end, end + RUN_WINDOW), savedNames(matched)) ? "keep" : undefined;
  const name = NAME_RUN.exec(matched)?.[1];
  if (name === undefined) return undefined;
  const names = decoderNames(text);
  return names.has(name) || names.has(name.split(".")[0]!) ? "keep" : undefined;
}

export const DECODE_EXECUTE_NEEDLES: readonly (readonly string[])[] = [
  [
    "base64",
    "decode",
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
    "frombase64",
    "xxd",
    "fromcharcode",
    "unescape",
    "chr(",
    "(chr",
    "bytes(",
  ],
];

/** Indexes that are the public registries (or a project's own documented wheel index): an install from them is no finding. */
const TRUSTED_PYPI = String.raw`(?!https://(?:pypi\.org|download\.pytorch\.org)/)`;
const TRUSTED_NPM = String.raw`(?!https://registry\.(?:npmjs\.org|yarnpkg\.com)\b)`;
const PIP = String.raw`\b(?:pip[0-9.]{0,4}|pipx|uv\s{1,16}pip|uv|python[0-9.]{0,8}\s{1,16}-m\s{1,16}pip)\s{1,16}(?:install|add)\b`;
const NPM = String.raw`\b(?:npm|pnpm|yarn|bun)\s{1,16}(?:install|i|add)\b`;
/** Runners that fetch a package and run it at once: `npx`, `bunx`, `pnpm dlx`, `uvx`, `pipx run`. */
const RUN_PACKAGE = String.raw`\b(?:npx|bunx|pnpm\s{1,16}dlx|yarn\s{1,16}dlx|uvx|pipx\s{1,16}run)\b`;

const RUNS_PACKAGE = new RegExp(`^${RUN_PACKAGE}`, "i");

/**
 * package-from-url: an install by URL or from another index (pip, uv, npm, gem, cargo), a package
 * run straight from a URL or a git repository (`npx https://…`, `npx github:…`, `uvx --from
 * git+https://…`), and the configuration that points every later install at another index
 * (`npm config set registry`, `PIP_INDEX_URL=`).
 */
export const PACKAGE_FROM_URL = new RegExp(
  [
    String.raw`${PIP}[^\n]{0,256}?(?:\s(?:git\+)?https?://\S{1,256}|\s--(?:extra-)?index(?:-url)?[=\s]\s{0,16}${TRUSTED_PYPI}\S{1,256}|\s-i\s{1,16}${TRUSTED_PYPI}https?://\S{1,256}|\s--trusted-host\b|\s--default-index[=\s]\s{0,16}${TRUSTED_PYPI}\S{1,256})`,
    String.raw`${NPM}[^\n]{0,256}?(?:\s(?:git\+)?https?://\S{1,256}\.(?:tgz|tar\.gz)\b|\s--registry[=\s]\s{0,16}${TRUSTED_NPM}\S{1,256})`,
    String.raw`${RUN_PACKAGE}[^\n]{0,256}?\s(?:--from[=\s]\s{0,16}|--spec[=\s]\s{0,16}|--package[=\s]\s{0,16})?["']?(?:(?:git\+)?https?://\S{1,256}|(?:github|gitlab|bitbucket):[\w.-]{1,64}/[\w.-]{1,64})`,
    String.raw`\b(?:npm|pnpm|yarn)\s{1,16}config\s{1,16}set\s{1,16}(?:@[\w-]{1,64}:)?(?:registry|npmRegistryServer)[=\s]\s{0,16}["']?${TRUSTED_NPM}\S{1,256}`,
    String.raw`\bpip[0-9.]{0,4}\s{1,16}config\s{1,16}set\s{1,16}(?:global|user|site)\.(?:extra-)?index-url[=\s]\s{0,16}["']?${TRUSTED_PYPI}\S{1,256}`,
    String.raw`\b(?:PIP_(?:EXTRA_)?INDEX_URL|UV_(?:EXTRA_|DEFAULT_)?INDEX(?:_URL)?|npm_config_registry|NPM_CONFIG_REGISTRY)\s{0,16}=\s{0,16}["']?${TRUSTED_PYPI}${TRUSTED_NPM}https?://\S{1,256}`,
    String.raw`(?:^|\n)[ \t]{0,16}(?:(?:extra-)?index-url|registry)\s{0,16}=\s{0,16}http://\S{1,256}`,
    String.raw`\bgem\s{1,16}install\b[^\n]{0,256}\s--source\s{1,16}\S{1,256}`,
    String.raw`\bcargo\s{1,16}install\b[^\n]{0,256}\s--(?:git|index|registry)[=\s]\s{0,16}\S{1,256}`,
  ].join("|"),
  "gi",
);

/** A package index no one can vouch for: plain HTTP, an IP address, TLS checks off, a tunnel or paste host. */
const UNSAFE_SOURCE =
  /http:\/\/(?!(?:localhost|127\.0\.0\.1|\[::1\])[:/])|https?:\/\/(?!127\.)(?:\d{1,3}\.){3}\d{1,3}\b|--trusted-host\b|\.ngrok(?:-free)?\.(?:io|app|dev)|trycloudflare\.com|\.loca\.lt\b|serveo\.net|transfer\.sh|pastebin\.com/i;
const PUBLIC_INDEX =
  /^https:\/\/(?:pypi\.org|files\.pythonhosted\.org|download\.pytorch\.org|registry\.npmjs\.org|registry\.yarnpkg\.com)\//;

/** package-from-url's judge: high from a source no one can vouch for, medium (it combines) otherwise. */
export function packageSource({ text, start, end }: MatchContext): Severity | undefined | "keep" {
  const matched = text.slice(start, end);
  // Fetched and run at once, or from a source no one can vouch for: remote code.
  if (RUNS_PACKAGE.test(matched) || UNSAFE_SOURCE.test(matched)) return "high";
  // The lazy gap stops at the first URL: an index option naming a public registry is no finding.
  const url = /https?:\/\/\S{1,256}$/.exec(matched)?.[0];
  return url !== undefined && PUBLIC_INDEX.test(url) ? undefined : "keep";
}

export const PACKAGE_FROM_URL_NEEDLES: readonly (readonly string[])[] = [
  [
    "pip",
    "uv",
    "npm",
    "npx",
    "bunx",
    "dlx",
    "yarn",
    "bun",
    "gem install",
    "cargo",
    "index_url",
    "index-url",
    "registry",
  ],
  ["http", "index", "--trusted-host", "registry", "--source", "--git", "github:", "gitlab:", "bitbucket:"],
];

/** Connections: netcat and friends. */
const NETCAT = String.raw`(?:nc|ncat|netcat|telnet|openssl\s{1,16}s_client)\b`;

/** reverse-shell: a shell whose input and output go to a remote host, in the ordinary spellings. */
export const REVERSE_SHELL = new RegExp(
  [
    String.raw`/dev/(?:tcp|udp)/[^\s/]{1,64}/\d{1,5}`,
    String.raw`/inet/(?:tcp|udp)/\d{1,5}/`,
    String.raw`\b${NETCAT}(?:[^\n|;]{0,256}\s(?:-[ec]|--exec|--sh-exec|--lua-exec)[\s=]\s{0,16}\S{0,64}(?:sh|cmd|\.exe)\b|[^\n|;]{0,256}\|\s{0,16}(?:/bin/)?(?:ba|z|da)?sh\b)`,
    String.raw`\bsocat\b[^\n]{0,256}\bexec:[^\n]{0,256}(?:sh|cmd)`,
    String.raw`\bmkfifo\b[^\n]{0,256}\|\s{0,16}${NETCAT}`,
    String.raw`-i\b(?<=\b(?:ba|z|da)?sh\s{1,16}-i)(?:[^\n]{0,256}\|\s{0,16}${NETCAT}|\s{0,16}[<>]&\s{0,16}[\d%$])`,
    String.raw`\bopen\s{0,16}\(\s{0,16}STD(?:IN|OUT|ERR)\s{0,16},\s{0,16}["'][<>]&`,
    String.raw`\bpty\.spawn\(\s{0,16}['"][^'"]{0,64}(?:ba|z)?sh['"]`,
    String.raw`\bos\.dup2\(\s{0,16}\w{1,64}\.fileno\(\)\s{0,16},\s{0,16}[012]\s{0,16}\)`,
    String.raw`\bstdin\s{0,16}=\s{0,16}\w{1,64}\.fileno\(\)`,
    String.raw`\bspawn\(\s{0,16}['"](?:/bin/)?(?:ba|z)?sh['"][\s\S]{0,400}?\.pipe\(`,
    String.raw`\bNet\.Sockets\.TCPClient\([\s\S]{0,800}?\b(?:iex|Invoke-Expression)\b`,
    String.raw`\bfsockopen\([\s\S]{0,256}?(?:/bin/)?(?:ba)?sh\b`,
    String.raw`\bssh\b[^\n]{0,128}\s-[A-Za-z]{0,8}R\s{0,4}(?:[\w.*]{1,64}:)?\d{1,5}:(?:localhost|127\.0\.0\.1|0\.0\.0\.0):22\b`,
  ].join("|"),
  "gi",
);

export const REVERSE_SHELL_NEEDLES: readonly (readonly string[])[] = [
  [
    "/dev/tcp",
    "/dev/udp",
    "/inet/",
    " -e ",
    " -c ",
    "-exec",
    "socat",
    "mkfifo",
    "sh -i",
    "nc ",
    "ncat",
    "netcat",
    "telnet",
    "s_client",
    "open(std",
    "pty.spawn",
    "dup2",
    "fileno()",
    "spawn(",
    "tcpclient",
    "fsockopen",
    "ssh",
  ],
];

/** crypto-miner: miners by name, their pools and protocols, and their options. */
export const CRYPTO_MINER =
  /\bxmrig\b|\bxmr-stak\b|stratum\+(?:tcp|ssl|tls):\/\/|\b(?:cpuminer|minerd|ethminer|nbminer|t-rex|lolminer|phoenixminer|minergate|nicehash|teamredminer|gminer|srbminer)\b|--donate-level\b|\bcoinhive\b|\bcryptonight\b|\b(?:supportxmr|moneroocean|c3pool|nanopool|2miners|unmineable|hashvault|minexmr)\.(?:com|org|net|stream|pro)\b|--algo[=\s]\s{0,16}(?:rx\/0|randomx|cn\/|kawpow|ethash)/gi;

export const CRYPTO_MINER_NEEDLES: readonly (readonly string[])[] = [
  [
    "xmr",
    "miner",
    "stratum+",
    "t-rex",
    "nicehash",
    "--donate-level",
    "coinhive",
    "cryptonight",
    "monero",
    "c3pool",
    "nanopool",
    "unmineable",
    "hashvault",
    "--algo",
  ],
];

/** The fixed patterns of the checks, for the linear-time proof. */
export const CODE_EXECUTION_PATTERNS: readonly RegExp[] = [
  VERIFIED,
  SAVED_AS,
  RUN_BY_PATH,
  PIPED_UNPACK,
  PIPED_TEE,
  runOf("x.sh"),
  runOf("x.exe"),
  DECODER_BINDING,
  DIRECT,
  SAVED_DECODE,
  NAME_RUN,
  UNSAFE_SOURCE,
  RUNS_PACKAGE,
  PUBLIC_INDEX,
  URL_NAME,
  PIPED_PROGRAM,
];
