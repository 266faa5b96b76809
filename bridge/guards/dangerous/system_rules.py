"""The rules of `builtin:dangerous_shell` for what wrecks the machine rather than files: a
filesystem made on a disk, partitioning and erasing tools, writes straight to a block device or
the kernel's SysRq trigger, shutting the machine down, signalling every process, and fork bombs.

Each rule takes the judge, the command, where it runs and the command feeding it, as the
rules of bridge.guards.dangerous.dangerous_shell do, and is one of `SYSTEM_RULES`, in the
order that guard applies them.
"""

from __future__ import annotations

import posixpath
from itertools import pairwise

from bridge.guards.dangerous.targets import Place, Unknown, operand_indexes, option_letters, target
from bridge.shell import Lazy, fnmatchcase

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Iterable

    from bridge.guards.dangerous.dangerous_shell import Judge
    from bridge.shell.syntax import Pipeline, SimpleCommand

BLOCK_DEVICES = (
    "sd*", "hd*", "vd*", "xvd*", "nvme*", "mmcblk*", "disk*", "rdisk*", "loop*", "dm-*",
    "md*", "mapper/*", "sr*", "nbd*", "zram*",
)  # fmt: skip
_DEVICE_WRITERS = frozenset({"tee", "cp", "shred", "wipefs", "blkdiscard", "truncate"})
_POWER = frozenset({"shutdown", "reboot", "halt", "poweroff"})


def block_device(path: str) -> bool:
    path = posixpath.normpath(path)
    return path.startswith("/dev/") and any(fnmatchcase(path[5:], p) for p in BLOCK_DEVICES)


