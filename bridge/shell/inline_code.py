"""Code handed to an interpreter as text (`python -c`, `perl -e`, `node -e`, a here-document).

Not a parser for five languages: it finds the calls that run shell commands or delete whole
trees (`os.system("...")`, `subprocess.run([...])`, perl's `system` and backquotes, node's
`execSync`, `shutil.rmtree(...)`, `fs.rmSync(...)`, `FileUtils.rm_rf(...)`) and hands what
they are given to the shell judge and the target judge. The code itself is also read as shell,
since `perl -e "rm -rf /"`-style confusions are cheap to catch.
"""

from __future__ import annotations

import re
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Iterator

_STRING = r"""(?P<prefix>[rbuf]?)(?P<q>['"])(?P<text>(?:\\.|(?!(?P=q)).)*)(?P=q)"""
_ARGUMENT_END = re.compile(r"\s*[),]")  # else the string is built on: `"rm -rf " + path`
_FIELD = re.compile(r"\{[^}]*\}")
_SHELL_CALL = re.compile(
    r"\b(?:system|popen|exec[A-Za-z]*|spawn[A-Za-z]*|call|run|check_output|check_call|Popen"
    r"|getoutput|getstatusoutput|qx)\s*\(?\s*" + _STRING,
    re.DOTALL,
)
_COMPUTED_CALL = re.compile(
    r"\b(?P<call>system|popen|execSync)\s*\(\s*(?![rbuf]?['\"])(?P<arg>[^)]*)"
)
_BACKTICKS = re.compile(r"`([^`]+)`|\bqx\s*[{(]([^})]*)[})]|%x\(([^)]*)\)")
# A list display (not a subscript such as `sys.argv[1:]`: no name, `)` or `]` right before it),
# one level of subscripts inside (`[sys.argv[1], "-rf", p]`).
_LIST = re.compile(r"(?<![\w)\]}'\"])\[((?:[^\[\]]|\[[^\[\]]*\])*)\]")
# What comes right before a list a call runs as a command: `subprocess.run(`, `Popen(`.
_RUNS_LIST = re.compile(
    r"\b(?:system|popen|exec[A-Za-z]*|spawn[A-Za-z]*|call|run|check_output|check_call|Popen"
    r"|getoutput|getstatusoutput)\s*\(\s*$"
)
_LITERAL = re.compile(_STRING, re.DOTALL)
_TREE_DELETE = re.compile(
    r"\b(?P<call>rmtree|remove_tree|rm_rf|rm_r|remove_dir|remove_entry_secure|rmSync"
    r"|(?:fs|promises|fsp)\.rm|rmdirSync|rimraf(?:\.sync)?|Deno\.remove)\s*\(?\s*(?P<arg>[^,)\n;]*)",
)

# awk's `"cmd" | getline` and `print | "cmd"`, which run cmd with the shell.
_AWK_PIPE = re.compile(
    r"""(?P<q>["'])(?P<text>(?:\\.|(?!(?P=q)).)*)(?P=q)\s*\|&?\s*getline"""
    r"""|\|&?\s*(?P<q2>["'])(?P<text2>(?:\\.|(?!(?P=q2)).)*)(?P=q2)"""
)
# A program and its arguments as separate literals: `execFileSync('rm', ['-rf', p])`,
# `spawn("rm", [...])`, perl's `system("rm", "-rf", "/")` or `system 'rm', '-rf', '/'`.
_ARGV_CALL = re.compile(
    r"\b(?:system|exec|execFile(?:Sync)?|spawn(?:Sync)?|execvp?e?|execl|Popen|run|call"
    r"|check_call|check_output)\s*\(?\s*(?P<args>(?:[rbuf]?(?P<q>['\"])(?:\\.|(?!(?P=q)).)*(?P=q)"
    r"\s*,\s*)+(?:\[[^\[\]]*\]|[^;\n)]*))"
)
# A loop that forks without end: `fork while 1`, `while(1){fork}`, `while True: os.fork()`.
_FORK_LOOP = re.compile(
    r"\bfork\b[^;\n]*\bwhile\s*\(?\s*(?:1|true|True)\b"
    r"|\b(?:while|loop|until)\b[^;\n]{0,20}?(?:1|true|True|\{)[^\n]{0,40}?\bfork\s*\("
    r"|\bwhile\s*\(?\s*(?:1|true|True)\s*\)?\s*[:{;]?\s*(?:os\.|Process\.)?fork\b"
)
# Code fetched and run at once: `exec(urlopen(URL).read())`, `eval(requests.get(URL).text)`.
_FETCH_AND_RUN = re.compile(
    r"\b(?:exec|eval|compile)\s*\([^;\n]*\b(?:urlopen|urlretrieve|requests\.get|httpx\.get"
    r"|urllib|http\.client|fetch|Net::HTTP|open-uri|LWP|HTTP::Tiny)\b"
)
# Expressions whose value is known: the working directory, as the judge spells it.
_CWD = re.compile(r"\b(?:os\.getcwd\(\)|process\.cwd\(\)|Dir\.pwd|getcwd\(\))")

