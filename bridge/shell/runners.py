"""Commands that run other commands: wrappers (`sudo`, `env`, `timeout`, `xargs`, `docker
exec` ...), interpreters and where they take their program from (`python -c`, `bash -s`, a file),
and the shell code a command hands on (`eval`, `su -c`, `find -exec`).

`bridge.shell.syntax` reads each simple command through these tables (`unwrap`: the command a
chain of wrappers finally runs; `inline_scripts`: code to parse as nested commands); the guards
ask `program` what an interpreter runs.
"""

import posixpath

from bridge.pipeline.valueclass import Record
from bridge.shell import is_assignment, pairs

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from typing import Literal

    from bridge.shell.syntax import Redirect

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"})

_PLAIN_WRAPPERS = (
    "eatmydata", "fakeroot", "catchsegv", "torsocks", "proxychains", "proxychains4", "unbuffer",
    "dbus-run-session", "nocache", "chronic", "linux32", "linux64", "valgrind", "firejail",
    "busybox", "toybox",
)  # fmt: skip
# Wrappers that run the rest of their arguments as a command:
# name -> (its options that take a value, positional arguments before the command).
_WRAPPERS: "dict[str, tuple[str, int]]" = {
    "sudo": ("-u -g -h -p -C -D -r -t -T -U --user --group --host --prompt --chdir --role", 0),
    "doas": ("-u -C", 0),
    "env": ("-u -C -S --unset --chdir --split-string", 0),
    "command": ("", 0),
    "builtin": ("", 0),
    "nohup": ("", 0),
    "setsid": ("", 0),
    "exec": ("-a", 0),
    "nice": ("-n --adjustment", 0),
    "time": ("-f -o --format --output", 0),
    "timeout": ("-s -k --signal --kill-after", 1),
    "stdbuf": ("-i -o -e --input --output --error", 0),
    "ionice": ("-c -n -p -P -u --class --classdata", 0),
    "xargs": (
        "-a -d -E -I -J -L -R -S -n -P -s --arg-file --delimiter --eof --max-lines --max-args"
        " --max-procs --max-chars",
        0,
    ),
    "parallel": ("-j -S -a --jobs --sshlogin --arg-file --delimiter --colsep", 0),
    "flock": ("-w -E --timeout --conflict-exit-code", 1),
    "taskset": ("", 1),
    "chrt": ("", 1),
    "chroot": ("--userspec --groups", 1),
    "su-exec": ("", 1),
    "gosu": ("", 1),
    "faketime": ("-f -m", 1),
    "setpriv": (
        "--reuid --regid --ruid --euid --rgid --egid --groups --inh-caps --ambient-caps"
        " --bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile"
        " --landlock-access --landlock-rule --seccomp-filter",
        0,
    ),
    "prlimit": ("-p -o --pid --output", 0),
    "strace": (
        "-o -e -p -s -u -E -a -b -I -O -S -X -P -U --output --trace --signal --status --user"
        " --env --attach",
        0,
    ),
    "ltrace": ("-o -e -p -s -u -a -n -l -A -D -F -L -w -x", 0),
    "unshare": ("-S -G -R -w --setuid --setgid --root --wd --propagation", 0),
    "nsenter": ("-t -S -G --target --setuid --setgid", 0),
    "numactl": ("-C -N -m -p -i --physcpubind --cpunodebind --membind --preferred --interleave", 0),
    "cgexec": ("-g", 0),
    "systemd-run": (
        "-u -p -E -M -D --unit --property --setenv --machine --uid --gid --nice"
        " --working-directory --description --slice",
        0,
    ),
    "watch": ("-n -d -q -g --interval --differences --equexit", 0),
    "pkexec": ("--user", 0),
    "caffeinate": ("-t -w", 0),
    **dict.fromkeys(_PLAIN_WRAPPERS, ("", 0)),
}
_ASSIGNING = frozenset({"env", "sudo", "doas"})  # `sudo VAR=value cmd` sets VAR for cmd
APPENDERS = frozenset({"xargs", "parallel"})  # wrappers that add arguments read at run time
_RUN_WITH_SHELL = frozenset({"flock", "script"})  # `flock FILE -c CODE`, `script -c CODE`
# Wrappers that run the command after a subcommand and its operands (a container, a pod):
# (name, subcommand) -> (its options that take a value, operands before the command).
_CONTAINER_OPTIONS = (
    "-e --env --env-file -u --user -w --workdir --detach-keys --index -c --container -n"
    " --namespace -f --filename --pod-running-timeout --context --kubeconfig -l --selector"
)
_SUBCOMMAND_WRAPPERS = {
    ("docker", "exec"): 1, ("podman", "exec"): 1, ("nerdctl", "exec"): 1,
    ("docker-compose", "exec"): 1, ("docker", "compose"): 2, ("podman-compose", "exec"): 1,
    ("kubectl", "exec"): 1, ("oc", "exec"): 1, ("lxc", "exec"): 1, ("incus", "exec"): 1,
}  # fmt: skip
# macOS `arch -arm64 CMD` (its value-taking options spelt out: `-arm64e` is no `-e` cluster),
# and BSD `script [-q] FILE CMD...` (`script -c CODE` is read above).
_ARCH_OPTIONS_WITH_VALUE = frozenset({"-arch", "-d", "-e"})
UNWRAPPED = (
    _WRAPPERS.keys() | _RUN_WITH_SHELL | {name for name, _ in _SUBCOMMAND_WRAPPERS} | {"arch"}
)


