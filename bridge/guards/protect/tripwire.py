"""Self-protection's reading of commands it does not know: the text judgement (the "tripwire")
for where Claude Code's sandbox is absent.

`bridge.guards.protect.protect_paths` keeps a short allow-list of commands that only read or
print and loads this module for any other command in a self-protection judgement. Here:

- every word of a command not known to be read-only counts as a path it may write (`sort -o F`,
  `uniq IN F`, `openssl -out F`, `cmake -E copy A F`, `sqlite3 DB '.output F'`, `vim -c 'w! F'`):
  the word itself, the value in `--opt=F`, a value glued to a short option (`-oF`) and the
  path-like pieces of a word holding spaces or of a here-document;
- code handed over as an argument or a variable is read as code (`trap`, `coproc`, `env -S`,
  sed's `e`, `make --eval`, `git -c core.*=` and git aliases, `*_EDITOR`/`*_COMMAND`/`PAGER`
  variables, `tmux new`, `gdb -ex 'shell ...'`, `mapfile -C`, `. /dev/stdin <<< CODE`, tar's
  `--to-command`, `man -P`, `rsync -e`, `ssh HOST CMD`, `vim -c '!cmd'`, `at`); code only known
  when it runs counts as a possible write;
- a program whose first operand is `run`, `install`, `uninstall`, `reinstall` or `explain` is
  looked at on disk: a copy, symlink or hard link of ccbridge's launcher is ccbridge whatever
  its name, and one that does not exist yet (made earlier in the same line) cannot be told.
"""

from __future__ import annotations

import os
import posixpath

