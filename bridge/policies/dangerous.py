"""A guard against Bash commands that wreck the machine, the disk, the project or shared history.

Judged on the parsed command (`bridge.policies.shell`), never on raw text: `echo "rm -rf /"`
passes, `true && sudo rm -rf /` does not, and a command it cannot parse is denied. One rule
instead of a longer list: when a destructive verb is given something that is only known at run
time (`rm -rf "$X"`, `rm -rf /h*`, `xargs rm -rf`, a relative path after `cd "$D"`), it denies
with "cannot tell what this deletes" unless the known part lies inside the project. Code handed
to a shell or an interpreter is read when it is literal and denied as unreadable when it is not.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from fnmatch import fnmatchcase
from itertools import pairwise

from bridge.pipeline import Execution, Guard
from bridge.policies.git_rules import DEFAULT_ON, RULES, git_objection
from bridge.policies.shell import (
    SHELLS,
    Pipeline,
    Script,
    SimpleCommand,
    Unparseable,
    bash_script,
    interpreter,
    parse,
    program,
)
from bridge.policies.targets import Place, Unknown, beneath, home, resolve, target
from bridge.policies.variables import with_literal_values

TYPE_CHECKING = False
if TYPE_CHECKING:  # `typing` is not imported on a hook call
    from collections.abc import Iterable

BLOCK_DEVICES = (
    "sd*", "hd*", "vd*", "xvd*", "nvme*", "mmcblk*", "disk*", "rdisk*", "loop*", "dm-*",
    "md*", "mapper/*", "sr*", "nbd*", "zram*",
)  # fmt: skip
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request"})
# Commands whose output is code nobody wrote down: piping it into a shell runs it unread.
DECODERS = frozenset(
    {"base64", "base32", "basenc", "xxd", "openssl", "uudecode", "gunzip", "zcat", "gzip"}
    | {"bzip2", "bzcat", "xz", "xzcat", "unxz", "zstd", "zstdcat", "rev", "tr", "sed", "awk"}
)
_DEVICE_WRITERS = frozenset({"tee", "cp", "shred", "wipefs", "blkdiscard", "truncate"})
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_POWER = frozenset({"shutdown", "reboot", "halt", "poweroff"})
_OPAQUE = re.compile(r"\s*(\$\w+|\$\{[^}]*\}|\$[@*0-9])\s*")  # a program that is only a variable
_ECHO_OPTIONS = re.compile(r"-[neE]+")

_Rule = Callable[["_Judge", SimpleCommand, Place, SimpleCommand | None], str | None]


def configure(allow: Iterable[str] = (), deny: Iterable[str] = ()) -> Guard:
    """The guard with git rules switched off (`allow`) or on (`deny`), by name (see `RULES`)."""
    allow, deny = set(allow), set(deny)
    if unknown := (allow | deny) - RULES.keys():
        raise ValueError(f"unknown rule {sorted(unknown)}; known: {', '.join(RULES)}")
    enabled = frozenset((DEFAULT_ON - allow) | deny)

    def dangerous_shell(execution: Execution) -> str | None:
        """Deny a Bash call that is destructive beyond repair, or that cannot be parsed safely."""
        if execution.tool_name != "Bash":
            return None
        script = bash_script(execution.input)
        if isinstance(script, str):
            return script
        source = str(execution.input["command"])
        for variant in with_literal_values(script, source):
            if reason := objection(variant, execution.cwd, enabled):
                return reason
        return None

    return dangerous_shell


def objection(script: Script, cwd: str = "", enabled: frozenset[str] = DEFAULT_ON) -> str | None:
    """The first dangerous thing the script (or anything nested in it) would do."""
    return _Judge(enabled).script(script, Place.of(cwd))


def _show(command: SimpleCommand) -> str:
    redirects = (f"{r.fd}{r.op} {r.target}" for r in command.redirects if r.body is None)
    text = " ".join((*command.words, *redirects))
    return text if len(text) <= 200 else text[:197] + "..."


def _flags(argv: tuple[str, ...]) -> Iterable[str]:
    """Options before `--`, short clusters split into single letters (`-rf` -> -r, -f)."""
    for word in argv[1:]:
        if word == "--":
            return
        if word.startswith("--"):
            yield word
        elif word.startswith("-") and len(word) > 1:
            yield from (f"-{letter}" for letter in word[1:])


def _operands(argv: tuple[str, ...]) -> list[int]:
    """Indexes of the operands: words that are not options, and every word after `--`."""
    cut = argv.index("--", 1) if "--" in argv[1:] else len(argv)
    plain = [i for i in range(1, cut) if argv[i] == "-" or not argv[i].startswith("-")]
    return plain + list(range(cut + 1, len(argv)))


def block_device(path: str) -> bool:
    path = posixpath.normpath(path)
    return path.startswith("/dev/") and any(fnmatchcase(path[5:], p) for p in BLOCK_DEVICES)


def _describe(what: str, verb: str, harm: str) -> str:
    if isinstance(what, Unknown):
        return f"cannot tell what this {verb}: {what}"
    return f"{harm} {what}"


class _Judge:
    def __init__(self, enabled: frozenset[str]) -> None:
        self.enabled = enabled

    def script(self, script: Script, place: Place) -> str | None:
        downloaded: set[str] = set()
        for pipeline in script.pipelines:
            if reason := _fork_bomb(pipeline, script.functions) or _download_into_interpreter(
                pipeline
            ):
                return reason
            for i, command in enumerate(pipeline.commands):
                for inner in command.nested:
                    if reason := self.script(inner, place):
                        return reason
                feeder = pipeline.commands[i - 1] if i else None
                here = _wrapper_cwd(command, place)
                if reason := self.command(command, here, feeder) or _runs_saved(
                    command, downloaded
                ):
                    return f"dangerous command `{_show(command)}`: {reason}"
                downloaded |= _saved_downloads(command)
                place = _after_cd(command, place)
        return None

    def command(
        self, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
    ) -> str | None:
        for rule in _RULES:
            if reason := rule(self, command, place, feeder):
                return reason
        return git_objection(command, self.enabled)

    def shell_text(self, code: str, place: Place) -> str | None:
        """The objection to shell code given as text, if it parses (else it is not shell)."""
        script = parse(code)
        return None if isinstance(script, Unparseable) else self.script(script, place)

    def code(self, code: str, place: Place) -> str | None:
        from bridge.policies.code import code_objection  # its patterns: only for interpreters

        return code_objection(
            code,
            lambda text: self.shell_text(text, place),
            lambda word: target(word, place, dynamic=False),
        )


def _targets(
    command: SimpleCommand, place: Place, feeder: SimpleCommand | None, indexes: Iterable[int]
) -> str | None:
    """What the given operands (and, under xargs, the names it is fed) could destroy."""
    for i in indexes:
        if what := target(command.argv[i], place, i in command.dynamic):
            return what
    return _fed(command, place, feeder) if command.more_args else None


def _rm(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name != "rm":
        return None
    flags = set(_flags(command.argv))
    if not flags & {"-r", "-R", "--recursive"}:
        return None
    if "--no-preserve-root" in flags:
        return "--no-preserve-root switches off rm's last safeguard against deleting /"
    what = _targets(command, place, feeder, _operands(command.argv))
    return _describe(what, "deletes", "recursively deletes") if what else None


def _owner_or_mode(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name not in ("chmod", "chown", "chgrp"):
        return None
    if not set(_flags(command.argv)) & {"-R", "--recursive"}:
        return None
    operands = _operands(command.argv)[1:]  # the first operand is the mode or owner
    what = _targets(command, place, feeder, operands)
    harm = "recursively changes permissions or ownership of"
    return _describe(what, "changes", harm) if what else None


def _find_delete(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name != "find":
        return None
    argv = command.argv
    start, i = _find_starts(argv)
    expression = argv[i:]
    tests, executed = _find_actions(expression)
    deletes = "-delete" in tests or bool(executed & {"rm", "shred", "unlink"})
    if not deletes:
        return None
    starts = [(argv[k], k in command.dynamic) for k in range(start, i)] or [(".", False)]
    for start_point, dynamic in starts:
        base = resolve(start_point, place)
        if base == place.project and not dynamic:  # what it finds in it, not the project itself
            if found := beneath(base, place, _found_by(expression, start_point, base)):
                return f"deletes what it finds in {start_point}, which may be {found}"
        elif what := target(start_point, place, dynamic):
            return _describe(what, "deletes", "deletes files throughout")
    return None


def _rsync_delete(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name != "rsync" or not any(f.startswith("--del") for f in _flags(command.argv)):
        return None
    operands = _operands(command.argv)
    if len(operands) < 2 or ":" in command.argv[operands[-1]]:
        return None  # a remote destination is another machine's business
    destination = operands[-1]
    what = target(command.argv[destination], place, destination in command.dynamic)
    harm = "deletes everything the source lacks from"
    return _describe(what, "deletes", harm) if what else None


def _found_by(expression: tuple[str, ...], start: str, base: str) -> Callable[[str], bool]:
    """Whether find, given `expression`, could list a path: its `-name`/`-path` tests must all
    match, and `-empty` never lists a directory that matters. With `-o`, `!` or `-not` the tests
    are not read (anything may be listed)."""
    if any(word in ("-o", "-or", ",", "!", "-not") for word in expression):
        return lambda path: True
    tests = list(pairwise(expression))

    def listed(path: str) -> bool:
        shown = start.rstrip("/") + path[len(base.rstrip("/")) :]
        name = posixpath.basename(path)
        return "-empty" not in expression and all(
            (test != "-name" or fnmatchcase(name, pattern))
            and (test != "-iname" or fnmatchcase(name.lower(), pattern.lower()))
            and (test not in ("-path", "-wholename") or fnmatchcase(shown, pattern))
            for test, pattern in tests
        )

    return listed


def _find_actions(expression: tuple[str, ...]) -> tuple[list[str], set[str]]:
    """find's expression without the commands it runs (`-exec CMD ... ;`), and their names."""
    tests: list[str] = []
    executed: set[str] = set()
    running = False
    for previous, word in pairwise(("", *expression)):
        if running:
            running = not (word == ";" or (word == "+" and previous == "{}"))
        elif word in ("-exec", "-execdir", "-ok", "-okdir"):
            running = True
        else:
            tests.append(word)
        if previous in ("-exec", "-execdir", "-ok", "-okdir"):
            executed.add(posixpath.basename(word))
    return tests, executed