# The home directory, as interpreters spell it.
_HOME_EXPRESSION = (
    r"(?:Dir\.home|os\.homedir\(\)|(?:pathlib\.)?Path\.home\(\)|process\.env\.HOME"
    r"|os\.path\.expanduser\(\s*['\"]~['\"]\s*\)|File\.expand_path\(\s*['\"]~['\"]\s*\)"
    r"|os\.environ\[\s*['\"]HOME['\"]\s*\]|os\.getenv\(\s*['\"]HOME['\"]\s*\)"
    r"|ENV\[\s*['\"]HOME['\"]\s*\]|\$ENV\{\s*['\"]?HOME['\"]?\s*\})"
)
_HOME = re.compile(rf"^{_HOME_EXPRESSION}$")
_HOME_ADDED = re.compile(rf"\s*\+\s*{_HOME_EXPRESSION}\s*[),]")

ShellJudge = Callable[[str], str | None]
TargetJudge = Callable[[str], str | None]


def code_objection(
    code: str,
    shell: ShellJudge,
    target: TargetJudge,
    unknown: Callable[[str], str] = str,
    as_text: ShellJudge | None = None,
) -> str | None:
    """The first harm found in `code`: a shell command it runs, or a tree it deletes. A reason
    about what only the run would tell (a command or path computed by the code) is made with
    `unknown`; the shell judge is asked about the literal commands first. `as_text` judges the
    code itself read as shell (not shell at all: only its literal harms count), else `shell`."""
    if _FORK_LOOP.search(code):
        return "fork bomb: the code forks in an endless loop until the machine stops responding"
    if found := _FETCH_AND_RUN.search(code):
        return "runs code it fetches from the network without anyone reading it first"
    unsure = None
    questions = unknown is not str  # a caller that tells questions apart: look for a harm on
    for index, command in enumerate(_shell_commands(code)):
        judge = as_text if index == 0 and as_text is not None else shell
        if reason := judge(command):
            if type(reason) is not str:  # a question (the judge's `Unknown`): look further
                unsure = unsure or reason
                continue
            return reason
    if found := _COMPUTED_CALL.search(code):
        reason = unknown(
            f"cannot tell what this runs: {found['call']}({found['arg'].strip()}) runs a "
            "command only known when the code runs"
        )
        if not questions:
            return reason
        unsure = unsure or reason
    for found in _TREE_DELETE.finditer(code):
        call, arg = found["call"], found["arg"].strip()
        if call.endswith((".rm", "rmdirSync")) and not _recursive_rm(code, found.end()):
            continue
        closed = arg + ")" * (arg.count("(") - arg.count(")"))  # the match stops at a `)`
        literal = _LITERAL.fullmatch(arg) or _LITERAL.fullmatch(_HOME.sub("'$HOME'", closed))
        if literal is None:
            reason = unknown(
                f"cannot tell what this deletes: {call}({arg}) removes a whole tree "
                "whose path is only known when the code runs"
            )
            if not questions:
                return reason
            unsure = unsure or reason
        elif what := target(literal["text"]):
            return f"{call} recursively deletes {what}"
    return unsure


def _shell_commands(code: str) -> Iterator[str]:
    yield code
    for found in _SHELL_CALL.finditer(code):
        text = found["text"]  # what is only known at run time becomes a `$X` the judge sees
        text = _FIELD.sub("$X", text) if "f" in found["prefix"] else text
        if _ARGUMENT_END.match(code, found.end()):
            yield text
        else:  # built on: a known home directory stays known, anything else is `$X`
            home = _HOME_ADDED.match(code, found.end())
            yield text + ("$HOME" if home else "$X")
    for found in _BACKTICKS.finditer(code):
        yield next(group for group in found.groups() if group is not None)
    for found in _LIST.finditer(code):
        first = found[1].split(",", 1)[0].strip()
        # A list of data (`[1, 2]`, `[a for a in b]`) is no command: a list is read as one when
        # a program name starts it or a call runs it (`run([cmd, "-x"])`).
        if _LITERAL.fullmatch(first) or _RUNS_LIST.search(
            code[max(0, found.start() - 40) : found.start()]
        ):
            yield _words(found[1])
    for found in _ARGV_CALL.finditer(code):
        yield _words(found["args"].replace("[", "").replace("]", ""))
    for found in _AWK_PIPE.finditer(code):
        yield found["text"] if found["text"] is not None else found["text2"]
    if "\\" in code:  # `system("rm\040-rf\040/")`: the string as the interpreter decodes it
        decoded = _C_ESCAPE.sub(_decode, code)
        if decoded != code:
            yield from _shell_commands(decoded)


_C_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]{2})|([nt]))")


def _decode(found: re.Match[str]) -> str:
    octal, hexadecimal, letter = found.groups()
    if letter:
        return "\n" if letter == "n" else "\t"
    return chr(int(octal, 8) if octal else int(hexadecimal, 16))


def _words(items: str) -> str:
    """Comma-separated items as shell words: literals quoted, the working directory as
    `$(pwd)`, anything else computed as `$X`."""
    words = []
    for item in items.split(","):  # commas inside a literal: rare, and only make more words
        item = _CWD.sub("$(pwd)", item.strip())
        parts = [_LITERAL.fullmatch(p.strip()) for p in item.split("+")]
        if item and all(parts):
            words.append(_quote("".join(p["text"] for p in parts if p)))
        elif item:
            texts = item.split("+")
            pieces = [
                p["text"] if p else ("$(pwd)" if t.strip() == "$(pwd)" else "$X")
                for p, t in zip(parts, texts, strict=True)
            ]
            words.append("".join(pieces))
    return " ".join(words)


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _recursive_rm(code: str, end: int) -> bool:
    """Node's `fs.rm(path, {recursive: true})`: only the recursive form deletes trees."""
    return "recursive" in code[end : end + 200]
