"""A guard against Bash commands that wreck the machine, the disk, the project or shared history.

Judged on the parsed command (`bridge.shell.syntax`), never on raw text: `echo "rm -rf /"`
passes, `true && sudo rm -rf /` does not, and a command it cannot parse is denied. One rule
instead of a longer list: when a destructive verb is given something that is only known at run
time (`rm -rf "$X"`, `rm -rf /h*`, `xargs rm -rf`, a relative path after `cd "$D"`), it denies
with "cannot tell what this deletes" unless the known part lies inside the project. Code handed
to a shell or an interpreter is read when it is literal and denied as unreadable when it is not.
"""

from __future__ import annotations

import posixpath

# `_collections_abc`, not `collections.abc`: the hot path, docs/architecture.md.
from _collections_abc import Callable
from itertools import pairwise

from bridge.guards.dangerous.git_rules import DEFAULT_ON, RULES, git_objection
from bridge.guards.dangerous.targets import Place, Unknown, beneath, home, resolve, target
from bridge.guards.dangerous.unread import (
    OPAQUE,
    download_into_interpreter,
    interpreter_code,
    piped_code,
    runs_downloaded_code,
    runs_saved,
    saved_downloads,
)
from bridge.pipeline import Execution, Guard
from bridge.shell import finds
from bridge.shell.lazyre import fnmatchcase
from bridge.shell.syntax import (
    Pipeline,
    Script,
    SimpleCommand,
    Unparseable,
    bash_script,
    parse,
)
from bridge.shell.variables import with_literal_values

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Iterable

BLOCK_DEVICES = (
    "sd*", "hd*", "vd*", "xvd*", "nvme*", "mmcblk*", "disk*", "rdisk*", "loop*", "dm-*",
    "md*", "mapper/*", "sr*", "nbd*", "zram*",
)  # fmt: skip
_DEVICE_WRITERS = frozenset({"tee", "cp", "shred", "wipefs", "blkdiscard", "truncate"})
_POWER = frozenset({"shutdown", "reboot", "halt", "poweroff"})
_Rule = Callable[["Judge", SimpleCommand, Place, SimpleCommand | None], str | None]


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
    return Judge(enabled).script(script, Place.of(cwd))


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


class Judge:
    """Walks a script in the order bash runs it, carrying where it runs (`cd` is followed) and
    what it downloaded; nested code (substitutions, `sh -c`, piped or interpreter code) is
    judged from where it is run."""

    def __init__(self, enabled: frozenset[str]) -> None:
        self.enabled = enabled

    def script(self, script: Script, place: Place) -> str | None:
        downloaded: set[str] = set()
        for pipeline in script.pipelines:
            if reason := _fork_bomb(pipeline, script.functions) or download_into_interpreter(
                pipeline
            ):
                return reason
            for i, command in enumerate(pipeline.commands):
                for inner in command.nested:
                    if reason := self.script(inner, place):
                        return reason
                feeder = pipeline.commands[i - 1] if i else None
                here = _wrapper_cwd(command, place)
                if reason := self.command(command, here, feeder) or runs_saved(command, downloaded):
                    return f"dangerous command `{_show(command)}`: {reason}"
                downloaded |= saved_downloads(command)
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
        from bridge.shell.code import code_objection  # its patterns: only for interpreters

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
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
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
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
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
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name != "find":
        return None
    argv = command.argv
    start, i = finds.starts(argv)
    expression = argv[i:]
    tests, executed = finds.actions(expression)
    deletes = "-delete" in tests or bool(executed & {"rm", "shred", "unlink"})
    if not deletes:
        return None
    starts = [(argv[k], k in command.dynamic) for k in range(start, i)] or [(".", False)]
    for start_point, dynamic in starts:
        base = resolve(start_point, place)
        if base == place.project and not dynamic:  # what it finds in it, not the project itself
            if found := beneath(base, place, finds.found_by(expression, start_point, base)):
                return f"deletes what it finds in {start_point}, which may be {found}"
        elif what := target(start_point, place, dynamic):
            return _describe(what, "deletes", "deletes files throughout")
    return None


def _rsync_delete(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
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


def _filesystem(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name.startswith("mkfs") or command.name == "mke2fs":
        return "creating a filesystem erases everything on the device"
    return None


def _device_write(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
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
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
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
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
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


def _unknown_name(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`$x -rf /`, `$SHELL -c "rm -rf /"`: the command is not known, its arguments are."""
    if 0 not in command.dynamic:
        return None
    argv = command.argv
    if len(argv) == 1 and OPAQUE.fullmatch(argv[0]):  # `$x`, `eval "$x"`, `bash -c "$x"`
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
            first, end = finds.starts(argv)
            starts, expression = list(argv[first:end]) or ["."], argv[end:]
        else:
            starts, expression = [argv[i] for i in _operands(argv)] or ["."], ()
        for start in starts:
            base = resolve(start, place)
            if base is None:
                return Unknown(f"xargs hands it names found in {start}, a directory not known")
            if found := beneath(base, place, finds.found_by(expression, start, base)):
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
    runs_downloaded_code,
    interpreter_code,
    piped_code,
    _unknown_name,
)
dangerous_shell = configure()
