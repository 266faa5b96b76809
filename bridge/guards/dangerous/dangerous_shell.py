"""A guard against Bash commands that wreck the machine, the disk, the project or shared history.

Judged on the parsed command (`bridge.shell.syntax`), never on raw text: `echo "rm -rf /"`
passes, `true && sudo rm -rf /` does not, and a command it cannot parse is denied. It denies
what it knows is destructive and asks (`Ask`) where what decides is only known at run time:
one rule instead of a longer list, when a destructive verb is given something only the run
tells (`rm -rf "$X"`, `xargs rm -rf`, a relative path after `cd "$D"`), the question says
"cannot tell what this deletes", unless the known part lies inside the project or is a name in
temporary space (`$TMPDIR/build`). A glob that can match a critical path (`rm -rf /h*`) is
denied. Code handed to a shell or an interpreter is read when it is literal; code held in a
variable is asked about, decoded code is denied. Reasons about what only the run would tell
are `Unknown` strings all the way up, so one question never hides a certain denial.
"""

from __future__ import annotations

import posixpath

# `_collections_abc`, not `collections.abc`: the hot path, docs/architecture.md.
from _collections_abc import Callable
from itertools import pairwise

from bridge.guards.dangerous.git_rules import (
    DEFAULT_ON,
    RULES,
    aliased,
    configured,
    git_objection,
)
from bridge.guards.dangerous.system_rules import (
    SYSTEM_RULES,
    fork_bomb,
    fork_bomb_text,
    opened_device,
)
from bridge.guards.dangerous.targets import (
    Place,
    Unknown,
    beneath,
    home,
    operand_indexes,
    option_letters,
    resolve,
    target,
)
from bridge.guards.dangerous.unread import (
    OPAQUE,
    download_into_interpreter,
    interpreter_code,
    piped_code,
    runs_downloaded_code,
    runs_saved,
    saved_downloads,
    script_file,
    teed_downloads,
)
from bridge.pipeline import Ask, Execution, Guard
from bridge.shell import Lazy, finds
from bridge.shell.runners import SHELLS, interpreter, program, skip_options
from bridge.shell.syntax import Script, SimpleCommand, Unparseable, bash_script, parse
from bridge.shell.variables import with_literal_values
from bridge.wire import READ_ONLY_TOOLS

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    import re
    from collections.abc import Iterable, Iterator

_Rule = Callable[["Judge", SimpleCommand, Place, SimpleCommand | None], str | None]


def configure(allow: Iterable[str] = (), deny: Iterable[str] = ()) -> Guard:
    """The guard with git rules switched off (`allow`) or on (`deny`), by name (see `RULES`)."""
    allow, deny = set(allow), set(deny)
    if unknown := (allow | deny) - RULES.keys():
        raise ValueError(f"unknown rule {sorted(unknown)}; known: {', '.join(RULES)}")
    enabled = frozenset((DEFAULT_ON - allow) | deny)

    def dangerous_shell(execution: Execution) -> str | Ask | None:
        """Deny a Bash call that is destructive beyond repair, or that cannot be parsed safely;
        ask when what it would destroy is only known when it runs."""
        tool_input = execution.input
        if execution.tool_name != "Bash":
            if execution.tool_name in READ_ONLY_TOOLS:
                return None
            from bridge.shell.tool_command import command_of

            command = command_of(tool_input)  # an MCP server's shell, say
            if command is None or isinstance(bash_script({"command": command}), str):
                return None  # no shell command, or one in no shell's words: nothing sure to deny
            tool_input = {"command": command}
        script = bash_script(tool_input)
        if isinstance(script, str):
            return script
        source = str(tool_input["command"])
        variants = with_literal_values(script, source)
        functions = {name for inner in script.walk() for name in inner.functions}
        # A line that sets TMPDIR itself does not point it at temporary space.
        temporary = "TMPDIR" not in source.replace("$TMPDIR", "").replace("${TMPDIR", "")
        reason = first(
            (
                fork_bomb_text(source, functions),
                *(
                    Judge(enabled, temporary).script(variant, Place.of(execution.cwd))
                    for variant in variants
                ),
            )
        )
        return Ask(reason) if isinstance(reason, Unknown) else reason

    return dangerous_shell


def objection(script: Script, cwd: str = "", enabled: frozenset[str] = DEFAULT_ON) -> str | None:
    """The first dangerous thing the script (or anything nested in it) would do: a certain
    harm if there is one, else an `Unknown` (what only the run would tell), else None."""
    return Judge(enabled).script(script, Place.of(cwd))