def _find_starts(argv: tuple[str, ...]) -> tuple[int, int]:
    """Where find's starting points begin and end: after its own options (`-L`, `-D debug`,
    `-O3`), before the expression (`-name`, `(`, `!`)."""
    i = 1
    while i < len(argv) and (argv[i] in ("-H", "-L", "-P") or argv[i][:2] in ("-D", "-O")):
        i += 2 if argv[i] in ("-D", "-O") else 1
    start = i
    while i < len(argv) and not argv[i].startswith(("-", "(", "!", ")", ",")):
        i += 1
    return start, i


def _filesystem(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name.startswith("mkfs") or command.name == "mke2fs":
        return "creating a filesystem erases everything on the device"
    return None


def _device_write(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    targets = [r.target for r in command.redirects if r.writes]
    if command.name == "dd":
        for i, word in enumerate(command.argv):
            if word.startswith("of=") and i in command.dynamic:
                what = target(word[3:], place, dynamic=True)
                if isinstance(what, Unknown):
                    return f"cannot tell what this overwrites: {what}"
            elif word.startswith("of="):
                targets.append(word[3:])
    elif command.name in _DEVICE_WRITERS:
        targets += [command.argv[i] for i in _operands(command.argv)]
    for written in targets:
        if block_device(written):
            return f"writes straight to the block device {written}, destroying its filesystem"
    return None


def _power(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    name, args = command.name, command.argv[1:]
    if (
        name in _POWER
        or (name == "systemctl" and set(args) & {"poweroff", "reboot", "halt", "kexec"})
        or (name in ("init", "telinit") and args[:1] in (("0",), ("6",)))
    ):
        return "shuts down or restarts the machine"
    return None


def _kill_everything(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name == "killall5":
        return "signals every process on the machine"
    if command.name in ("pkill", "killall") and not _operands(command.argv)[1:]:
        users = [w for w in command.argv if w in ("-u", "--user") or w.startswith("--user=")]
        if users:  # `pkill -u dev`: the one operand is the user, no process name narrows it
            return "signals every process of the user, this session included"
    if command.name != "kill":
        return None
    args = list(command.argv[1:])
    if args[:1] in (["-s"], ["-n"]):
        args = args[2:]
    elif args[:1] != ["--"] and args[:1] and args[0].startswith("-"):
        args = args[1:]  # the signal, as in `-9` or `-KILL`
    if "-1" in args[args[:1] == ["--"] :]:
        return "pid -1 signals every process you may signal, your session included"
    return None


def _runs_downloaded_code(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
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


def _interpreter_code(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`python3 -c ...`, `perl -MFile::Path -e ...`, `awk 'BEGIN{system(...)}'`, `python3 - <<EOF`.

    Every static word is read as code, not only the one the options point at: interpreters'
    option syntax is too varied (`-MFile::Path -e`, `-pie`) to trust one reading of it.
    """
    source = program(command.argv, command.redirects)
    if command.name not in _AWKS and (source is None or interpreter(command.argv) in SHELLS):
        return None  # shell code is parsed into `nested` already
    if source is not None and source.kind == "inline" and _OPAQUE.fullmatch(source.text):
        return f"runs the code held in {source.text.strip()}, which cannot be read before it runs"
    here = [source.text] if source is not None and source.kind == "stdin" else []
    words = [w for i, w in enumerate(command.argv) if i and i not in command.dynamic]
    for code in (*here, *words):
        if reason := judge.code(code, place):
            return reason
    return None


def _piped_code(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
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
            f"pipes the output of `{_show(feeder)}` into {runner}, which runs code "
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


def _unknown_name(
    judge: _Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`$x -rf /`, `$SHELL -c "rm -rf /"`: the command is not known, its arguments are."""
    if 0 not in command.dynamic:
        return None
    argv = command.argv
    if len(argv) == 1 and _OPAQUE.fullmatch(argv[0]):  # `$x`, `eval "$x"`, `bash -c "$x"`
        return f"runs the code held in {argv[0]}, which cannot be read before it runs"
    for flag, code in pairwise(argv):
        if flag == "-c" and (reason := judge.shell_text(code, place)):
            return f"runs {argv[0]} -c with code that {reason}"
    anywhere = Place(place.cwd, "")  # the project is only protected from known deleters
    for i in _operands(argv):
        what = target(argv[i], anywhere, i in command.dynamic)
        if what and not isinstance(what, Unknown):
            return f"cannot tell what {argv[0]} runs, and it is handed {what}"
    return None


def _fed(command: SimpleCommand, place: Place, feeder: SimpleCommand | None) -> str | None:
    """What the names xargs reads from its input could be."""
    here = [r.target for r in command.redirects if r.op == "<<<"]
    options = command.words[: len(command.words) - len(command.argv)]
    if any(w in ("-a", "--arg-file") or w.startswith(("-a", "--arg-file=")) for w in options):
        return Unknown("xargs hands it names read from a file")
    if here:
        names = [(w, False) for text in here for w in text.split()]
    elif feeder is None or any(r.op == "<" for r in command.redirects):
        return Unknown("xargs hands it names read at run time")
    elif feeder.name in ("echo", "printf") and not feeder.more_args:
        args = [(w, i in feeder.dynamic) for i, w in enumerate(feeder.argv) if i]
        names = [(n, d) for w, d in args for n in w.replace("\\n", " ").split()]
    elif feeder.name in ("find", "ls") and not feeder.dynamic and not feeder.more_args:
        argv = feeder.argv
        if feeder.name == "find":
            first, end = _find_starts(argv)
            starts, expression = list(argv[first:end]) or ["."], argv[end:]
        else:
            starts, expression = [argv[i] for i in _operands(argv)] or ["."], ()
        for start in starts:
            base = resolve(start, place)
            if base is None:
                return Unknown(f"xargs hands it names found in {start}, a directory not known")
            if found := beneath(base, place, _found_by(expression, start, base)):
                return f"what {feeder.name} finds in {start}, which may be {found}"
        return None
    else:
        return Unknown(f"xargs hands it names printed by `{_show(feeder)}`")
    for name, dynamic in names:
        if what := target(name, place, dynamic):
            return what
    return None


def _after_cd(command: SimpleCommand, place: Place) -> Place:
    """Where the next command runs after `cd`, `pushd` or `popd` (None: somewhere unknown)."""
    if command.name not in ("cd", "pushd", "popd"):
        return place
    operands = _operands(command.argv)
    if command.name == "popd" or (operands and command.argv[operands[0]] == "-"):
        return place.moved(None)
    if not operands:
        return place.moved(None if command.name == "pushd" else home())
    if operands[0] in command.dynamic:
        return place.moved(None)
    directory = command.argv[operands[0]]
    if place.cwd == "" and not directory.startswith("/"):
        return place
    return place.moved(resolve(directory, place))


def _wrapper_cwd(command: SimpleCommand, place: Place) -> Place:
    """Where `env -C DIR cmd` or `sudo -D DIR cmd` runs `cmd`."""
    wrappers = command.words[: len(command.words) - len(command.argv)]
    for option, value in pairwise(wrappers):
        if option in ("-C", "--chdir", "-D"):
            return _after_cd(SimpleCommand(("cd", value)), place)
    for option in wrappers:
        for prefix in ("--chdir=", "-C", "-D"):
            if option.startswith(prefix) and len(option) > len(prefix):
                return _after_cd(SimpleCommand(("cd", option[len(prefix) :])), place)
    return place


def _saved_downloads(command: SimpleCommand) -> set[str]:
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


def _runs_saved(command: SimpleCommand, downloaded: set[str]) -> str | None:
    if not downloaded or not command.argv:
        return None
    source = program(command.argv, command.redirects)
    ran = command.argv[1] if command.name in ("source", ".") and len(command.argv) > 1 else ""
    ran = source.text if source is not None and source.kind == "file" else ran
    ran = ran or (command.argv[0] if "/" in command.argv[0] else "")
    if ran and posixpath.normpath(ran) in downloaded | {posixpath.basename(p) for p in downloaded}:
        return f"runs {ran}, downloaded earlier in this command, without anyone reading it first"
    return None


def _download_into_interpreter(pipeline: Pipeline) -> str | None:
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


def _fork_bomb(pipeline: Pipeline, functions: tuple[str, ...]) -> str | None:
    names = [command.name for command in pipeline.commands]
    for name, following in pairwise(names):
        if name == following and name in functions:
            return (
                f"fork bomb: the function {name} pipes into itself, multiplying processes "
                "until the machine stops responding"
            )
    return None


_RULES: tuple[_Rule, ...] = (
    _rm,
    _owner_or_mode,
    _find_delete,
    _rsync_delete,
    _filesystem,
    _device_write,
    _power,
    _kill_everything,
    _runs_downloaded_code,
    _interpreter_code,
    _piped_code,
    _unknown_name,
)
dangerous_shell = configure()