def _shell_code(argv: "tuple[str, ...]") -> "str | None":
    """CODE of `flock [opts] FILE -c CODE` or `script [opts] -c CODE`; None when flock runs a
    command given as words (`flock FILE cmd -c x`: that `-c` is the command's)."""
    operands, i = 0, 1
    while i + 1 < len(argv) and operands < 2:
        word = argv[i]
        if word == "--command" or (word[:1] == "-" and word[1:2] != "-" and word.endswith("c")):
            return argv[i + 1]
        operands += not word.startswith("-")
        i += 1 + (word in ("-w", "-E", "--timeout", "--conflict-exit-code"))
        if operands and argv[0].endswith("flock") and not argv[i].startswith("-"):
            return None  # FILE then a command
    return None


def unwrap(argv: "tuple[str, ...]") -> "tuple[str, ...]":
    """The command a chain of wrappers (`sudo env X=1 nice -n 5 rm ...`) finally runs."""
    while argv and posixpath.basename(argv[0]) in UNWRAPPED:
        name = posixpath.basename(argv[0])
        code = _shell_code(argv) if name in _RUN_WITH_SHELL else None
        if code is not None:
            return ("sh", "-c", code)  # which is what they run
        if name not in _WRAPPERS:
            inner = _runs_after_operands(argv)
            if inner is None:
                return argv
            argv = inner
            continue
        with_value, positionals = _WRAPPERS[name]
        i = skip_options(argv, 1, frozenset(with_value.split()))
        if name == "env" and (split := _split_string(argv, i)) is not None:
            return ("sh", "-c", split)  # `env -S 'rm -rf /'` splits its string into a command
        if name == "command" and any("v" in a.lower() for a in argv[1:i] if a[:2] != "--"):
            return argv  # `command -v x` looks x up, it does not run it
        while name in _ASSIGNING and i < len(argv) and is_assignment(argv[i]):
            i += 1
        argv = argv[i + positionals :]
    return argv


def _split_string(argv: "tuple[str, ...]", end: int) -> "str | None":
    """The command `env -S STRING ARGS` runs, as shell code (env splits STRING as the shell
    splits words, quotes included), or None without `-S`/`--split-string`. A string only
    known at run time stays unknown (`env -S "$X"` is `sh -c "$X"`)."""
    value = None
    for k in range(1, end):
        word = argv[k]
        if word in ("-S", "--split-string") and k + 1 < end:
            value = argv[k + 1]
        elif word.startswith("--split-string="):
            value = word.split("=", 1)[1]
        elif word.startswith("-S") and len(word) > 2:
            value = word[2:]
    if value is None:
        return None
    if "$" in value or "`" in value:  # kept as the last word: the caller marks it unknown
        return value if argv[end - 1 :] == (value,) and end == len(argv) else None
    import shlex  # (only for a line with `env -S`)

    rest = (w if "$" in w or "`" in w else shlex.quote(w) for w in argv[end:])
    return " ".join((value, *rest))


