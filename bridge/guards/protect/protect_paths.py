"""Guards that keep tools from writing protected files: secrets, and ccbridge's own settings.

An entry is a path or a glob (`*`, `?`, `[...]`, `**` for any number of directories). Absolute
entries (after `~`) are anchored at the root; relative ones match at any depth, so `.env`
protects every `.env` and `.ssh/**` everything in any `.ssh`. A path is protected when it, or a
directory above it, matches; and a command that writes, moves or deletes a directory *above* a
protected path (`rm -rf .claude`, `mv .claude x`, `tar -x` into the project) touches it too.
Only writes are judged: reading a secret is not this guard's job.

The Bash judgement reads the parsed command (`bridge.shell.syntax`), not its text. What it
sees: redirections; the operands of commands that write, move, delete, link or re-permission
files (`WRITERS`, `sed -i`/`sed w`, `perl -i`, `awk` print redirections, editors); `cp`/`mv`/
`rsync` destinations, recursive copies into a directory above a protected path; `find` with
`-delete` or a writing `-exec`; archive extraction (`tar -x`, `unzip`, `7z x`, `cpio -i`) into
its directory; `git apply`/`git am`/`patch` by the paths in the patch; path-like strings in
inline interpreter code (`python -c`, `node -e`, here-documents); and all of that inside
`$(...)`, `sh -c`, `eval`, wrappers (`sudo`, `env`, `flock`, `setpriv` ...) and `find -exec`.

The self-protection guard (`self_protection_guard`) is stricter. Besides the writes above it
denies: any command that names a path inside ccbridge's state or cache (`sqlite3`, `cat`,
Python's `open`, all alike); running ccbridge itself except `ccbridge goal` and read-only
commands (also as `python -m bridge`, `from bridge import ...`, `runpy`, a path ending in
`/ccbridge`, a `ccbridge run` word pair behind an unknown wrapper); and, failing closed, any
word it cannot resolve before the command runs (see `bridge.shell.syntax`: `$x`, `$(...)`,
`${X:?}`) where it matters: the command name, an operand or redirection a command writes, the
program an interpreter runs, or a writer fed by `xargs`. Variables the command line assigns
literally are put in first (`D=/x/sta; sqlite3 ${D}te/goals.sqlite3` is read as written out),
then variables of the hook's environment that the line does not assign (`$HOME`, `$TMPDIR`).
A command that only reads or prints (`echo $HOME`, `ls $(pwd)`, `git commit -m "$(cat m)"`) passes;
any other with an unresolvable word is denied when the line mentions a piece of a protected path
(`.claude`, `ccbridge`, `goals.sqlite3` ...). Inline interpreter code (`python -c`, `perl -e`, `node
-e`, `ruby -e`, here-documents) is denied when it imports `bridge` or uses `runpy`, shells out to a
command denied here (`subprocess.run(['ccbridge', 'run'])`), names a protected path literally, or
can write files (`open`, `write`, `rename`, `sqlite3` ...) and mentions one of those pieces
(`bridge.guards.protect.interpreted`). Any command outside a short allow-list of readers is read by
`bridge.guards.protect.tripwire`: its every word counts as a path it may write, the code it hands on
(`trap`, `env -S`, `git -c core.*`, `*_EDITOR` ...) is judged as commands, and a program running
`run`/`install`/`uninstall` is looked at on disk (a copy of ccbridge under another name). Git
verbs are read by what they do to the work tree (`bridge.guards.protect.writes.git_work_tree`):
paths given or implied, the whole tree for `reset --hard` or `stash`, and for the verbs that move
HEAD when a settings file is tracked there.

Not covered, by design of a text judgement: a program that computes a protected path itself
(a script file the agent wrote and then runs, code piped into an interpreter, inline code that
assembles the names from pieces such as `'.cla' + 'ude'`, a compiled binary).
The hard boundary is Claude Code's sandbox; see docs/guarantees.md and docs/tripwire.md.
"""

import os
import posixpath

from bridge.guards.protect import (
    ANY_ABOVE,
    CODE_WRITES,
    COPIERS,
    DECLARERS,
    EXTRACTORS,
    MOVERS,
    NOT_ABOVE,
    READ_CLOSELY,
    SCRIPTED,
    WRITERS,
    RunTime,
    Target,
    asked_as,
    shown,
    source_text,
)
from bridge.guards.protect.entries import GLOB_CHARS, Protection, entries_of, is_template
from bridge.paths import CC_SETTINGS_PATTERNS
from bridge.pipeline import Ask, Execution, Guard
from bridge.pipeline.valueclass import Record
from bridge.shell import Lazy
from bridge.shell.runners import SHELLS, inline_programs, interpreter, program, skip_options
from bridge.shell.syntax import Script, SimpleCommand, Unparseable, bash_script, expand_home, parse
from bridge.wire import READ_ONLY_TOOLS

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    import re
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

    Path = str | os.PathLike[str]

