"""Code that would run without anyone reading it first: downloads run as programs, code piped
into a shell or an interpreter from something unreadable, programs held in variables, and what
literal interpreter code (`python3 -c`, `perl -e`, `awk`) does.

The rules take the guard's judge to read the code they find as the guard reads a line.
"""

from __future__ import annotations

import posixpath
from itertools import pairwise

from bridge.guards.dangerous.targets import Unknown
from bridge.shell import Lazy
from bridge.shell.runners import SHELLS, STDIN_FILES, interpreter, program
from bridge.shell.syntax import Pipeline, SimpleCommand, Unparseable, parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from bridge.guards.dangerous.dangerous_shell import Judge
    from bridge.guards.dangerous.targets import Place

DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request"})
# Commands whose output is code nobody wrote down: running it runs something unread.
DECODERS = frozenset(
    {"base64", "base32", "basenc", "xxd", "openssl", "uudecode", "gunzip", "zcat", "gzip"}
    | {"bzip2", "bzcat", "xz", "xzcat", "unxz", "zstd", "zstdcat", "rev", "tr", "sed", "awk"}
)
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
OPAQUE = Lazy(r"\s*(\$\w+|\$\{[^}]*\}|\$[@*0-9])\s*")  # a program that is only a variable
_ECHO_OPTIONS = Lazy(r"-[neE]+")