def _runs_after_operands(argv: "tuple[str, ...]") -> "tuple[str, ...] | None":
    """The command of `docker exec [opts] C CMD`, `kubectl [-n ns] exec POD -- CMD`,
    `docker compose exec SVC CMD`, `arch -arm64 CMD`, `script -q FILE CMD`; None when `argv`
    runs none (`docker ps`, `arch` alone, `script` with only a file)."""
    name = posixpath.basename(argv[0])
    if name == "arch":
        i = 1
        while i < len(argv) and argv[i].startswith("-"):
            i += 2 if argv[i] in _ARCH_OPTIONS_WITH_VALUE else 1
        return argv[i:] or None
    if name == "script":
        i = skip_options(argv, 1, frozenset({"-t", "-T", "-I", "-O", "-B", "-E", "-m"}))
        return argv[i + 1 :] or None
    options = frozenset(_CONTAINER_OPTIONS.split())
    i = skip_options(argv, 1, options)
    if i >= len(argv):
        return None
    operands = _SUBCOMMAND_WRAPPERS.get((name, argv[i]))
    if operands is None:
        return None
    if operands == 2:  # `docker compose exec`: one more subcommand
        i += 1
        if argv[i : i + 1] != ("exec",):
            return None
    i = skip_options(argv, i + 1, options)
    rest = argv[i + 1 :]
    return (rest[1:] if rest[:1] == ("--",) else rest) or None


def parallel_arguments(
    argv: "tuple[str, ...]", wrappers: "tuple[str, ...]"
) -> "tuple[list[int], bool, list[tuple[str, ...]]]":
    """`parallel CMD ::: A B` runs `CMD A` and `CMD B`: the indexes in `argv` of the command
    and its arguments as one command's words (judged together), whether arguments still come
    at run time (`::::` files, `-a`), and each run (for code: `parallel bash -c ::: CODE...`)."""
    cut = argv.index(":::")
    given = [k for k in range(cut + 1, len(argv)) if argv[k] != ":::"]
    files = any(argv[k] == "::::" for k in given)
    from_files = files or any(w.startswith(("-a", "--arg-file")) for w in wrappers)
    command = argv[:cut] or ("sh", "-c")  # no command: each argument is one
    runs = [
        tuple(w.replace("{}", argv[k]) for w in command)
        if any("{}" in w for w in command)
        else (*command, argv[k])
        for k in given
        if argv[k] != "::::"
    ]
    return [*range(cut), *given], from_files or not cut, runs


def skip_options(argv: "tuple[str, ...]", i: int, with_value: "frozenset[str]") -> int:
    """Index of the first operand at or after `i`: past options, their values and `--`."""
    while i < len(argv) and argv[i].startswith(("-", "+")) and len(argv[i]) > 1:
        option = argv[i]
        i += 1
        if option == "--":
            break
        if option.startswith("--"):
            i += option in with_value
            continue
        for k in range(1, len(option)):  # a cluster such as `-Eu root`: a value ends it
            if option[0] + option[k] in with_value:
                i += k == len(option) - 1
                break
    return i


# Interpreters, by the short options that hand them their program as text (for shells a flag,
# the program being the first operand); `m` runs a module.
_PROGRAM_OPTIONS = {
    "python": "cm",
    "perl": "eE",
    "ruby": "e",
    "node": "ep",
    "php": "r",
    "lua": "e",
    **dict.fromkeys(SHELLS, "c"),
}
_LONG_PROGRAM_OPTIONS = frozenset({"--eval", "--print", "--command"})
_INTERPRETER_OPTIONS_WITH_VALUE = frozenset(
    {"-o", "+o", "-O", "+O", "--rcfile", "--init-file", "-W", "-X", "--require"}
)


class Program(Record, frozen=True, slots=True):
    """Where an interpreter takes its program from."""

    kind: 'Literal["inline", "module", "file", "stdin"]'
    text: str  # the code, module or file; for stdin a here-document's text or ""


def _unversioned(name: str) -> str:
    r"""`name` without its trailing digits and dots (as `re.sub(r"[\d.]+$", "", name)`, whose
    `$` also matches before a final newline)."""
    end = len(name) - name.endswith("\n")
    start = end
    while start and (name[start - 1] == "." or name[start - 1].isdecimal()):
        start -= 1
    return name[:start] + name[end:]