def _filesystem(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """`mkfs`, `mkswap`: on a device, its data is gone; on a file (`disk.img`), nothing is."""
    name = command.name
    if not (name.startswith(("mkfs", "mkswap")) or name in ("mke2fs", "mkdosfs", "newfs")):
        return None
    what = "a filesystem" if name != "mkswap" else "swap space"
    if device := _device_operand(command):
        return f"creating {what} on {device} erases everything on the device"
    if dynamic := _dynamic_operand(command):
        return Unknown(f"cannot tell what this erases: {dynamic} is only known when it runs")
    return None


def _device_operand(command: SimpleCommand) -> str | None:
    return next((w for w in command.argv[1:] if w.startswith("/dev/") and _disk_path(w)), None)


def _disk_path(path: str) -> bool:
    return block_device(path) or posixpath.normpath(path).startswith("/dev/disk/")


def _dynamic_operand(command: SimpleCommand) -> str | None:
    return next((command.argv[i] for i in sorted(command.dynamic) if i), None)


_SFDISK_READS = frozenset(
    {"-l", "--list", "-d", "--dump", "-s", "--show-size", "-V", "--verify", "-J", "--json"}
    | {"-g", "--show-geometry", "-F", "--list-free", "-h", "--help", "-v", "--version", "-r"}
)
_PARTED_WRITES = frozenset({"mklabel", "mktable", "rm", "mkpart", "mkpartfs", "resizepart"})
_SGDISK_WIPES = frozenset({"-Z", "--zap-all", "-z", "--zap", "-o", "--clear", "-d", "--delete"})
_DISKUTIL_ERASES = frozenset(
    {"erasedisk", "zerodisk", "securerase", "secureerase", "partitiondisk", "erasevolume"}
    | {"randomdisk", "reformat", "deletecontainer", "deletevolume"}
)


def _disk_tools(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    """Partitioning, wiping and erasing tools pointed at a disk."""
    name, args = command.name, command.argv[1:]
    flags = set(option_letters(command.argv))
    harm = None
    sfdisk = name == "sfdisk" and not flags & _SFDISK_READS
    if sfdisk or (name == "parted" and _PARTED_WRITES & set(args)):
        harm = "rewrites the partition table of"
    elif name in ("sgdisk", "gdisk") and flags & _SGDISK_WIPES:
        harm = "wipes the partition table of"
    elif name == "badblocks" and "-w" in flags:
        harm = "overwrites every block of (a destructive write test)"
    elif name == "hdparm" and any(
        a.startswith(("--security-erase", "--trim-sector", "--write-sector", "--make-bad"))
        for a in args
    ):
        harm = "erases data on"
    elif name == "nvme" and args[:1] in (("format",), ("sanitize",)):
        harm = "erases every namespace block of"
    elif name == "diskutil" and any(a.lower() in _DISKUTIL_ERASES for a in args[:2]):
        return f"diskutil {' '.join(args[:2])} erases a whole disk or volume"
    if harm is None:
        return None
    if device := _device_operand(command):
        return f"{name} {harm} {device}"
    if dynamic := _dynamic_operand(command):
        return Unknown(f"cannot tell which disk {name} {harm.split(' (')[0]}: {dynamic}")
    return f"{name} {harm} a disk" if name in ("nvme", "hdparm", "badblocks") else None


def _device_write(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    targets = [r.target for r in command.redirects if r.writes]
    if command.name == "dd":
        for i, word in enumerate(command.argv):
            if word.startswith("of=") and i in command.dynamic:
                what = target(word[3:], place, dynamic=True)
                if isinstance(what, Unknown):
                    return Unknown(f"cannot tell what this overwrites: {what}")
            elif word.startswith("of="):
                targets.append(word[3:])
    elif command.name in _DEVICE_WRITERS:
        targets += [command.argv[i] for i in operand_indexes(command.argv)]
    for written in targets:
        if block_device(written):
            return f"writes straight to the block device {written}, destroying its filesystem"
        if posixpath.normpath(written) == "/proc/sysrq-trigger":
            return "triggers a kernel SysRq action (reboot, crash or kill every process)"
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
    if name == "launchctl" and args[:1] == ("reboot",):
        return "shuts down or restarts the machine"
    if name == "kexec" and set(option_letters(command.argv)) & {"-e", "--exec", "-f", "--force"}:
        return "kexec boots another kernel at once, killing everything running"
    return None


def _kill_everything(
    judge: Judge, command: SimpleCommand, place: Place, feeder: SimpleCommand | None
) -> str | None:
    if command.name == "killall5":
        return "signals every process on the machine"
    if command.name in ("pkill", "killall") and not operand_indexes(command.argv)[1:]:
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
    if "1" in args[args[:1] == ["--"] :]:
        return "pid 1 is init: killing it brings the whole machine down"
    return None


def fork_bomb(pipeline: Pipeline, functions: tuple[str, ...]) -> str | None:
    names = [command.name for command in pipeline.commands]
    for name, following in pairwise(names):
        if name == following and name in functions:
            return (
                f"fork bomb: the function {name} pipes into itself, multiplying processes "
                "until the machine stops responding"
            )
    return None


_RECURSIVE_FUNCTION = Lazy(r"(?:function\s+)?([\w:.-]+)\s*(?:\(\s*\))?\s*\{([^{}]*)\}")


def fork_bomb_text(source: str, functions: Iterable[str]) -> str | None:
    """`f(){ f & f & }; f`: a function the line defines (one of `functions`) whose body starts
    itself twice, in the background or a pipe (bash forks for both), and that the line calls."""
    if not functions or "{" not in source:
        return None
    import re  # only a line with a brace comes here

    for found in _RECURSIVE_FUNCTION.finditer(source):
        name, body = found[1], found[2]
        if name not in functions:
            continue
        calls = re.findall(rf"(?:^|[\s;&|(]){re.escape(name)}(?=$|[\s;&|)])", body)
        after = source[found.end() :]
        if len(calls) >= 2 and ("&" in body or "|" in body) and name in after:
            return (
                f"fork bomb: the function {name} starts itself twice in the background, "
                "multiplying processes until the machine stops responding"
            )
    return None


def opened_device(code: str) -> str | None:
    """A block device that interpreter code opens for writing (`open('/dev/vda', 'wb')`)."""
    if "/dev/" not in code:
        return None
    import re  # only code naming a device comes here

    for found in re.finditer(r"""['"](/dev/[^'"]+)['"]""", code):
        rest = code[found.end() : found.end() + 80]
        writes = re.match(r"""\s*,\s*(?:['"][^'"]*[wa+]|[\w.]*O_(?:WRONLY|RDWR))""", rest)
        if block_device(found[1]) and (writes or "write" in rest):
            return found[1]
    return None


SYSTEM_RULES = (_filesystem, _disk_tools, _device_write, _power, _kill_everything)
