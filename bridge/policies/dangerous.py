"""A guard against Bash commands that wreck the machine, the disk or shared history.

Judged on the parsed command (`bridge.policies.shell`), never on raw text: `echo "rm -rf /"`
passes, `true && sudo rm -rf /` does not, and a command it cannot parse is denied.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterator
from fnmatch import fnmatchcase
from itertools import pairwise

from bridge.pipeline import Execution
from bridge.policies.shell import (
    Pipeline,
    Script,
    SimpleCommand,
    bash_script,
    expand_home,
    program,
    skip_options,
)

SYSTEM_DIRS = frozenset(
    {
        *("/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32"),
        *("/media", "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/tmp"),
        *("/usr", "/var", "/Applications", "/Library", "/System", "/Users", "/Volumes"),
        "/private",
    }
)
BLOCK_DEVICES = (
    "sd*", "hd*", "vd*", "xvd*", "nvme*", "mmcblk*", "disk*", "rdisk*", "loop*", "dm-*",
    "md*", "mapper/*", "sr*", "nbd*", "zram*",
)  # fmt: skip
DOWNLOADERS = frozenset({"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request"})
_DEVICE_WRITERS = frozenset({"tee", "cp", "shred", "wipefs", "blkdiscard"})
_POWER = frozenset({"shutdown", "reboot", "halt", "poweroff"})
_GIT_OPTIONS_WITH_VALUE = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
)


def dangerous_shell(execution: Execution) -> str | None:
    """Deny a Bash call that is destructive beyond repair, or that cannot be parsed safely."""
    if execution.tool_name != "Bash":
        return None
    script = bash_script(execution.input)
    return script if isinstance(script, str) else objection(script, execution.cwd)


def objection(script: Script, cwd: str = "") -> str | None:
    """The first dangerous thing the script (or anything nested in it) would do."""
    for inner in script.walk():
        for pipeline in inner.pipelines:
            reason = _fork_bomb(pipeline, inner.functions) or _download_into_interpreter(pipeline)
            if reason:
                return reason
            for command in pipeline.commands:
                for rule in _RULES:
                    if reason := rule(command, cwd):
                        return f"dangerous command `{_show(command)}`: {reason}"
    return None


def _show(command: SimpleCommand) -> str:
    redirects = (f"{r.fd}{r.op} {r.target}" for r in command.redirects if r.body is None)
    text = " ".join((*command.words, *redirects))
    return text if len(text) <= 200 else text[:197] + "..."


def critical(target: str, cwd: str = "") -> str | None:
    """What `target` is if removing or re-owning it recursively wrecks the machine, else None."""
    path = posixpath.normpath(expand_home(target))
    if path.endswith(("/*", "/.*")) or path in ("*", ".*"):  # everything inside it
        path = posixpath.dirname(path) or "."
    if path.startswith("/"):
        path = "/" + path.lstrip("/")  # normpath keeps a leading `//`
    elif set(path.split("/")) == {".."}:
        return f"{path}, which climbs out of the working directory"
    elif cwd:
        return critical(posixpath.join(cwd, path)) if cwd.startswith("/") else None
    if path == "/":
        return "/, the root of the filesystem"
    if path == posixpath.normpath(os.path.expanduser("~")):
        return f"{path}, your home directory"
    if path in SYSTEM_DIRS:
        return f"{path}, a top-level system directory"
    return None


def _flags(argv: tuple[str, ...]) -> Iterator[str]:
    """Options before `--`, short clusters split into single letters (`-rf` -> -r, -f)."""
    for word in argv[1:]:
        if word == "--":
            return
        if word.startswith("--"):
            yield word
        elif word.startswith("-") and len(word) > 1:
            yield from (f"-{letter}" for letter in word[1:])


def _operands(argv: tuple[str, ...]) -> list[str]:
    words = list(argv[1:])
    cut = words.index("--") if "--" in words else len(words)
    return [w for w in words[:cut] if w == "-" or not w.startswith("-")] + words[cut + 1 :]


def _rm(command: SimpleCommand, cwd: str) -> str | None:
    if command.name != "rm":
        return None
    flags = set(_flags(command.argv))
    if not flags & {"-r", "-R", "--recursive"}:
        return None
    if "--no-preserve-root" in flags:
        return "--no-preserve-root switches off rm's last safeguard against deleting /"
    for target in _operands(command.argv):
        if what := critical(target, cwd):
            return f"recursively deletes {what}"
    return None


def _owner_or_mode(command: SimpleCommand, cwd: str) -> str | None:
    if command.name not in ("chmod", "chown", "chgrp"):
        return None
    if not set(_flags(command.argv)) & {"-R", "--recursive"}:
        return None
    for target in _operands(command.argv)[1:]:  # the first operand is the mode or owner
        if what := critical(target, cwd):
            return f"recursively changes permissions or ownership of {what}"
    return None


def _find_delete(command: SimpleCommand, cwd: str) -> str | None:
    if command.name != "find":
        return None
    argv = command.argv
    i = skip_options(argv, 1, frozenset({"-D", "-O"}))
    starts = []
    while i < len(argv) and not argv[i].startswith(("-", "(", "!", ")", ",")):
        starts.append(argv[i])
        i += 1
    expression = argv[i:]
    deletes = "-delete" in expression or any(
        word in ("-exec", "-execdir", "-ok", "-okdir")
        and posixpath.basename(following) in ("rm", "shred", "unlink")
        for word, following in pairwise(expression)
    )
    for start in starts if deletes else ():
        if what := critical(start, cwd):
            return f"deletes files throughout {what}"
    return None


def block_device(path: str) -> bool:
    path = posixpath.normpath(path)
    return path.startswith("/dev/") and any(fnmatchcase(path[5:], p) for p in BLOCK_DEVICES)


def _filesystem(command: SimpleCommand, cwd: str) -> str | None:
    if command.name.startswith("mkfs") or command.name == "mke2fs":
        return "creating a filesystem erases everything on the device"
    return None


def _device_write(command: SimpleCommand, cwd: str) -> str | None:
    targets = [r.target for r in command.redirects if r.writes]
    if command.name == "dd":
        targets += [w[3:] for w in command.argv[1:] if w.startswith("of=")]
    elif command.name in _DEVICE_WRITERS:
        targets += _operands(command.argv)
    for target in targets:
        if block_device(target):
            return f"writes straight to the block device {target}, destroying its filesystem"
    return None


def _git_force_push(command: SimpleCommand, cwd: str) -> str | None:
    if command.name != "git":
        return None
    i = skip_options(command.argv, 1, _GIT_OPTIONS_WITH_VALUE)
    if command.argv[i : i + 1] != ("push",):
        return None
    for word in command.argv[i + 1 :]:
        is_short = word.startswith("-") and not word.startswith("--")
        short = word[1:].split("o")[0] if is_short else ""  # `-o` takes a value
        if word == "--force" or "f" in short:
            return (
                f"{word} overwrites the remote branch and can destroy others' commits "
                "(use --force-with-lease)"
            )
        if word.startswith("+") and len(word) > 1:
            return f"the refspec {word} force-pushes, overwriting the remote branch"
    return None


def _power(command: SimpleCommand, cwd: str) -> str | None:
    name, args = command.name, command.argv[1:]
    if (
        name in _POWER
        or (name == "systemctl" and set(args) & {"poweroff", "reboot", "halt", "kexec"})
        or (name in ("init", "telinit") and args[:1] in (("0",), ("6",)))
    ):
        return "shuts down or restarts the machine"
    return None


def _runs_downloaded_code(command: SimpleCommand, cwd: str) -> str | None:
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


_RULES: tuple[Callable[[SimpleCommand, str], str | None], ...] = (
    _rm,
    _owner_or_mode,
    _find_delete,
    _filesystem,
    _device_write,
    _git_force_push,
    _power,
    _runs_downloaded_code,
)