DEFAULT_SECRET_PATTERNS = (
    ".env", ".env.*", "*.pem", "*.key", "id_rsa*", ".ssh/**", ".aws/credentials", ".netrc",
)  # fmt: skip
PATH_TOOLS = {
    "Write": "file_path",
    "Edit": "file_path",
    "MultiEdit": "file_path",
    "NotebookEdit": "notebook_path",
}
# Tools that write several files, named in a list (a Codex patch: bridge.wire.hosts.codex).
PATHS_TOOLS = {"apply_patch": "file_paths"}
_COMPRESSED = (".gz", ".bz2", ".xz", ".zst", ".z", ".Z")
# Commands whose words are only read or printed: an unresolvable word in them writes nothing.
_READERS = frozenset(
    {
        *("echo", "printf", "ls", "cat", "head", "tail", "grep", "egrep", "fgrep", "rg", "wc"),
        *("stat", "file", "test", "[", "[[", "pwd", "date", "basename", "dirname", "realpath"),
        *("readlink", "which", "type", "diff", "cmp", "more", "cut", "tr", "du", "jq", "comm"),
        *("df", "id", "whoami", "hostname", "uname", "printenv", "seq", "sleep", "true"),
        *("false", ":", "cd", "pushd", "popd", "exit", "return", "kill", "wait", "jobs", "nproc"),
        *("md5sum", "sha256sum", "sha1sum", "sha512sum", "b2sum", "cksum", "od", "hexdump"),
        *("column", "nl", "paste", "join", "fold", "fmt", "expand", "unexpand", "strings"),
        *("getconf", "locale", "tty", "groups", "uptime", "free", "shopt", "umask", "hash"),
        *("pgrep", "ps", "env", "export", "local", "declare", "read", "shift", "set", "unset"),
    }
)
_GIT_READERS = frozenset(
    {"status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "grep", "commit", "add"}
    | {"branch", "tag", "fetch", "push", "remote", "describe", "shortlog", "config"}
)
# Git words that make a reading verb write a file or run code (`git diff --output=F`).
_GIT_UNREAD = ("-c", "--config-env", "--output", "-O", "--open-files-in-pager", "--ext-diff")
_MOVES = ("cd", "pushd", "popd")
_CODE_TOKEN_SEPARATORS = Lazy(r"[\s'\"`()\[\]{},;:<>|&+]+")
_CODE_DESTROYS = Lazy(
    r"rmtree|rename|replace|remove|unlink|move|copytree|chmod|extractall|rmSync|renameSync"
    r"|unlinkSync|rm_rf|\brm\b|\bmv\b"
)
_VARIABLE = Lazy(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
_TMPDIR = Lazy(r"\$(?:TMPDIR\b|\{TMPDIR(?::?[-=]([^}$`]*))?\})")


def protected_paths_guard(paths: "Sequence[str | Path]", label: str = "protected path") -> "Guard":
    """A guard denying writes (file tools, and Bash commands that write) to `paths`."""
    protection = Protection(paths, label)

    def shell(tool_input: "Mapping[str, object]", cwd: str) -> "str | Ask | None":
        script = bash_script(tool_input)
        if isinstance(script, str):
            return script
        reason = BashCall(protection, None, cwd, None).judge(script, "")
        text = str(tool_input["command"])
        if isinstance(reason, RunTime) and "=" in text:  # a value the line sets is known
            from bridge.shell.variables import with_literal_values

            variants = with_literal_values(script, text)
            judged = (BashCall(protection, None, cwd, None)._script(v) for v in variants)
            reason = next((r for r in judged if r and not isinstance(r, RunTime)), reason)
        return Ask(reason) if isinstance(reason, RunTime) else reason

    def guard(execution: "Execution") -> "str | Ask | None":
        if execution.tool_name in PATH_TOOLS or execution.tool_name in PATHS_TOOLS:
            return _path_tool(protection, execution)
        if execution.tool_name == "Bash":
            return shell(execution.input, execution.cwd)
        if execution.tool_name in READ_ONLY_TOOLS:
            return None
        from bridge.guards.protect import tool_paths
        from bridge.shell.tool_command import command_of

        command = command_of(execution.input)  # an MCP server's shell, say
        if command is not None and not isinstance(bash_script({"command": command}), str):
            reason = shell({"command": command}, execution.cwd)  # one no shell reads: not sure
            if reason is not None:
                return reason
        return tool_paths.judge(protection, execution, ask=False)

    return guard


SELF_PROTECTION = "ccbridge self-protection"
# What the agent may run: its goal tool and commands that only read or work on private state.
# `run` and `explain` would forge hook events into the real state; `install` and `uninstall`
# rewrite the registration.
_AGENT_SUBCOMMANDS = frozenset(
    {"goal", "test", "check", "schema", "audit", "doctor", "--help", "-h", "--version"}
)
_FORBIDDEN_SUBCOMMANDS = frozenset({"run", "explain", "install", "uninstall"})
# The same, spelled inside another command's text (a script being written, inline code).
_CCBRIDGE_TEXT = Lazy(
    r"(?:^|[\s/;|&(`'\"])ccbridge['\"]?[\s,]+['\"]?(?:run|explain|install|uninstall)\b|"
    r"\bbridge\.(?:main|engine|goal|cli|policies|config|audit|wire|pipeline)\b|-m\s+bridge\b|"
    r"\b(?:from|import)\s+bridge\b|\brunpy\b|\bimport_module\s*\(\s*['\"]bridge"
)
_PACKAGE = posixpath.dirname(posixpath.dirname(posixpath.dirname(posixpath.abspath(__file__))))
# Names that give away a protected path in a command line that also holds an unknown word.
_STATE_NAMES = (
    "goals.sqlite3", "audit.jsonl", ".claude", "ccbridge", "settings.json", "settings.local.json",
)  # fmt: skip


def self_protection_guard(
    settings_files: "Sequence[str | Path]" = CC_SETTINGS_PATTERNS,
    config_files: "Sequence[str | Path]" = (),
    state_dir: "str | Path | Sequence[str | Path] | None" = None,
    env: "Mapping[str, str] | None" = None,
) -> "Guard":
    """ccbridge's own guard: nobody edits the hook settings or its config, nobody touches its
    state (the goal store, the audit trail and the compiled-config cache are the authority),
    and the agent runs no ccbridge command but `ccbridge goal` and read-only ones.

    `state_dir` is the state/audit directory, or several such paths (the cache, a separate
    audit log). Unlike settings and config, which are only guarded against writes, a Bash
    command that so much as names a state path is denied: `sqlite3 <state>/goals.sqlite3
    "INSERT ..."` writes without any writing command we could recognise. `env` is the
    environment the agent's commands run with (variables it does not set are put in).
    """
    state = [state_dir] if isinstance(state_dir, str | os.PathLike) else list(state_dir or ())
    trees = tuple(entry for spec in state for entry in entries_of(spec, tree=True))
    writes = Protection([*settings_files, *config_files], SELF_PROTECTION, trees)
    sealed = Protection([], SELF_PROTECTION, trees)
    names = {*_STATE_NAMES, *(posixpath.basename(str(p).rstrip("/")) for p in state)}
    # Read, never changed: not copied (a copy of os.environ decodes every variable).
    context = _Strict(os.environ if env is None else env, frozenset(names - {""}))

    def shell(tool_input: "Mapping[str, object]", cwd: str) -> "str | Ask | None":
        script = bash_script(tool_input)
        if isinstance(script, str):
            return f"{SELF_PROTECTION}: {script}"
        text = str(tool_input.get("command", ""))
        reason = BashCall(writes, sealed, cwd, context).judge(script, text)
        return Ask(reason) if isinstance(reason, RunTime) else reason

    def guard(execution: "Execution") -> "str | Ask | None":
        if execution.tool_name in PATH_TOOLS or execution.tool_name in PATHS_TOOLS:
            return _path_tool(writes, execution)
        if execution.tool_name == "Bash":
            return shell(execution.input, execution.cwd)
        from bridge.guards.protect import tool_paths
        from bridge.shell.tool_command import command_of

        command = command_of(execution.input)  # an MCP server's shell, say
        if command is not None and execution.tool_name not in READ_ONLY_TOOLS:
            if isinstance(unread := bash_script({"command": command}), str):
                # It may be no shell at all (a tool's own command language): asked, not denied.
                return Ask(f"{SELF_PROTECTION}: the {execution.tool_name} command: {unread}")
            reason = shell({"command": command}, execution.cwd)
            if reason is not None:
                return reason
        return tool_paths.judge(writes, execution, ask=True)

    return guard


def _first(reasons: "Iterable[str | None]") -> "str | None":
    """The first denial, else the first question: a question never hides a denial."""
    question = None
    for reason in reasons:
        if reason and not isinstance(reason, RunTime):
            return reason
        question = question or reason
    return question


class _Strict(Record, frozen=True, slots=True):
    env: "Mapping[str, str]"
    names: "frozenset[str]"


def _path_tool(protection: "Protection", execution: "Execution") -> "str | None":
    if execution.tool_name in PATHS_TOOLS:
        key = PATHS_TOOLS[execution.tool_name]
        paths = execution.input.get(key)
        if not isinstance(paths, list | tuple) or not paths:
            return (
                f"{protection.label}: cannot tell which files the {execution.tool_name} call "
                f"writes (no {key})"
            )
        for path in paths:
            reason = _one_path(protection, execution, key, path)
            if reason is not None:
                return reason
        return None
    key = PATH_TOOLS[execution.tool_name]
    return _one_path(protection, execution, key, execution.input.get(key))


def _one_path(
    protection: "Protection", execution: "Execution", key: str, path: object
) -> "str | None":
    if not isinstance(path, str) or not path:
        return f"{protection.label}: the {execution.tool_name} call has no {key} to check"
    spec = protection.match(path, execution.cwd)
    if spec is None:
        return None
    return f"{protection.label}: {execution.tool_name} to {path} is denied (matches {spec!r})"


class BashCall:
    """One Bash call judged; `strict` (self-protection) fails closed on what it cannot read."""

    def __init__(
        self,
        writes: "Protection",
        sealed: "Protection | None",
        cwd: str,
        strict: "_Strict | None",
    ) -> None:
        self.writes, self.sealed, self.cwd, self.strict = writes, sealed, cwd, strict
        self.label = writes.label
        # Where the line's commands may run: the call's directory and each `cd`/`pushd` target,
        # all of them for every command (conservative: the order is not followed); None once a
        # target is only known when the line runs.
        self.bases: tuple[str, ...] | None = (cwd,)
        self.assigned: frozenset[str] = frozenset()
        self.depth = 0
        self.as_text = 0  # judging interpreter code read as shell (`interpreted`)
        self.in_code = 0  # judging the commands interpreter code runs (`interpreted`)
        # What the line sets up for the commands after it, read as bash reads it (see _setup).
        self.aliases: dict[str, str | None] = {}
        self.cdpath: list[str] | None = []  # None: set to something only known when it runs
        self.nocase = False
        self.git_env: dict[str, str] = {}  # GIT_DIR/GIT_WORK_TREE the line exports
        self.text = ""  # the whole line as given (its nested code is judged with it in mind)

    def judge(self, script: "Script", text: str) -> "str | None":
        """The objection to a parsed command line (`text`: its source, to put variables in)."""
        variants = [script]
        if self.depth == 0:
            self.text = text
        # Only a line that can set a variable (`X=`, `for X in`, `read X`) has values to put in.
        if self.strict is not None and any(cue in text for cue in ("=", "for", "read")):
            from bridge.shell.variables import with_literal_values

            variants = with_literal_values(script, text)
        return _first(map(self._script, variants))

    def _script(self, script: "Script") -> "str | None":
        commands = list(script.commands())
        self.assigned = self.assigned | _assigned(commands)
        if self.strict is not None:
            self._setup(commands)
        for command in commands:
            if command.name in _MOVES and self.bases is not None:
                self.bases = self._moved(command, self.bases)
        unknown = ""
        question: str | None = None  # what only the run tells, asked unless something denies
        for command in commands:
            if self.strict is not None and (reason := self._strict(command, script)):
                if not isinstance(reason, RunTime):
                    return reason
                question = question or reason
            for target in _written(command, self.here() or None, self.git_env):
                candidates = self.resolve(target)
                if candidates is None:
                    if self.strict is not None:
                        return (
                            f"{self.label}: cannot tell what `{shown(command)}` writes: "
                            f"{target.text} is only known when the command runs"
                        )
                    unknown = unknown or target.text
                    candidates = [target.text]
                for path in candidates:
                    if self.strict is not None and self.bases is None and _nameless(path):
                        return (
                            f"{self.label}: cannot tell what `{shown(command)}` writes: "
                            f"{path} is relative to a directory only known when it runs"
                        )
                    spec = self.hit(self.writes, path, target.above, target.names)
                    if spec is not None and target.asked:
                        question = question or RunTime(
                            f"{self.label}: `{shown(command)}` may rewrite {path}, which "
                            f"holds protected {spec!r}; what it brings is only known when it "
                            "runs"
                        )
                    elif (
                        spec is not None
                        and self.strict is None
                        and posixpath.basename(path).startswith(".env")
                        and _from_template(command)
                    ):
                        question = question or RunTime(
                            f"{self.label}: `{shown(command)}` makes {path} (protected "
                            f"{spec!r}) from a template: a secret file, written if you agree"
                        )
                    elif spec is not None:
                        return (
                            f"{self.label}: `{shown(command)}` may write to {path}, "
                            f"which matches protected {spec!r}"
                        )
        if unknown:  # it writes somewhere we cannot name: any protected word is suspect
            for command in commands:
                for word in _words(command.words):
                    spec = self.writes.match(word, self.cwd, shell_word=True)
                    if spec is not None:
                        return RunTime(
                            f"{self.label}: the command writes to {unknown}, which cannot be "
                            f"resolved before it runs, and `{shown(command)}` names {word}, "
                            f"which matches protected {spec!r}"
                        )
        return question

    def here(self) -> "str | None":
        """The one directory the line runs in, or None once a `cd` may have gone elsewhere."""
        return self.cwd if self.bases == (self.cwd,) else None

    def hit(
        self,
        protection: "Protection",
        path: str,
        above: int = NOT_ABOVE,
        names: "tuple[str, ...]" = (),
    ) -> "str | None":
        """The protected entry a word may hit, wherever in the line it may run."""
        if "(" in path or (self.nocase and not GLOB_CHARS.isdisjoint(path)):
            from bridge.guards.protect.tripwire import nocase, without_extglob

            path = without_extglob(path)
            path = nocase(path) if self.nocase and not GLOB_CHARS.isdisjoint(path) else path
        if self.bases is None:  # matched by what its own words name
            return protection.match(
                path, self.cwd, shell_word=True, unknown_base=True, above=above, names=names
            )
        hits = (
            protection.match(path, base, shell_word=True, above=above, names=names)
            for base in self.bases
        )
        return next(filter(None, hits), None)

    def _moved(
        self, command: "SimpleCommand", bases: "tuple[str, ...]"
    ) -> "tuple[str, ...] | None":
        """`bases` with where `cd`/`pushd` goes added, or None if that is only known when it
        runs (`popd`, `cd -`, a variable the hook cannot know, CDPATH for a relative one)."""
        first = skip_options(tuple(command.argv), 1, frozenset())  # -L, -P, -e, -@, --
        word = command.argv[first] if first < len(command.argv) else "~"  # no operand: home
        if command.name == "popd" or word == "-":
            return None
        found = self.resolve(Target(word, first in command.dynamic))
        if found is None:
            return None
        target = expand_home(found[0])
        cdpath = self.strict.env.get("CDPATH") if self.strict is not None else None
        relative = not target.startswith(("/", "./", "../")) and target not in (".", "..")
        if relative and self.cdpath is None:
            return None
        if cdpath and relative and "CDPATH" not in self.assigned:
            return None
        searched = [*bases, *(self.cdpath or [])] if relative else list(bases)
        moved = (posixpath.normpath(posixpath.join(base, target)) for base in searched)
        return tuple(dict.fromkeys((*bases, *moved)))

    def _setup(self, commands: "list[SimpleCommand]") -> None:
        """Aliases the line defines (Claude Code's shell expands them), `CDPATH` it sets and
        `shopt -s nocaseglob`: each counts for every command of the line, whatever the order."""
        for command in commands:
            argv = command.argv
            if command.name == "alias":
                for i, word in enumerate(argv[1:], 1):
                    name, equals, value = word.partition("=")
                    if equals:
                        self.aliases[name] = None if i in command.dynamic else value
            elif command.name == "shopt" and "-s" in argv and "nocaseglob" in argv:
                self.nocase = True
            if command.name in DECLARERS:
                for word in command.argv[1:]:
                    name, equals, value = word.partition("=")
                    if equals and name in ("GIT_DIR", "GIT_WORK_TREE"):
                        self.git_env[name] = value
            for word in command.words:
                if word.startswith("CDPATH="):
                    value = word[7:]
                    if self.cdpath is not None:
                        if "$" in value or "`" in value:
                            resolved = self.resolve(Target(value, dynamic=True))
                            value = resolved[0] if resolved else ""
                            if not resolved:
                                self.cdpath = None
                                continue
                        self.cdpath += [
                            posixpath.join(self.cwd, expand_home(d)) for d in value.split(":")
                        ]

    def resolve(self, target: "Target") -> "list[str] | None":
        """What a target can be: itself, or with the environment's variables put in."""
        text = target.text
        if text.startswith("~+") and text[2:3] in ("", "/"):  # $PWD: wherever a `cd` went
            if self.bases is None:
                return None
            return [base + text[2:] for base in self.bases]
        if not target.dynamic:
            return [text]
        if self.strict is None:
            return None if ("$" in text or "`" in text) else [text]
        if "TMPDIR" in text and "TMPDIR" not in self.assigned and _TMPDIR.search(text):
            return self._temporary(text)
        resolved = (
            _VARIABLE.sub(lambda m: self._value(m[1] or m[2]) or m[0], text)
            if "$" in text
            else text
        )
        if "$" in resolved or "`" in resolved or resolved.startswith("~-"):
            return None
        return [resolved]

    def _temporary(self, text: str) -> "list[str] | None":
        """A word using `$TMPDIR`, `${TMPDIR}` or `${TMPDIR:-/tmp}` (the line sets no TMPDIR):
        with the environment's value, or, where the hook's environment has none, as the
        command may see it: empty (an unset variable), or `/tmp`. `$TMPDIR/../.claude` is
        then still `/…/.claude` and judged as such."""
        assert self.strict is not None
        known = self.strict.env.get("TMPDIR")
        found: list[str] = []
        for value in (known,) if known is not None else ("", "/tmp"):
            put = _TMPDIR.sub(_tmpdir(value), text)
            resolved = self.resolve(Target(put, dynamic=True))
            if resolved is None:
                return None
            found += [word for word in resolved if word]  # (`rm -rf ""` removes nothing)
        return found

    def _value(self, name: str) -> "str | None":
        """A variable's value in the agent's shell, if the hook can know it."""
        assert self.strict is not None
        if name in self.assigned or name == "OLDPWD":
            return None
        if name == "PWD":  # where the command runs (not the hook), until a `cd`
            return self.here()
        return self.strict.env.get(name)

    def _strict(self, command: "SimpleCommand", script: "Script") -> "str | None":
        """Self-protection's own checks on one command."""
        assert self.strict is not None and self.sealed is not None
        label, said = self.label, shown(command)
        if _runs_ccbridge(command):
            return (
                f"{label}: `{said}` runs ccbridge itself; the agent may not run `ccbridge "
                "run`, `explain`, `install` or `uninstall` (they could forge hook events or "
                "rewrite the registration)"
            )
        if command.argv and 0 in command.dynamic:
            echoed = _echoed(command.argv[0])
            if echoed is not None and self.depth <= 4:  # `$(echo ls)`: the name is in the text
                import shlex

                reason = self.code(shlex.join((*echoed, *command.argv[1:])))
                if reason is None:
                    return None
                return asked_as(reason, f"{label}: `{said}`: {reason.removeprefix(label + ': ')}")
            name = self.resolve(Target(command.argv[0], dynamic=True))
            unknown = name is None or not GLOB_CHARS.isdisjoint(name[0])
            if unknown and self.in_code and not self.as_text:
                return (
                    f"{label}: cannot tell what the inline code runs: it starts a program "
                    "whose name it computes, only known when the code runs"
                )
            if unknown and not self.as_text:  # (code read as shell: its words are judged below)
                return (
                    f"{label}: cannot tell what `{said}` runs: the command name "
                    f"{command.argv[0]} is only known when it runs"
                )
            if name is not None and posixpath.basename(name[0]) == "ccbridge":
                return f"{label}: `{said}` runs ccbridge itself ({name[0]})"
        if command.more_args and self._fed(command):
            return (
                f"{label}: cannot tell what `{said}` writes: xargs hands it arguments that are "
                "only known when the command runs (name the files instead)"
            )
        for word, dynamic in _all_words(command):
            if "/" not in word and (word.startswith("-") or word == command.name):
                continue  # an option or the command's own name: no path (saves the lookups)
            candidates = self.resolve(Target(word, dynamic)) or [word]
            for text in candidates:
                spec = self.hit(self.sealed, text)
                if spec is not None:
                    return (
                        f"{label}: `{said}` names {text}, inside ccbridge's state "
                        f"{spec!r}, which the agent may not touch"
                    )
        reason = self._program(command)
        if reason is None and not _quick_read(command):
            from bridge.guards.protect import tripwire

            reason = tripwire.judge(self, command, script)
        return reason or self._unknown_words(command, script)

    def _fed(self, command: "SimpleCommand") -> bool:
        """Whether what xargs hands a command may decide what it writes: a writer's operands,
        an interpreter's program; not a shell's or interpreter's literal code that writes
        nothing (its code is judged as it is: `xargs sh -c 'wc -l "$1"' _` reads)."""
        if _writes_files(command):
            return True
        if not interpreter(command.argv):
            return False
        source = program(command.argv, command.redirects)
        if source is None:
            return False  # `bash -n`: a syntax check runs nothing
        if source.kind != "inline":
            return True  # the program itself may be one of the arguments
        if interpreter(command.argv) in SHELLS:
            return False  # parsed into `nested`: its commands are judged with `$1` unknown
        return bool(CODE_WRITES.search(source.text))

    def code(self, code: str) -> "str | None":
        self.depth += 1
        try:
            parsed = parse(code)
            if isinstance(parsed, Unparseable):
                return f"cannot read it ({parsed.reason})"
            return self.judge(parsed, code)
        finally:
            self.depth -= 1

    def _program(self, command: "SimpleCommand") -> "str | None":
        """The code an interpreter runs: unknown, or touching what is protected."""
        source = program(command.argv, command.redirects)
        if source is None or (interpreter(command.argv) in SHELLS and source.kind == "inline"):
            return None  # shell code was parsed into `nested` and is judged as commands
        index = next(
            (i for i, w in enumerate(command.argv) if source.text and w.endswith(source.text)), -1
        )
        if index in command.dynamic:
            return (
                f"{self.label}: cannot tell what `{shown(command)}` runs: its program "
                f"{source.text} is only known when it runs"
            )
        if source.kind not in ("inline", "stdin") or self.depth > 4:
            return None
        from bridge.guards.protect import interpreted

        return interpreted.judge(self, command, source.text)

    def mentioned(self, text: str) -> "str | None":
        """The first piece of a protected path (`.claude`, `goals.sqlite3` ...) `text` holds."""
        assert self.strict is not None
        return next((name for name in sorted(self.strict.names) if name in text), None)

    def _unknown_words(self, command: "SimpleCommand", script: "Script") -> "str | None":
        """An unresolvable word in a command that may write, in a line naming protected bits."""
        assert self.strict is not None
        if command.name in _READERS or _git_reads(command) or command.name in ("", "ccbridge"):
            return None  # (a ccbridge command that got here is `goal` or a read-only one)
        unknown = next(
            (
                word
                for word, dynamic in _all_words(command)
                if dynamic and self.resolve(Target(word, dynamic=True)) is None
            ),
            None,
        )
        if unknown is None:
            return None
        hint = self.mentioned(source_text(script))
        if hint is None:
            return None
        return (
            f"{self.label}: cannot tell what `{shown(command)}` does with {unknown}, which is "
            f"only known when it runs, in a command line that mentions {hint}"
        )


def _tmpdir(value: str) -> "Callable[[re.Match[str]], str]":
    def put(found: "re.Match[str]") -> str:
        return value or found[1] or ""  # `${TMPDIR:-D}`: D where it is empty or unset

    return put


def _echoed(word: str) -> "tuple[str, ...] | None":
    """The fields a command name made by `$(echo WORDS)` or `` `echo WORDS` `` becomes, when
    the words are literal (no option, variable, glob or redirection); else None."""
    if word.startswith("$(") and word.endswith(")"):
        inner = word[2:-1]
    elif word.startswith("`") and word.endswith("`") and len(word) > 1:
        inner = word[1:-1]
    else:
        return None
    parsed = parse(inner)
    if isinstance(parsed, Unparseable):
        return None
    commands = list(parsed.commands())
    if len(commands) != 1 or commands[0].argv[:1] != ("echo",):
        return None
    echo = commands[0]
    fields = echo.argv[1:]
    if echo.dynamic or echo.redirects or echo.nested or len(echo.words) != len(echo.argv):
        return None
    if any(f.startswith("-") or not GLOB_CHARS.isdisjoint(f) or not f for f in fields):
        return None
    return tuple(w for f in fields for w in f.split())


def _quick_read(command: "SimpleCommand") -> bool:
    """Whether a command surely only reads: an allow-listed name (or a reading git verb) with
    no assignment, wrapper or option in front that could hand it code or an output file."""
    if len(command.words) != len(command.argv):
        return False
    if command.name == "git":
        return (
            _git_reads(command)
            and not any(w.startswith(_GIT_UNREAD) for w in command.argv)
            and "config" not in command.argv[1:3]
        )
    if command.name in DECLARERS:
        return not any("=" in w for w in command.argv[1:])
    return command.name in _READERS and command.name not in ("env", "export")


def _assigned(commands: "Iterable[SimpleCommand]") -> "frozenset[str]":
    """Names the command line assigns (they are not taken from the environment)."""
    names: set[str] = set()
    for command in commands:
        words = command.words[: len(command.words) - len(command.argv)]
        if command.argv[:1] and command.argv[0] in ("export", "local", "declare", "readonly"):
            words = command.argv[1:]
        names |= {w.split("=", 1)[0] for w in words if "=" in w}
        if command.argv[:1] in (("for",), ("select",)):
            names |= set(command.argv[1:2])
        if command.argv[:1] in (("read",), ("mapfile",), ("readarray",), ("getopts",)):
            names |= {w for w in command.argv[1:] if not w.startswith("-")}
    return frozenset(names)


def _all_words(command: "SimpleCommand") -> "Iterator[tuple[str, bool]]":
    """Every word (with the value in `of=x`), whether it is dynamic, redirection targets and
    path-like tokens of inline code."""
    offset = len(command.words) - len(command.argv)
    for i, word in enumerate(command.words):
        dynamic = (i - offset) in command.dynamic or (i < offset and "$" in word)
        yield word, dynamic
        if "=" in word:
            yield word.split("=", 1)[1], dynamic
    for redirect in command.redirects:
        if redirect.body is None:
            yield redirect.target, redirect.dynamic
        elif redirect.dynamic:  # a here-document's words that expand
            from bridge.guards.protect.tripwire import text_words

            yield from ((w, True) for w in text_words(redirect.body, expands=True) if "$" in w)
    yield from ((token, False) for token in _code_tokens(command))


def _runs_ccbridge(command: "SimpleCommand") -> bool:
    argv = command.argv
    if command.name == "ccbridge":
        return len(argv) < 2 or _subcommand(argv, 1) not in _AGENT_SUBCOMMANDS
    for i, word in enumerate(argv[1:], 1):  # behind a wrapper we do not know
        if posixpath.basename(word) == "ccbridge" and _subcommand(argv, i + 1) in (
            _FORBIDDEN_SUBCOMMANDS
        ):
            return True
    if any(_module(argv, i).split(".")[0] in ("bridge", "runpy") for i in range(1, len(argv))):
        return True  # python -m bridge ..., -mbridge, -Im bridge
    source = program(argv, command.redirects)
    if source is not None and source.kind == "file":
        path = posixpath.normpath(source.text)
        if posixpath.basename(path) == "ccbridge" or path.startswith(_PACKAGE + "/"):
            return True
    if (command.name in _READERS or _git_reads(command)) and not any(
        r.writes for r in command.redirects
    ):
        return False  # `grep "ccbridge run" README.md` only reads; a written script may not
    return any(  # every match names `bridge` or `runpy`: most words need no regex
        ("bridge" in text or "runpy" in text) and _CCBRIDGE_TEXT.search(text)
        for text in (*command.words, *inline_programs(command.argv, command.redirects))
    )


# Python's options that take no value: they may stand before `m` in one word (`-Imbridge`).
_PYTHON_FLAGS = frozenset("bBdEhiIOPqsSuvVxR")


def _module(argv: "tuple[str, ...]", i: int) -> str:
    """The module a Python option word at `i` runs (`-m M`, `-mM`, `-Im M`), else ''."""
    word = argv[i]
    if not word.startswith("-") or word.startswith("--"):
        return ""
    for k, letter in enumerate(word[1:], 1):
        if letter == "m":
            return word[k + 1 :] or (argv[i + 1] if i + 1 < len(argv) else "")
        if letter not in _PYTHON_FLAGS:
            return ""
    return ""


def _subcommand(argv: "tuple[str, ...]", start: int) -> str:
    if argv[start : start + 1] and argv[start] in _AGENT_SUBCOMMANDS:
        return argv[start]  # `--help`, `--version`
    i = skip_options(argv, start, frozenset({"--config"}))
    return argv[i] if i < len(argv) else ""


def _nameless(path: str) -> bool:
    """Whether a relative word says nothing of what it reaches without knowing where it is
    resolved: a glob, or the directory itself (`*`, `s.*`, `.`, `./`)."""
    absolute = path.startswith(("/", "~/")) or path == "~"  # (`~nosuchuser` stays as it is)
    return not absolute and (not GLOB_CHARS.isdisjoint(path) or posixpath.normpath(path) == ".")


def _written(
    command: "SimpleCommand", cwd: "str | None", git_env: "Mapping[str, str] | None" = None
) -> "Iterator[Target]":
    """Paths the command may write: redirections, and the words of writing commands (`cwd`:
    where the agent's command runs, None when a `cd` made it unknown)."""
    yield from (Target(r.target, r.dynamic, NOT_ABOVE) for r in command.redirects if r.writes)
    argv, dynamic = command.argv, command.dynamic
    name = command.name
    if name in READ_CLOSELY or (name == "git" and not _git_reads(command)):
        if name != "find" or _writes_files(command):
            yield from _read_closely(command, cwd, git_env or {})
    elif _writes_files(command):
        for i, word in enumerate(argv[1:], 1):
            yield from (Target(w, i in dynamic) for w in _words((word,)))
            if name in ("gzip", "gunzip", "bunzip2", "unxz", "unzstd", "xz", "zstd", "bzip2"):
                stem, suffix = posixpath.splitext(word)
                if suffix in _COMPRESSED:
                    yield Target(stem, i in dynamic)
    if name in SCRIPTED:
        from bridge.guards.protect import writes

        yield from writes.script_outputs(command)
    code = inline_programs(command.argv, command.redirects)
    destroys = any(_CODE_DESTROYS.search(text) for text in code)
    yield from (
        Target(token, above=ANY_ABOVE if destroys else NOT_ABOVE) for token in _code_tokens(command)
    )


def _from_template(command: "SimpleCommand") -> bool:
    """`cp .env.example .env`: a plain copy whose every source is an env template."""
    if command.name not in ("cp", "install") or command.dynamic or command.redirects:
        return False
    words = command.argv[1:]
    if any(w.startswith("-") and w.lstrip("-")[:1] in ("t", "T", "target") for w in words):
        return False  # `-t DIR`, `--target-directory`: the destination is not last
    operands = [w for w in words if not w.startswith("-")]
    sources = operands[:-1]
    return bool(sources) and all(is_template(posixpath.basename(w)) for w in sources)


def _read_closely(
    command: "SimpleCommand", cwd: "str | None", git_env: "Mapping[str, str]"
) -> "Iterator[Target]":
    """What a copy, move, find, extraction or patch writes: `bridge.guards.protect.writes`, loaded
    only for a line holding one (most lines write nothing)."""
    from bridge.guards.protect import writes

    name = command.name
    if name in COPIERS or name in MOVERS:
        yield from writes.copied(command)
    elif name == "find":
        yield from writes.found(command)
    elif name in EXTRACTORS:
        yield from writes.extracted(command)
    else:  # git (a subcommand that may write), patch
        yield from writes.patched(command, cwd, git_env)


def _code_tokens(command: "SimpleCommand") -> "Iterator[str]":
    """Path-like tokens of inline interpreter code."""
    for text in inline_programs(command.argv, command.redirects):
        yield from (t for t in _CODE_TOKEN_SEPARATORS.split(text) if t)


def _writes_files(command: "SimpleCommand") -> bool:
    if command.name in WRITERS:
        return True
    if command.name == "find":  # what it deletes or hands to a writer is named by its words
        # (a nested find too: `-execdir sh -c 'find . -delete'` deletes below each match)
        from bridge.shell.finds import actions, starts

        # Primaries only: `-gid -delete` is a value, `-exec echo -delete +` echo's argument
        # (find's own options are kept: `find -D -delete` counts, failing closed).
        first, end = starts(command.argv)
        tests = {*command.argv[1:first], *actions(command.argv[end:])[0]}
        nested = (c for inner in command.nested for c in inner.commands())
        return bool({"-delete", "-fprint", "-fprintf", "-fls"} & tests) or any(
            _writes_files(c) for c in nested
        )
    options = [w for w in command.argv[1:] if w.startswith("-") and not w.startswith("--")]
    if command.name == "sed":
        return any("i" in o for o in options) or any(
            w.startswith("--in-place") for w in command.argv
        )
    return command.name == "perl" and any("i" in o for o in options)


def _git_reads(command: "SimpleCommand") -> bool:
    if command.name != "git":
        return False
    i = skip_options(command.argv, 1, frozenset({"-C", "-c", "--git-dir", "--work-tree"}))
    return i < len(command.argv) and command.argv[i] in _GIT_READERS


def _words(words: "Iterable[str]") -> "Iterator[str]":
    """Each word, and the value in `of=x` or `--target-directory=x`."""
    for word in words:
        yield word
        if "=" in word:
            yield word.split("=", 1)[1]