def runs_downloaded_code(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`bash -c "$(curl ...)"`, `bash <(curl ...)`, `eval "$(wget -O- ...)"`."""
    source = program(command.argv, command.redirects)
    if command.name not in ("eval", "source", ".") and (
        source is None
        or source.kind == "module"
        or (source.kind == "file" and not source.text.startswith("<("))
    ):
        return None
    for inner in command.nested:
        for fetched in inner.commands():
            if fetched.name in DOWNLOADERS:
                return f"runs code fetched by {fetched.name} without anyone reading it first"
            if fetched.name in DECODERS:
                return f"runs code decoded by {fetched.name}, which nobody can read first"
    return None


def interpreter_code(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`python3 -c ...`, `perl -MFile::Path -e ...`, `awk 'BEGIN{system(...)}'`, `python3 - <<EOF`.

    Every static word is read as code, not only the one the options point at: interpreters'
    option syntax is too varied (`-MFile::Path -e`, `-pie`) to trust one reading of it.
    """
    source = program(command.argv, command.redirects)
    if command.name not in _AWKS and (source is None or interpreter(command.argv) in SHELLS):
        return None  # shell code is parsed into `nested` already
    if source is not None and source.kind == "inline" and OPAQUE.fullmatch(source.text):
        text = source.text.strip()
        return Unknown(f"runs the code held in {text}, which cannot be read before it runs")
    here = [source.text] if source is not None and source.kind == "stdin" else []
    words = [w for i, w in enumerate(command.argv) if i and i not in command.dynamic]
    for code in (*here, *words):
        if reason := judge.code(code, place):
            return reason
    return None


_BUILT = "builds the code piped into {} from values only known at run time"


def piped_code(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`echo '...' | sh`, `base64 -d x | sh`, `printf ... | python3`: the code in the pipe."""
    source = program(command.argv, command.redirects)
    reads_pipe = not any(r.op.startswith("<") for r in command.redirects)
    if feeder is None or source is None or source.kind != "stdin" or not reads_pipe:
        return None
    runner = command.name
    here = [r for r in feeder.redirects if r.op in ("<<", "<<-", "<<<")]
    if feeder.name == "cat" and here:
        # (a here-document's expansions are read as the code's own, as for `bash <<EOF`)
        if any(r.dynamic and r.op == "<<<" for r in here):
            return Unknown(_BUILT.format(runner))
        texts = [r.target if r.body is None else r.body for r in here]
    elif feeder.name == "cat" and not feeder.dynamic and not feeder.more_args:
        return None  # like `sh FILE`: a file is as readable as the command that runs it
    elif feeder.name not in ("echo", "printf"):
        shown = f"pipes the output of `{' '.join(feeder.words)}` into {runner}, which runs code "
        if feeder.name in DECODERS:  # hidden on purpose: decoded code is never shown first
            return shown + "nobody can read before it runs"
        return Unknown(shown + "only known when it runs")
    elif feeder.dynamic:
        return Unknown(_BUILT.format(runner))
    else:
        words = [w for w in feeder.argv[1:] if not _ECHO_OPTIONS.fullmatch(w)]
        texts = [" ".join(words), *words]
    for text in texts:
        code = text.replace("\\n", "\n")
        if interpreter(command.argv) in SHELLS:
            script = parse(code)
            if isinstance(script, Unparseable):
                return f"cannot read the code piped into {runner}: {script.reason}"
            reason = judge.script(script, place)
        else:
            reason = judge.code(code, place)
        if reason:
            return f"runs the code piped into it: {reason}"
    return None


def saved_downloads(command: SimpleCommand) -> set[str]:
    """Files a downloader writes: `curl -o F`, `curl -O URL`, `wget URL`, `wget -O F`, `> F`."""
    if command.name not in DOWNLOADERS:
        return set()
    argv = command.argv
    saved = {posixpath.normpath(r.target) for r in command.redirects if r.writes}
    letter = "o" if command.name == "curl" else "O"  # the short option naming the file
    for option, value in pairwise(argv):
        names_file = option in ("-o", "--output", "--output-document", f"-{letter}") or (
            option[:1] == "-" and option[1:2] != "-" and option.endswith(letter)  # `-sSLo F`
        )
        if names_file and not value.startswith("-"):
            saved.add(posixpath.normpath(value))
        elif option[:1] == "-" and option[1:2] != "-" and letter in option[2:-1]:
            attached = option[option.index(letter, 1) + 1 :]  # `-qO/tmp/x`
            saved.add(posixpath.normpath(attached))
    clusters = [w for w in argv if w[:1] == "-" and w[1:2] != "-"]
    remote_name = (
        command.name == "wget"
        or "--remote-name" in argv
        or (command.name == "curl" and any("O" in w[1:] for w in clusters))
    )
    if remote_name and not saved:
        urls = [w for w in argv if "://" in w]
        saved |= {posixpath.basename(u.split("?")[0]) for u in urls}
    return saved - {"-", "."}


def script_file(command: SimpleCommand) -> str:
    """The file a command runs as a script (`sh f`, `python3 f`, `source f`), or ""."""
    source = program(command.argv, command.redirects)
    ran = command.argv[1] if command.name in ("source", ".") and len(command.argv) > 1 else ""
    return source.text if source is not None and source.kind == "file" else ran


def runs_saved(command: SimpleCommand, downloaded: set[str]) -> str | None:
    if not downloaded or not command.argv:
        return None
    ran = script_file(command) or (command.argv[0] if "/" in command.argv[0] else "")
    if ran and posixpath.normpath(ran) in downloaded | {posixpath.basename(p) for p in downloaded}:
        return f"runs {ran}, downloaded earlier in this command, without anyone reading it first"
    return None


def teed_downloads(pipeline: Pipeline, index: int) -> set[str]:
    """`curl URL | tee f`: the files a `tee` after a download writes hold the download."""
    command = pipeline.commands[index]
    fetched = any(c.name in DOWNLOADERS for c in pipeline.commands[:index])
    if command.name != "tee" or not fetched:
        return set()
    return {posixpath.normpath(w) for w in command.argv[1:] if not w.startswith("-")}


_AWK_OR_SED = frozenset({*_AWKS, "sed", "gsed"})
_EDITORS = frozenset({"vim", "vi", "nvim", "ex", "view"})
_STDIN_CODE = Lazy(
    r"\b(?:exec|eval|compile)\s*\(\s*(?:input\s*\(|sys\.stdin|open\s*\(\s*['\"]/dev/stdin"
    r"|STDIN|process\.stdin|fs\.readFileSync\s*\(\s*0)|\beval\s*\(?\s*<STDIN>"
    r"|\beval\s*\(?\s*\$stdin\.read|\beval\s+`cat`"
)


def runs_code_from_stdin(command: SimpleCommand) -> bool:
    """Whether the command runs, as a program, what it reads on its standard input: a shell
    or interpreter without a program, `source /dev/stdin`, `make -f -`, `ed`, `vim -es`,
    `sqlite3` (its dot-commands run programs), `awk -f -`, `sed -f -`, `exec(input())`."""
    if any(r.op.startswith("<") for r in command.redirects):
        return False
    source = program(command.argv, command.redirects)
    if source is not None:
        return source.kind == "stdin" or (
            source.kind == "inline" and bool(_STDIN_CODE.search(source.text))
        )
    name, argv = command.name, command.argv
    stdin = STDIN_FILES | {"-"}
    files = {v for o, v in pairwise(argv) if o in ("-f", "--file", "--makefile")}
    files |= {w.split("=", 1)[1] for w in argv if w.startswith(("--file=", "--makefile="))}
    if name in ("source", ".") or name in _AWK_OR_SED or name in ("make", "gmake"):
        return bool((files | set(argv[1:2] if name in ("source", ".") else ())) & stdin)
    if name in ("ed", "red"):
        return True
    if name in _EDITORS:
        return name == "ex" or any(w[:1] == "-" and "e" in w[1:] for w in argv[1:])
    return name in ("sqlite3", "sqlite") and len([w for w in argv[1:] if w[:1] != "-"]) <= 1


def download_into_interpreter(pipeline: Pipeline) -> str | None:
    fetcher = ""
    for command in pipeline.commands:
        if fetcher and runs_code_from_stdin(command):
            return (
                f"dangerous pipeline: a download by {fetcher} is piped into {command.name}, "
                "which runs code from the network without anyone reading it first"
            )
        fetched = [c.name for inner in command.nested for c in inner.commands()]
        fetcher = next((n for n in (command.name, *fetched) if n in DOWNLOADERS), fetcher)
    return None