from bridge.guards.protect import (
    DECLARERS,
    NOT_ABOVE,
    PARENT_ABOVE,
    READ_CLOSELY,
    SCRIPTED,
    WRITERS,
    Target,
    asked_as,
    shown,
    source_text,
)
from bridge.shell import Lazy, pairs
from bridge.shell.runners import (
    SHELLS,
    STDIN_FILES,
    Program,
    inline_programs,
    program,
    skip_options,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping

    Codes = Iterator[tuple[str, str | None]]

    from bridge.guards.protect.protect_paths import BashCall
    from bridge.shell.syntax import Script, SimpleCommand

# Readers with options that make them write a file or run code: name -> those options (a
# word starting with one of them). `uniq IN OUT` and `xxd IN OUT` write their second operand.
READ_UNLESS = {
    "sort": ("-o", "--output", "--compress-program"),
    "tree": ("-o",),
    "less": ("-o", "-O", "--log-file", "--LOG-FILE"),
    "rg": ("--pre",),
    "file": ("-C", "--compile"),
    "xxd": ("-r", "--revert"),
    "history": ("-w", "-a", "-r", "-n"),
    "date": ("-s", "--set"),
    "hostname": ("-F", "--file"),
}
READ_UNLESS["uniq"] = ()
# Those that write a second operand: name -> their options that take a value (`xxd -g 1 F`).
TWO_OPERANDS_WRITE = {
    "uniq": frozenset({"-f", "-s", "-w"}),
    "xxd": frozenset({"-c", "-g", "-l", "-o", "-s", "-n", "-cols", "-groupsize", "-len"})
    | frozenset({"-offset", "-seek", "-name"}),
}
# Commands that make what they name and never change what exists: only an exact hit counts.
CREATORS = frozenset({"mkdir"})
# Commands whose writes are read from their syntax (`written_by_model`): what else they name
# they only read.
MODELED = frozenset({"zip", "cmake", "tar", "bsdtar"})
# Git verbs that only read the work tree, unless an option writes a file or runs code.
GIT_READ_VERBS = frozenset(
    {"status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "grep", "describe"}
    | {"shortlog", "branch", "tag", "fetch", "push", "remote", "commit", "add", "rev-list"}
    | {"cat-file", "ls-tree", "show-ref", "for-each-ref", "reflog", "whatchanged", "version"}
    | {"help", "var", "count-objects", "fsck", "check-ignore", "merge-base", "name-rev"}
)
GIT_WRITING_OPTIONS = ("--output", "-O", "--open-files-in-pager", "--ext-diff", "--textconv")
# Variables whose value a program runs as a command.
CODE_VARIABLES = frozenset(
    {"EDITOR", "VISUAL", "PAGER", "MANPAGER", "BASH_ENV", "ENV", "PROMPT_COMMAND", "LESSOPEN"}
    | {"LESSCLOSE", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "GIT_EXTERNAL_DIFF"}
    | {"GIT_PROXY_COMMAND", "GIT_CONFIG_PARAMETERS", "SHELL", "FCEDIT"}
)
CODE_VARIABLE_ENDINGS = ("_EDITOR", "_COMMAND", "_PAGER", "_ASKPASS")
# git config keys whose value is a command (or a file of commands) git runs.
_GIT_CODE_KEYS = ("core.", "alias.", "pager.", "filter.", "credential.", "gpg.", "include")
_GIT_CODE_KEY_ENDINGS = (".textconv", ".command", ".driver", ".program", ".cmd", ".tool", "hook")
_GIT_CODE_KEY_NAMES = frozenset({"sequence.editor", "diff.external", "uploadpack.packobjectshook"})
_TMUX_CODE_VERBS = frozenset(
    {"new", "new-session", "new-window", "neww", "split-window", "splitw", "respawn-pane"}
    | {"respawnp", "respawn-window", "respawnw", "run-shell", "run", "send-keys", "send"}
    | {"display-popup", "popup", "pipe-pane", "pipep", "if-shell", "if"}
)
_TMUX_VALUES = frozenset({"-s", "-n", "-c", "-t", "-x", "-y", "-e", "-F", "-f", "-l", "-p"})
_TAR_CODE = (
    *("--to-command", "--checkpoint-action", "--use-compress-program", "-I"),
    *("--info-script", "--new-volume-script", "-F", "--rsh-command"),
)
_SSH_VALUES = frozenset(
    {"-B", "-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o"}
    | {"-p", "-Q", "-R", "-S", "-W", "-w"}
)
# An ex command that is a shell escape (`!cmd`, `:silent !cmd`), and one that may run code
# (`r !cmd`, `w !cmd`, a filter `%!cmd`; `w!` only forces a write).
_EX_SHELL = Lazy(r"\s*:?\s*(?:silent!?\s*)?!(.*)")
_EX_CODE = Lazy(
    r"(?:^|[|:])\s*(?:sil(?:ent)?!?\s*)?(?:[%.$\d,']*|r(?:ead)?\s*|w(?:rite)?\s+)!"
    r"|system|terminal|\b(?:py|python|pyx|lua|perl|ruby|tcl|mz)\w*\b|\bso(?:urce)?\b"
)
_READS_STDIN = STDIN_FILES | {"-"}  # what `.` and `source` read the script from stdin by
CCBRIDGE_SUBCOMMANDS = frozenset({"run", "install", "uninstall", "reinstall", "explain"})
# What a copy of ccbridge's launcher (or a wrapper script around it) holds.
_LAUNCHER_MARKS = (b"import bridge", b"from bridge", b"bridge.__main__", b"-m bridge", b"ccbridge")
# sed's `e` command runs the rest of its line, `;` and `}` included (a backslash-newline goes
# on), as GNU sed reads it; the `s` command's `e` flag runs the pattern space, a run-time value.
_SED_EXEC = Lazy(
    r"(?:(?:^|[;\n{}!$\d])\s*e[ \t]*|/\s*e[ \t]+)((?:[^\n\\]|\\[\s\S])*)"
    r"|/[gpiImM\d]*e\s*(?:$|[;\n}])"
)
# awk's `system("cmd")`, `print | "cmd"` and `"cmd" | getline`.
_AWK_CODE = Lazy(
    r"\bsystem\s*\(\s*(?:\"([^\"]*)\"\s*\))?|\|\s*(?:\"([^\"]*)\")?|\"([^\"]*)\"\s*\|\s*getline"
)
_EXTGLOB = Lazy(r"[?*+@!]\([^()]*\)")
# The words of a text read for paths (`'.output F'`, a here-document's lines); where the shell
# expands the text, `${NAME}` stays inside its word.
_TEXT_WORDS = Lazy(r"(?:\$\{[^{}\s]*\}|[^\s'\"`()\[\]{},;:<>|&=])+")
_TEXT_SEPARATORS = Lazy(r"[\s'\"`()\[\]{},;:<>|&=]+")


def text_words(text: str, expands: bool = False) -> list[str]:
    """The words of `text`, split at blanks, quotes, brackets and punctuation."""
    if expands:
        return [found[0] for found in _TEXT_WORDS.finditer(text)]
    return _TEXT_SEPARATORS.split(text)


def judge(call: BashCall, command: SimpleCommand, script: Script) -> str | None:
    """The objection to a command not on the quick allow-list, in self-protection's judgement
    `call`: an alias, code it hands on, a copy of ccbridge, a word it may write."""
    assert call.strict is not None
    label, said = call.label, shown(command)
    if command.argv and command.argv[0] in call.aliases:
        return _alias(call, command, script)
    copy = runs_a_copy(command, call.here(), call.strict.env)
    if copy is not None:
        return (
            f"{label}: `{said}` may run ccbridge under another name ({copy}); the agent may not "
            "run `ccbridge run`, `install` or `uninstall`"
        )
    for what, code in codes(command):
        if code is None or call.depth > 4:
            if reason := _runtime_code(call, command, script, what):
                return reason
            continue
        reason = call.code(code)
        if reason is not None:  # (a reason of a nested command names that command)
            if reason.startswith(label):
                return reason
            return asked_as(reason, f"{label}: `{said}` runs {what}: {reason}")
    if read_only(command):
        return None
    name = command.name
    modeled = READ_CLOSELY | SCRIPTED | WRITERS | MODELED
    whole = not git_modeled(command) if name == "git" else name not in modeled
    inline = inline_programs(command.argv, command.redirects)  # read as code by protect_paths
    found = [*loose_words(command, whole, inline), *written_by_model(command)]
    level = NOT_ABOVE if name in CREATORS else PARENT_ABOVE
    for text, dynamic in found:
        candidates = call.resolve(Target(text, dynamic)) if dynamic else [text]
        for path in candidates or ():
            spec = call.hit(call.writes, path, level)
            if spec is not None:
                return (
                    f"{label}: `{said}` may write to {path}, which matches protected {spec!r} "
                    f"({name or 'the command'} is not known to only read)"
                )
    return None


def _alias(call: BashCall, command: SimpleCommand, script: Script) -> str | None:
    """A command the line made an alias of: what it stands for, judged as commands."""
    value = call.aliases[command.argv[0]]
    if value is None or call.depth > 4:
        return _runtime_code(call, command, script, f"alias {command.argv[0]}")
    import shlex

    reason = call.code(f"{value} {shlex.join(command.argv[1:])}")
    if reason is None:
        return None  # what the alias stands for was judged in full
    text = reason.removeprefix(call.label + ": ")
    said = f"{call.label}: `{shown(command)}` runs alias {command.argv[0]}={value!r}: {text}"
    return asked_as(reason, said)


def _runtime_code(call: BashCall, command: SimpleCommand, script: Script, what: str) -> str | None:
    """Code only known when it runs: a possible write, in a line naming protected bits."""
    hint = call.mentioned(source_text(script))
    if hint is None:
        return None
    return (
        f"{call.label}: cannot tell what `{shown(command)}` runs through {what}: its code is "
        f"only known when it runs, in a command line that mentions {hint}"
    )


def read_only(command: SimpleCommand) -> bool:
    """Whether a command the quick allow-list left out still only reads (`sort F`, `git log`)."""
    name, argv = command.name, command.argv
    if name.startswith("python") and program(argv) == Program("module", "json.tool"):
        module = next(i for i, w in enumerate(argv) if w.endswith("json.tool"))
        return len(_operands(argv[module:], frozenset({"--indent"}))) <= 1  # IN OUT writes OUT
    if name in READ_UNLESS:
        options = READ_UNLESS[name]
        if any(w.startswith(options) for w in argv[1:]):
            return False
        with_value = TWO_OPERANDS_WRITE.get(name)
        return with_value is None or len(_operands(argv, with_value)) <= 1
    if name == "git":
        verb = git_verb(argv)
        if verb not in GIT_READ_VERBS or any(w.startswith(GIT_WRITING_OPTIONS) for w in argv):
            return False
        if verb == "config":
            return False
        return not _git_config_options(argv)
    return False


def _operands(argv: tuple[str, ...], with_value: frozenset[str]) -> list[str]:
    """The operands of `argv[1:]`, `-` included, past options and the values `with_value` take."""
    found, words = [], iter(argv[1:])
    for word in words:
        if word in with_value:
            next(words, None)
        elif word == "-" or not word.startswith("-"):
            found.append(word)
    return found


def git_verb(argv: tuple[str, ...]) -> str:
    i = skip_options(argv, 1, frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"}))
    return argv[i] if i < len(argv) else ""


def _git_config_options(argv: tuple[str, ...]) -> list[str]:
    """`KEY=VALUE` of each `-c` before git's verb (and `--config-env` ones)."""
    i = skip_options(argv, 1, frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"}))
    found = [b for a, b in pairs(argv[:i]) if a == "-c"]
    return found + [w for w in argv[1:i] if w.startswith("--config-env")]


def loose_words(
    command: SimpleCommand, whole: bool, code: tuple[str, ...] = ()
) -> Iterator[tuple[str, bool]]:
    """What a command not known to be read-only may write, as (text, dynamic): with `whole`
    its words, values after `=` and glued to short options; always the path-like pieces of a
    word holding spaces (`'.output F'`, `'w! F'`) and of here-documents."""
    argv, dynamic = command.argv, command.dynamic
    for i, word in enumerate(argv[1:], 1):
        unknown = i in dynamic
        if word in code:
            continue
        if " " in word or "\n" in word or "\t" in word:
            yield from ((token, unknown) for token in text_words(word) if _path_like(token))
        if not whole:
            continue
        if word.startswith("-"):
            if "=" in word:
                yield word.split("=", 1)[1], unknown
            elif not word.startswith("--") and len(word) > 2 and _path_like(word):
                yield from (
                    (word[k:], unknown) for k in range(2, len(word)) if word[k - 1].isalpha()
                )
            continue
        yield word, unknown
        if "=" in word:
            yield word.split("=", 1)[1], unknown
    for redirect in command.redirects:
        text = redirect.body if redirect.body is not None else None
        text = redirect.target if redirect.op == "<<<" else text
        if text and redirect.dynamic:  # `$X/settings.json` in an expanding here-document
            found = text_words(text, expands=True)
            yield from ((t, "$" in t or "`" in t) for t in found if _path_like(t))
        elif text:
            yield from ((t, False) for t in text_words(text) if _path_like(t))


def _path_like(token: str) -> bool:
    return bool(token) and ("/" in token or "." in token or "~" in token)


def git_modeled(command: SimpleCommand) -> bool:
    """Whether bridge.guards.protect.writes reads what this git verb writes in the work tree."""
    from bridge.guards.protect.writes import GIT_MODELED

    return git_verb(command.argv) in GIT_MODELED


def written_by_model(command: SimpleCommand) -> list[tuple[str, bool]]:
    """What zip, `cmake -E`, and tar outside extraction write (their other words are read)."""
    name, argv, dynamic = command.name, command.argv, command.dynamic
    operands = [(w, i in dynamic) for i, w in enumerate(argv) if i and not w.startswith("-")]
    if name in ("tar", "bsdtar"):
        archive = tar_archive(command)
        return [(archive, False)] if archive else []
    if name == "zip":
        out = [(b, False) for a, b in pairs(argv) if a in ("-O", "--output-file")]
        return out + operands[:1]
    if name == "cmake" and "-E" in argv:
        tool = argv[argv.index("-E") + 1 : argv.index("-E") + 2]
        operands = [(w, d) for w, d in operands if w not in tool]
        if tool and tool[0] in ("copy", "copy_if_different", "copy_directory", "create_symlink"):
            return operands[-1:]
        if tool and tool[0] in ("echo", "cat", "md5sum", "sha256sum", "compare_files", "env"):
            return []
        return operands
    return []


def tar_archive(command: SimpleCommand) -> str | None:
    """The archive `tar -c`/`-r`/`-u`/`--delete` writes (its `-f` value), or None."""
    argv = command.argv
    for i, word in enumerate(argv[1:], 1):
        if word.startswith("--file="):
            return word.split("=", 1)[1]
        if word == "--file" and i + 1 < len(argv):
            return argv[i + 1]
        cluster = word[1:] if word.startswith("-") and not word.startswith("--") else ""
        cluster = word if i == 1 and not word.startswith("-") else cluster  # `tar czf X`
        if "f" in cluster:
            rest = cluster[cluster.index("f") + 1 :]
            if rest and word.startswith("-"):
                return rest
            return argv[i + 1] if i + 1 < len(argv) else None  # `-cf - .claude`: stdout
    return None


def codes(command: SimpleCommand) -> Iterator[tuple[str, str | None]]:
    """Code the command hands to something that runs it, as (what, code); code None when it
    is only known at run time."""
    yield from _environment_codes(command, _assignments(command))
    if _reads_code_from_stdin(command.name, command.argv):
        yield from _stdin_code(command, command.name)
    reader = _CODE_READERS.get(command.name)
    if reader is not None:
        yield from reader(command.name, command.argv, command)


def _assignments(command: SimpleCommand) -> dict[str, str | None]:
    """Variables set for (or by) the command: NAME=VALUE in front of it, behind a wrapper
    (`env X=1`), or as arguments of export/declare; None when the value is computed."""
    words = command.words[: len(command.words) - len(command.argv)]
    if command.name in DECLARERS:
        words = command.argv[1:]
    found: dict[str, str | None] = {}
    for word in words:
        name, equals, value = word.partition("=")
        if equals and name.replace("_", "a").isalnum() and not name[:1].isdigit():
            found[name] = None if ("$" in value or "`" in value) else value
    return found


def _environment_codes(command: SimpleCommand, assignments: Mapping[str, str | None]) -> Codes:
    """Code in variables a program runs (`GIT_SSH_COMMAND`, `git -c` through `GIT_CONFIG_*`), a
    wrapper's string (`watch 'cmd'`) and `env -S`, whatever the program."""
    argv, words = command.argv, command.words
    for variable, value in assignments.items():
        if (
            variable in CODE_VARIABLES
            or variable.endswith(CODE_VARIABLE_ENDINGS)
            or variable.startswith("GIT_CONFIG_VALUE_")  # `git -c` through the environment
        ):
            # `GIT_CONFIG_VALUE_0='!cmd'` for an alias is `git -c alias.x='!cmd'`
            yield f"${variable}", value.removeprefix("!") if value else value
    if argv and any(c in argv[0] for c in " \t\n"):  # `watch 'cmd'`: a wrapper runs a string
        yield argv[0], " ".join(argv) if 0 not in command.dynamic else None
    for k, word in enumerate(words):  # `env -S 'CODE'`: env was unwrapped, its words remain
        if posixpath.basename(word) == "env":
            for option, value in pairs(words[k:]):
                if option in ("-S", "--split-string"):
                    yield "env -S", value
            for option in words[k + 1 :]:
                if option.startswith("--split-string="):
                    yield "env -S", option.split("=", 1)[1]
                elif option.startswith("-S") and len(option) > 2:
                    yield "env -S", option[2:]


def _trap_codes(_name: str, argv: tuple[str, ...], command: SimpleCommand) -> Codes:
    i = skip_options(argv, 1, frozenset())
    if i < len(argv) and "-p" not in argv and "-l" not in argv:
        yield "trap", None if i in command.dynamic else argv[i]


def _coproc_codes(_name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    if len(argv) > 1:
        import shlex

        inner = [w for w in argv[1:] if w not in ("{", "}")]  # `coproc NAME { ...; }`
        yield "coproc", shlex.join(inner)
        if len(inner) > 1:
            yield "coproc", shlex.join(inner[1:])


def _mapfile_codes(name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    return _option_codes(name, argv, ("-C",))  # the callback


def _sed_codes(_name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    for text in _sed_scripts(argv):
        for found in _SED_EXEC.finditer(text):
            yield "sed e", (found[1] or "").replace("\\\n", "\n").strip() or None


def _awk_codes(name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    for text in argv[1:]:
        for found in _AWK_CODE.finditer(text):
            literal = next((g for g in found.groups() if g), None)
            yield f"{name} system", literal


def _make_codes(_name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    for i, word in enumerate(argv[1:], 1):
        if word.startswith("--eval="):
            yield "make --eval", word.split("=", 1)[1]
        elif word in ("--eval", "-E") and i + 1 < len(argv):
            yield "make --eval", argv[i + 1]
        elif word.startswith("-E") and len(word) > 2:
            yield "make --eval", word[2:]


def _screen_codes(name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    i = skip_options(argv, 1, frozenset({"-S", "-c", "-e", "-p", "-T", "-t", "-X"}))
    if i < len(argv):
        import shlex

        yield name, shlex.join(argv[i:])


def _debugger_codes(name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    for i, word in enumerate(argv[1:], 1):
        value = None
        if word in ("-ex", "--ex", "-iex", "-eval-command", "--eval-command", "-o", "-O"):
            value = argv[i + 1] if i + 1 < len(argv) else ""
        elif word.startswith(("--eval-command=", "-eval-command=")):
            value = word.split("=", 1)[1]
        if value is not None:
            text = value.strip()
            head, _, rest = text.partition(" ")
            if head == "platform":  # lldb's `platform shell CMD`
                head, _, rest = rest.strip().partition(" ")
            if text.startswith("!"):  # `!cmd` and `! cmd`
                yield f"{name} -ex", text[1:]
            else:
                yield f"{name} -ex", rest if head == "shell" else None


def _zip_codes(name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    return _option_codes(name, argv, ("-TT", "--unzip-command"))  # the archive's test


def _tar_codes(_name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    for i, word in enumerate(argv[1:], 1):
        if word.startswith(_TAR_CODE):
            option, equals, value = word.partition("=")
            value = value if equals else (argv[i + 1] if i + 1 < len(argv) else "")
            yield f"tar {option}", value.removeprefix("exec=") or None


def _option_codes(name: str, argv: tuple[str, ...], options: tuple[str, ...]) -> Codes:
    """The values of `options` (`-e CMD`, `--rsh CMD`, `--rsh=CMD`), as code `name` runs,
    named by the first option."""
    for option, value in pairs(argv):
        if option in options:
            yield f"{name} {options[0]}", value
    long = tuple(o + "=" for o in options if o.startswith("--"))
    yield from ((f"{name} {options[0]}", w.split("=", 1)[1]) for w in argv if w.startswith(long))


def _man_codes(name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    return _option_codes(name, argv, ("-P", "--pager"))  # the pager, run by the shell


def _rsync_codes(name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    return _option_codes(name, argv, ("-e", "--rsh"))  # the remote shell, started here


def _at_codes(name: str, argv: tuple[str, ...], command: SimpleCommand) -> Codes:
    """`at`/`batch` run the commands they read: from stdin, or a file (`-f F`)."""
    if not any(w.startswith(("-l", "-r", "-d", "-c")) for w in argv[1:]):  # (lists, removes)
        yield from (_stdin_code(command, name) if "-f" not in argv else [(f"{name} -f", None)])


def _ssh_codes(name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    """The command `ssh HOST CMD` runs there (`localhost` is here), and a `ProxyCommand` or
    `LocalCommand`, run here."""
    for option, value in pairs(argv):
        key, _, code = value.replace("=", " ", 1).partition(" ")
        if option == "-o" and key.lower() in ("proxycommand", "localcommand"):
            yield f"{name} -o {key}", code.strip()
    i = skip_options(argv, 1, _SSH_VALUES)
    if i + 1 < len(argv):
        yield name, " ".join(argv[i + 1 :])


def _editor_codes(name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    """An ex command vim runs at start (`-c`, `--cmd`, `+CMD`): a shell escape (`!cmd`) is that
    command; one that may run code otherwise (`r !`, `w !`, `system()`, `:terminal`, a script
    language) is only known when it runs."""
    values = [b for a, b in pairs(argv) if a in ("-c", "--cmd")]
    values += [w[1:] for w in argv[1:] if w.startswith("+") and not w[1:].isdigit()]
    for value in values:
        escape = _EX_SHELL.fullmatch(value)
        if escape is not None:
            yield f"{name} -c", escape[1]
        elif _EX_CODE.search(value):
            yield f"{name} -c", None


def _expect_codes(name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    if "-c" in argv:  # Tcl, only known when it runs
        yield f"{name} -c", None


def _git(_name: str, argv: tuple[str, ...], command: SimpleCommand) -> Codes:
    return _git_codes(argv, command)


def _tmux(_name: str, argv: tuple[str, ...], _command: SimpleCommand) -> Codes:
    return _tmux_codes(argv)


# The programs that take code in an option or an argument of their own, and how to read it.
_CODE_READERS: dict[str, Callable[[str, tuple[str, ...], SimpleCommand], Codes]] = {
    "trap": _trap_codes,
    "coproc": _coproc_codes,
    **dict.fromkeys(("mapfile", "readarray"), _mapfile_codes),
    "sed": _sed_codes,
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), _awk_codes),
    **dict.fromkeys(("make", "gmake"), _make_codes),
    "git": _git,
    "tmux": _tmux,
    **dict.fromkeys(("screen", "byobu"), _screen_codes),
    **dict.fromkeys(("gdb", "lldb"), _debugger_codes),
    "zip": _zip_codes,
    **dict.fromkeys(("tar", "bsdtar"), _tar_codes),
    "man": _man_codes,
    "rsync": _rsync_codes,
    **dict.fromkeys(("at", "batch"), _at_codes),
    "ssh": _ssh_codes,
    **dict.fromkeys(("vim", "vi", "nvim", "view", "ex", "vimdiff", "gvim"), _editor_codes),
    "expect": _expect_codes,
}


def _reads_code_from_stdin(name: str, argv: tuple[str, ...]) -> bool:
    """`. /dev/stdin`, `source /proc/self/fd/0`, `bash /dev/stdin` (the shell's `-s` and `-`
    forms are read by bridge.shell.syntax)."""
    if name in (".", "source"):
        return argv[1:2] != () and argv[1] in _READS_STDIN
    return name in SHELLS and any(w in STDIN_FILES for w in argv[1:])


def _stdin_code(command: SimpleCommand, name: str) -> Iterator[tuple[str, str | None]]:
    here = [r.target if r.op == "<<<" else r.body for r in command.redirects if r.op[:2] == "<<"]
    yield f"{name} /dev/stdin", (here[-1] or "") if here else None


def _sed_scripts(argv: tuple[str, ...]) -> list[str]:
    scripts = [b for a, b in pairs(argv) if a in ("-e", "--expression")]
    scripts += [w.split("=", 1)[1] for w in argv if w.startswith("--expression=")]
    if not scripts and not any(w in ("-f", "--file") or w.startswith("--file=") for w in argv):
        operands = [w for w in argv[1:] if not w.startswith("-")]
        scripts = operands[:1]
    return scripts


def _git_code_key(key: str) -> bool:
    key = key.lower()
    return (
        key.startswith(_GIT_CODE_KEYS)
        or key.endswith(_GIT_CODE_KEY_ENDINGS)
        or key in _GIT_CODE_KEY_NAMES
    )


def _git_codes(argv: tuple[str, ...], command: SimpleCommand) -> Iterator[tuple[str, str | None]]:
    import shlex

    verb_at = skip_options(argv, 1, frozenset({"-C", "-c", "--git-dir", "--work-tree"}))
    rest = argv[verb_at + 1 :]
    settings = _git_config_options(argv)
    if git_verb(argv) == "config":  # `git config [--global] KEY VALUE`, `git config set KEY V`
        operands = [w for w in rest if not w.startswith("-") and w not in ("set", "--add")]
        if len(operands) >= 2:
            settings.append(f"{operands[0]}={operands[1]}")
    for setting in settings:
        if setting.startswith("--config-env"):
            yield "git --config-env", None
            continue
        key, _, value = setting.partition("=")
        if not _git_code_key(key):
            continue
        if key.lower().startswith("alias.") and not value.startswith("!"):
            alias = key.split(".", 1)[1]  # `-c alias.x=checkout x .` is `git checkout .`
            if argv[verb_at : verb_at + 1] == (alias,):
                yield f"git alias {alias}", "git " + value + " " + shlex.join(rest)
            continue
        yield f"git -c {key}", value.removeprefix("!") if value else ""
    verb = git_verb(argv)
    if verb == "rebase":
        yield from _option_codes("git rebase", rest, ("--exec", "-x"))
    elif verb == "bisect" and rest[:1] == ("run",):  # git quotes every word: no shell code
        yield "git bisect run", shlex.join(rest[1:])
    elif verb == "submodule" and rest[skip_options(rest, 0, frozenset()) :][:1] == ("foreach",):
        words = rest[skip_options(rest, rest.index("foreach") + 1, frozenset()) :]
        if words:  # the first word is shell code, the others its "$@"
            yield "git submodule foreach", " ".join((words[0], *map(shlex.quote, words[1:])))
    elif verb == "filter-branch":
        for option, value in pairs(rest):
            if option.endswith("-filter"):
                yield f"git filter-branch {option}", value
    elif verb == "difftool":
        yield from _option_codes("git difftool", rest, ("--extcmd", "-x"))


def _tmux_codes(argv: tuple[str, ...]) -> Iterator[tuple[str, str | None]]:
    import shlex

    i = skip_options(argv, 1, frozenset({"-L", "-S", "-f", "-c", "-T"}))
    yield from (("tmux -c", value) for option, value in pairs(argv[:i]) if option == "-c")
    if i >= len(argv) or argv[i] not in _TMUX_CODE_VERBS:
        return
    j = skip_options(argv, i + 1, _TMUX_VALUES)
    if j < len(argv):
        yield f"tmux {argv[i]}", argv[j] if j == len(argv) - 1 else shlex.join(argv[j:])


def without_extglob(word: str) -> str:
    """An extended glob (`.@(claude)`, `!(x)`) as a plain glob matching at least as much."""
    return _EXTGLOB.sub("*", word) if "(" in word else word


def nocase(word: str) -> str:
    """A glob matched without regard to case (`shopt -s nocaseglob`): each letter as `[xX]`."""
    return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in word)


def runs_a_copy(command: SimpleCommand, cwd: str | None, env: Mapping[str, str]) -> str | None:
    """Why the command may be ccbridge under another name running a subcommand that forges
    events or rewrites the registration, else None."""
    argv = command.argv
    i = skip_options(argv, 1, frozenset({"--config"}))
    if i >= len(argv) or argv[i] not in CCBRIDGE_SUBCOMMANDS or not argv[0]:
        return None
    program = argv[0]
    if "/" in program:
        if not program.startswith("/") and cwd is None:
            return f"{program} is relative to a directory only known when it runs"
        path: str | None = posixpath.join(cwd or os.getcwd(), program)
    else:
        import shutil

        path = shutil.which(program, path=env.get("PATH", os.defpath))
        if path is None:  # no such program: the command fails (a function's body is judged)
            return None
    assert path is not None
    try:
        real = os.path.realpath(path)
        with open(real, "rb") as file:
            head = file.read(1 << 16)
    except OSError:
        return f"{program} does not exist yet, so what it is cannot be told"
    if posixpath.basename(real) == "ccbridge" or any(mark in head for mark in _LAUNCHER_MARKS):
        return f"{program} is a copy of ccbridge ({real})"
    import shutil

    launcher = shutil.which("ccbridge", path=env.get("PATH", os.defpath))
    try:
        if launcher is not None and os.path.samefile(real, launcher):
            return f"{program} is ccbridge ({launcher})"
    except OSError:
        pass
    return None