def interpreter(argv: "tuple[str, ...]") -> "str | None":
    """`python3.12` -> `python`, `bash` -> `bash`; None for anything else."""
    name = _unversioned(posixpath.basename(argv[0])) if argv else ""
    name = "node" if name == "nodejs" else name
    return name if name in _PROGRAM_OPTIONS else None


def program(argv: "tuple[str, ...]", redirects: "tuple[Redirect, ...]" = ()) -> "Program | None":
    """The program an interpreter command runs, or None if `argv` runs no interpreter."""
    language = interpreter(argv)
    if language is None:
        return None
    letters = _PROGRAM_OPTIONS[language]
    i = skip_options(argv, 1, _INTERPRETER_OPTIONS_WITH_VALUE)
    if language in SHELLS and _noexec(argv[1:i]):
        return None
    operand = argv[i] if i < len(argv) else None
    for option in argv[1:i]:
        if option in _LONG_PROGRAM_OPTIONS:
            return Program("inline", operand or "")
        if option[:1] not in "-+" or option.startswith("--"):
            continue
        for k, letter in enumerate(option[1:], 1):
            if letter in letters:
                attached = language not in SHELLS and k < len(option) - 1
                text = option[k + 1 :] if attached else operand or ""
                return Program("module" if letter == "m" else "inline", text)
        if language in SHELLS and "s" in option[1:]:  # `bash -s -- ARGS` reads stdin
            return _stdin(redirects)
    if operand is not None and operand != "-" and operand not in STDIN_FILES:
        return Program("file", operand)
    return _stdin(redirects)


# Files that are the standard input: `curl ... | bash /dev/stdin` reads the pipe.
STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def _noexec(options: "tuple[str, ...]") -> bool:
    """`bash -n FILE`, `sh -o noexec`: the shell reads the code and runs none of it."""
    if any(a == "-o" and b == "noexec" for a, b in pairs(options)):
        return True
    return any(o[:1] == "-" and o[1:2] != "-" and "n" in o[1:] for o in options)


def _stdin(redirects: "tuple[Redirect, ...]") -> "Program":
    here = [r.target if r.op == "<<<" else r.body for r in redirects if r.op.startswith("<<")]
    return Program("stdin", (here[-1] or "") if here else "")


def inline_scripts(argv: "tuple[str, ...]", redirects: "tuple[Redirect, ...]") -> "list[str]":
    """Shell code this command runs from its arguments: `sh -c CODE`, `eval ARGS`, `bash <<EOF`,
    `su -c CODE`, `find -exec CMD ;`."""
    name = posixpath.basename(argv[0]) if argv else ""
    if name == "eval":
        return [" ".join(argv[1:])]
    if name in ("su", "runuser"):
        return [code for flag, code in pairs(argv) if flag in ("-c", "--command")]
    if name == "find":
        import shlex  # only here: most commands never need it, and every hook call would pay

        return [
            shlex.join(_exec_argv(argv[i + 1 :]))
            for i, word in enumerate(argv)
            if word in ("-exec", "-execdir", "-ok", "-okdir")
        ]
    source = program(argv, redirects) if interpreter(argv) in SHELLS else None
    return [source.text] if source is not None and source.kind in ("inline", "stdin") else []


def inline_programs(
    argv: "tuple[str, ...]", redirects: "tuple[Redirect, ...]"
) -> "tuple[str, ...]":
    """The code a non-shell interpreter runs from its arguments or stdin (`python -c CODE`,
    `node <<EOF`): the counterpart of `inline_scripts`, read as code, not as commands."""
    source = program(argv, redirects)
    if source is None or source.kind not in ("inline", "stdin") or interpreter(argv) in SHELLS:
        return ()
    return (source.text,)


def _exec_argv(words: "tuple[str, ...]") -> "tuple[str, ...]":
    """The command of a `find -exec`, which ends at `;` or at `{} +`."""
    for i, word in enumerate(words):
        if word == ";" or (word == "+" and i and words[i - 1] == "{}"):
            return words[:i]
    return words