def first(reasons: Iterable[str | None]) -> str | None:
    """The first certain reason, else the first `Unknown` one (a question, not a denial):
    one thing the guard cannot know never hides another it knows."""
    unsure = None
    for reason in reasons:
        if reason and not isinstance(reason, Unknown):
            return reason
        unsure = unsure or reason
    return unsure


def about(prefix: str, reason: str) -> str:
    """`prefix + reason`, still an `Unknown` if `reason` was one."""
    return Unknown(prefix + reason) if isinstance(reason, Unknown) else prefix + reason


def _show(command: SimpleCommand) -> str:
    redirects = (f"{r.fd}{r.op} {r.target}" for r in command.redirects if r.body is None)
    text = " ".join((*command.words, *redirects))
    return text if len(text) <= 200 else text[:197] + "..."


def _describe(what: str, verb: str, harm: str) -> str:
    if isinstance(what, Unknown):
        return Unknown(f"cannot tell what this {verb}: {what}")
    return f"{harm} {what}"


# `$TMPDIR/name`, `${TMPDIR:-/tmp}/name`: temporary space, whatever the variable holds.
_TEMPORARY = Lazy(r"\$(?:TMPDIR|\{TMPDIR(?::?[-=?](?:/tmp|/var/tmp)?)?\})/+([^$`]+)")


_REQUIRED = Lazy(r"\$\{(HOME|PWD|CLAUDE_PROJECT_DIR):\?[^}]*\}")


def _target(judge: Judge, word: str, place: Place, dynamic: bool) -> str | None:
    """`target`, with a named path in the temporary directory let through."""
    if dynamic and "${" in word and ":?" in word:  # `${HOME:?}`: the value, or no command at all
        word = _REQUIRED.sub(r"${\1}", word)
    temporary = dynamic and judge.temporary and "TMPDIR" in word  # the pattern only if it may
    if temporary and (found := _TEMPORARY.fullmatch(word)):
        names = found[1].split("/")
        if ".." not in names and any(n not in ("", ".") for n in names):
            return None
    what = target(word, place, dynamic)
    if what is None and not dynamic and _a_home(path := posixpath.normpath(word)):
        return f"{path}, a user's home directory"
    return what


def _a_home(path: str) -> bool:
    """`/home/NAME` or `/Users/NAME` (plain string code: no pattern on an everyday call)."""
    for parent in ("/home/", "/Users/"):
        if path.startswith(parent) and "/" not in path[len(parent) :] and len(path) > len(parent):
            return True
    return False


class Judge:
    """Walks a script in the order bash runs it, carrying where it runs (`cd` is followed) and
    what it downloaded; nested code (substitutions, `sh -c`, piped or interpreter code) is
    judged from where it is run."""

    def __init__(self, enabled: frozenset[str], temporary: bool = True) -> None:
        self.enabled = enabled
        self.temporary = temporary  # `$TMPDIR/name` is temporary space (the line sets no TMPDIR)
        self.written: dict[str, str] = {}  # files the line writes with literal text, by path
        self.in_code = 0  # > 0 while interpreter code is read as shell code

    def script(self, script: Script, place: Place) -> str | None:
        return first(self._reasons(script, place))

    def _reasons(self, script: Script, place: Place) -> Iterator[str | None]:
        downloaded: set[str] = set()
        for pipeline in script.pipelines:
            yield fork_bomb(pipeline, script.functions)
            yield download_into_interpreter(pipeline)
            for i, command in enumerate(pipeline.commands):
                for inner in command.nested:
                    # `bash -c 'x=/; rm -rf $x'`: the values the nested code sets itself.
                    for variant in with_literal_values(inner, inner.source):
                        yield self.script(variant, place)
                feeder = pipeline.commands[i - 1] if i else None
                here = _wrapper_cwd(command, place)
                saved = runs_saved(command, downloaded)
                reason = first((self.command(command, here, feeder), saved))
                yield about(f"dangerous command `{_show(command)}`: ", reason) if reason else None
                downloaded |= saved_downloads(command) | teed_downloads(pipeline, i)
                self.written.update(_written_text(command))
                place = _after_cd(command, place)

    def command(
        self, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
    ) -> str | None:
        return first(
            (
                *(rule(self, command, place, feeder) for rule in _RULES),
                git_objection(command, self.enabled, place.cwd),
            )
        )

    def shell_text(self, code: str, place: Place) -> str | None:
        """The objection to shell code given as text, if it parses (else it is not shell)."""
        script = parse(code)
        return None if isinstance(script, Unparseable) else self.script(script, place)

    def code(self, code: str, place: Place) -> str | None:
        from bridge.shell.inline_code import code_objection  # its patterns: only for interpreters

        if device := opened_device(code):
            return f"writes straight to the block device {device}, destroying its filesystem"
        self.in_code += 1
        try:
            return code_objection(
                code,
                lambda text: self.shell_text(text, place),
                lambda word: _target(self, word, place, dynamic="$" in word),
                Unknown,
            )
        finally:
            self.in_code -= 1


