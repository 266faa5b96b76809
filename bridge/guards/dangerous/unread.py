"""Code that would run without anyone reading it first: downloads run as programs, code piped
into a shell or an interpreter from something unreadable, programs held in variables, and what
literal interpreter code (`python3 -c`, `perl -e`, `awk`) does.

The rules take the guard's judge to read the code they find as the guard reads a line.
"""

from __future__ import annotations

import posixpath
from itertools import pairwise

from bridge.shell.lazyre import Lazy
from bridge.shell.syntax import (
    SHELLS,
    Pipeline,
    SimpleCommand,
    Unparseable,
    interpreter,
    parse,
    program,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from bridge.guards.dangerous.dangerous import Judge
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
        return f"runs the code held in {source.text.strip()}, which cannot be read before it runs"
    here = [source.text] if source is not None and source.kind == "stdin" else []
    words = [w for i, w in enumerate(command.argv) if i and i not in command.dynamic]
    for code in (*here, *words):
        if reason := judge.code(code, place):
            return reason
    return None


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
        if any(r.dynamic for r in here):
            return f"builds the code piped into {runner} from values only known at run time"
        texts = [r.target if r.body is None else r.body for r in here]
    elif feeder.name == "cat" and not feeder.dynamic and not feeder.more_args:
        return None  # like `sh FILE`: a file is as readable as the command that runs it
    elif feeder.name not in ("echo", "printf"):
        return (
            f"pipes the output of `{' '.join(feeder.words)}` into {runner}, which runs code "
            "nobody can read before it runs"
        )
    elif feeder.dynamic:
        return f"builds the code piped into {runner} from values only known at run time"
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
    for option, value in pairwise(argv):
        names_file = option in ("-o", "--output", "--output-document") or (
            option == "-O" and command.name != "curl"  # curl's -O takes no value
        )
        if names_file and not value.startswith("-"):
            saved.add(posixpath.normpath(value))
    remote_name = command.name == "wget" or any(w in ("-O", "--remote-name") for w in argv)
    if remote_name and not saved:
        urls = [w for w in argv if "://" in w]
        saved |= {posixpath.basename(u.split("?")[0]) for u in urls}
    return saved - {"-", "."}


def runs_saved(command: SimpleCommand, downloaded: set[str]) -> str | None:
    if not downloaded or not command.argv:
        return None
    source = program(command.argv, command.redirects)
    ran = command.argv[1] if command.name in ("source", ".") and len(command.argv) > 1 else ""
    ran = source.text if source is not None and source.kind == "file" else ran
    ran = ran or (command.argv[0] if "/" in command.argv[0] else "")
    if ran and posixpath.normpath(ran) in downloaded | {posixpath.basename(p) for p in downloaded}:
        return f"runs {ran}, downloaded earlier in this command, without anyone reading it first"
    return None


def download_into_interpreter(pipeline: Pipeline) -> str | None:
    fetcher = ""
    for command in pipeline.commands:
        source = program(command.argv, command.redirects)
        reads_pipe = not any(r.op.startswith("<") for r in command.redirects)
        if fetcher and source is not None and source.kind == "stdin" and reads_pipe:
            return (
                f"dangerous pipeline: a download by {fetcher} is piped into {command.name}, "
                "which runs code from the network without anyone reading it first"
            )
        fetched = [c.name for inner in command.nested for c in inner.commands()]
        fetcher = next((n for n in (command.name, *fetched) if n in DOWNLOADERS), fetcher)
    return None