def _targets(
    judge: Judge,
    command: SimpleCommand,
    place: Place,
    feeder: SimpleCommand | None,
    indexes: Iterable[int],
) -> str | None:
    """What the given operands (and, under xargs, the names it is fed) could destroy."""
    found = (_target(judge, command.argv[i], place, i in command.dynamic) for i in indexes)
    return first((*found, _fed(judge, command, place, feeder) if command.more_args else None))


def _rm(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name != "rm":
        return None
    flags = set(option_letters(command.argv))
    if not flags & {"-r", "-R", "--recursive"}:
        return None
    if "--no-preserve-root" in flags:
        return "--no-preserve-root switches off rm's last safeguard against deleting /"
    what = _targets(judge, command, place, feeder, operand_indexes(command.argv))
    return _describe(what, "deletes", "recursively deletes") if what else None


def _owner_or_mode(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name not in ("chmod", "chown", "chgrp"):
        return None
    if not set(option_letters(command.argv)) & {"-R", "--recursive"}:
        return None
    operands = operand_indexes(command.argv)[1:]  # the first operand is the mode or owner
    what = _targets(judge, command, place, feeder, operands)
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
        elif what := _target(judge, start_point, place, dynamic):
            return _describe(what, "deletes", "deletes files throughout")
    return None


def _rsync_delete(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name != "rsync" or not any(
        f.startswith("--del") for f in option_letters(command.argv)
    ):
        return None
    operands = operand_indexes(command.argv)
    if len(operands) < 2 or ":" in command.argv[operands[-1]]:
        return None  # a remote destination is another machine's business
    destination = operands[-1]
    what = _target(judge, command.argv[destination], place, destination in command.dynamic)
    harm = "deletes everything the source lacks from"
    return _describe(what, "deletes", harm) if what else None


def _unknown_name(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`$x -rf /`, `$SHELL -c "rm -rf /"`: the command is not known, its arguments are."""
    if 0 not in command.dynamic:
        return None
    argv = command.argv
    if judge.in_code and argv[0][:2] in _POSITIONALS:
        return None  # `$1 > 10`: an awk or perl field, in code read as shell, is no command
    if len(argv) == 1 and OPAQUE.fullmatch(argv[0]):  # `$x`, `eval "$x"`, `bash -c "$x"`
        return Unknown(f"runs the code held in {argv[0]}, which cannot be read before it runs")
    for flag, code in pairwise(argv):
        if flag == "-c" and (reason := judge.shell_text(code, place)):
            return about(f"runs {argv[0]} -c with code that ", reason)
    anywhere = Place(place.cwd, "")  # the project is only protected from known deleters
    for i in operand_indexes(argv):
        what = target(argv[i], anywhere, i in command.dynamic)
        if what and not isinstance(what, Unknown):
            return f"cannot tell what {argv[0]} runs, and it is handed {what}"
    return None


_POSITIONALS = frozenset(f"${c}" for c in "0123456789@*#")


def _fed(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
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
            begin, end = finds.starts(argv)
            starts, expression = list(argv[begin:end]) or ["."], argv[end:]
        else:
            starts, expression = [argv[i] for i in operand_indexes(argv)] or ["."], ()
        for start in starts:
            base = resolve(start, place)
            if base is None:
                return Unknown(f"xargs hands it names found in {start}, a directory not known")
            if found := beneath(base, place, finds.found_by(expression, start, base)):
                return f"what {feeder.name} finds in {start}, which may be {found}"
        return None
    else:
        return Unknown(f"xargs hands it names printed by `{_show(feeder)}`")
    return first(_target(judge, name, place, dynamic) for name, dynamic in names)


def _after_cd(command: SimpleCommand, place: Place) -> Place:
    """Where the next command runs after `cd`, `pushd` or `popd` (None: somewhere unknown)."""
    if command.name not in ("cd", "pushd", "popd"):
        return place
    operands = operand_indexes(command.argv)
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


def _shell_alias(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`git -c alias.x='!rm -rf /' x`: the alias is shell code, run with the arguments."""
    if command.name != "git":
        return None
    i = skip_options(command.argv, 1, frozenset({"-C", "-c", "--git-dir", "--work-tree"}))
    env = command.words[: len(command.words) - len(command.argv)]
    args = aliased(command.argv[1:i], command.argv[i:], env)
    args = args or configured(command.argv[1:i], command.argv[i:], place.cwd)
    if not args or not args[0].startswith("!"):
        return None
    reason = judge.shell_text(" ".join((args[0][1:], *args[1:])), place)
    return about("runs a git alias whose shell code ", reason) if reason else None


# Variables whose value a program runs as a shell command (git, ssh, pagers, editors).
_COMMAND_VARIABLES = frozenset(
    {"GIT_SSH_COMMAND", "GIT_SSH", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "PAGER"}
    | {"GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND", "EDITOR"}
    | {"VISUAL", "MANPAGER", "LESSOPEN", "LESSCLOSE", "BROWSER", "PROMPT_COMMAND"}
)
_SOURCED_VARIABLES = frozenset({"BASH_ENV", "ENV"})  # a file the shell reads first


def _code_variables(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`GIT_SSH_COMMAND='sh -c "rm -rf /"' git fetch`, `BASH_ENV=f bash x.sh` after the line
    wrote f: the code a variable hands to the program."""
    words = command.words[: len(command.words) - len(command.argv)]
    if command.argv[:1] in (("export",), ("declare",)):
        words = command.argv[1:]
    reasons = []
    for word in words:
        name, equals, value = word.partition("=")  # plain string code: no pattern compiled
        if not equals:
            continue
        if name in _COMMAND_VARIABLES:
            reasons.append(judge.shell_text(value, place))
        elif name in _SOURCED_VARIABLES and (text := judge.written.get(posixpath.normpath(value))):
            reasons.append(judge.shell_text(text, place))
    reason = first(reasons)
    return about("hands a program shell code that ", reason) if reason else None


def _runs_written(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`echo 'rm -rf /' > x.sh; sh x.sh`: a script the line wrote, then runs."""
    if not judge.written:
        return None
    ran = script_file(command)
    text = judge.written.get(posixpath.normpath(ran)) if ran else None
    if text is None or interpreter(command.argv) not in (*SHELLS, None):
        return None
    reason = judge.shell_text(text, place)
    return about(f"runs {ran}, written earlier in this line, which ", reason) if reason else None


def _written_text(command: SimpleCommand) -> dict[str, str]:
    """Files `echo`/`printf` or a here-document write with literal text in this command."""
    files = [r.target for r in command.redirects if r.writes and not r.dynamic]
    if not files or command.dynamic:
        return {}
    if command.name in ("echo", "printf"):
        text = " ".join(w for w in command.argv[1:] if not w.startswith("-"))
    elif command.name in ("cat", "tee"):
        here = [r.body if r.body is not None else r.target for r in command.redirects]
        bodies = [b for r, b in zip(command.redirects, here, strict=True) if r.op[:2] == "<<"]
        if not bodies:
            return {}
        text = bodies[-1]
        files += (
            [command.argv[i] for i in operand_indexes(command.argv)]
            if command.name == "tee"
            else []
        )
    else:
        return {}
    return {posixpath.normpath(f): text.replace("\\n", "\n") for f in files}


def _fed_code(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`echo 'rm -rf /' | xargs bash -c`, `xargs -I{} sh -c 'rm -rf {}'`: code xargs reads,
    or code it puts what it reads into."""
    if not command.more_args:
        return None
    source = program(command.argv, command.redirects)
    if source is None or source.kind != "inline":
        return None
    mark = _replaced(command)
    code = source.text.strip()
    if code and (mark is None or mark not in code) and code != "{}":
        return None
    literal = feeder is not None and feeder.name in ("echo", "printf") and not feeder.dynamic
    if feeder is None or not literal or feeder.more_args:
        if code and code != mark:  # names put into known code: `_fed` judges them as targets
            return None
        return Unknown(f"runs code that xargs reads at run time with {command.name}")
    fed = [w for w in feeder.argv[1:] if not w.startswith("-")]
    texts = [code.replace(mark, name) for name in fed] if mark and code else [" ".join(fed)]
    shell = interpreter(command.argv) in SHELLS
    reasons = (judge.shell_text(t, place) if shell else judge.code(t, place) for t in texts)
    reason = first(reasons)
    return about("runs the code xargs is fed, which ", reason) if reason else None


def _replaced(command: SimpleCommand) -> str | None:
    """The string xargs (`-I R`, `-J R`, `--replace[=R]`, `-i`) or parallel (`{}`) replaces."""
    wrappers = command.words[: len(command.words) - len(command.argv)]
    for option, value in pairwise(wrappers):
        if option in ("-I", "-J"):
            return value
    for option in wrappers:
        if option.startswith(("-I", "-J")) and len(option) > 2:
            return option[2:]
        if option.startswith("--replace=") and len(option) > len("--replace="):
            return option.partition("=")[2]
        if option in ("-i", "--replace", "--replace=") or posixpath.basename(option) == "parallel":
            return "{}"
    return None


_POSITIONAL = Lazy(r'"?\$(?:\{([0-9@*])\}|([0-9@*]))"?')


def _positional(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`bash -c 'exec "$1" "$2"' _ rm -rf /`: the code with its arguments put in."""
    source = program(command.argv, command.redirects)
    if interpreter(command.argv) not in SHELLS or source is None or source.kind != "inline":
        return None
    if "$" not in source.text or source.text not in command.argv:
        return None
    at = command.argv.index(source.text)
    values = list(command.argv[at + 1 :])
    if len(values) < 2:
        return None
    import shlex  # only code with arguments comes here

    quoted = [
        "$X" if at + 1 + k in command.dynamic else shlex.quote(v) for k, v in enumerate(values)
    ]

    def value(found: re.Match[str]) -> str:
        which = found[1] or found[2]
        if which in "@*":
            return " ".join(quoted[1:])
        return quoted[int(which)] if int(which) < len(quoted) else "''"

    reason = judge.shell_text(_POSITIONAL.sub(value, source.text), place)
    return about("runs code that, given its arguments, ", reason) if reason else None


# Command names that only show their arguments or look them up: never a wrapper.
_SHOWS = frozenset(
    {"echo", "printf", "print", "grep", "egrep", "fgrep", "rg", "ag", "ack", "man", "info"}
    | {"wc", "head", "tail", "file", "stat", "ls", "du", "nl", "od", "strings", "hexdump"}
    | {"diff", "cmp", "sort", "uniq", "cut", "basename", "dirname", "realpath", "readlink"}
    | {"touch", "mkdir", "cp", "mv", "ln", "tar", "zip", "unzip", "tee", "xxd", "fold", "wall"}
    | {"logger", "notify-send", "say", "figlet", "cowsay", "column", "bat", "tr", "comm"}
    | {"help", "which", "type", "whatis", "apropos", "whereis", "tldr", "command", "hash"}
    | {"alias", "history", "cat", "less", "more", "git", "sed", "awk", "jq", "test", "["}
    | {"export", "declare", "local", "readonly", "unset", "set", "read", "printenv", "#"}
)
_VERBS = frozenset({"rm", "dd", "shred", "chmod", "chown", "chgrp", "find", "mkfs", "wipefs"})
_INNER_VERBS = _VERBS | {"git"}


def _unknown_wrapper(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`mywrap --flag rm -rf /`: a command this guard does not know, handed a destructive
    command with a critical target. Only a certain harm counts (the wrapper may not run it)."""
    argv = command.argv
    if command.name in _SHOWS or command.name in _VERBS or interpreter(argv) or len(argv) < 3:
        return None
    for k in range(1, len(argv) - 1):
        name = posixpath.basename(argv[k])
        if k in command.dynamic or not (name in _INNER_VERBS or name.startswith("mkfs.")):
            continue
        dynamic = frozenset(i - k for i in command.dynamic if i > k)
        inner = SimpleCommand(argv[k:], command.redirects, argv[k:], (), dynamic)
        reason = judge.command(inner, place, None)
        if reason and not isinstance(reason, Unknown):
            return f"hands {_show(inner)} to {command.name}, which {reason}"
    return None


_RULES: tuple[_Rule, ...] = (
    _rm,
    _owner_or_mode,
    _find_delete,
    _rsync_delete,
    *SYSTEM_RULES,
    runs_downloaded_code,
    interpreter_code,
    piped_code,
    _unknown_name,
    _shell_alias,
    _code_variables,
    _runs_written,
    _positional,
    _fed_code,
    _unknown_wrapper,
)
dangerous_shell = configure()
