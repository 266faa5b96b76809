"""One judgement for an event that Claude Code sends to more than one ccbridge.

Where the settings files hold different ccbridge registrations for an event (the compiled
config's `coordinated`, bridge.config.registrations), Claude Code starts one ccbridge per
registration, at the same time, with the same event. The first to arrive judges it; the others
wait for its answer and give the same one, so the sub-hooks run once. Only these calls come
here: with one registration a call never imports this module.

One slot file per event in `<state dir>/events/`, named by a digest of the event, the config and
the host:

    {"arrived": <the judge's arrival, wall clock>, "expect": <processes Claude Code starts>}
    +                                   one line per process that arrived after the first
    = <seal> <answer>                   once the judge has answered

The judge holds an exclusive flock on the slot from before anyone can see it (made under a
temporary name, locked, then linked into place) until its answer is written; the others wait on
that lock, bounded by their own deadline. The answer is sealed with the cache's key
(bridge.config.cache), which the wall keeps unreadable: an answer is taken only from ccbridge.
Without the wall a process of the same user can read that key: what the slots hold is then only
as safe as the rest of ccbridge's state.
A process that gets the lock and finds no answer (the judge died) judges the event itself and
answers for whoever comes after it: never less than a full judgement. A slot whose judge arrived
more than WINDOW seconds apart from this process, or that every expected process has already
seen, is an earlier event with the same bytes: it is replaced. The last expected process removes
the slot; what a dead process leaves is removed after STALE seconds.
"""

import fcntl
import os
import stat
import time
from _operator import _compare_digest as compare_digest

from bridge.wire import jsonio
from bridge.wire.answer import Answer
from bridge.wire.digest import hmac_sha256_hex, sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from bridge.config.compiled import CompiledConfig
    from bridge.wire.event import HookEvent

DIRECTORY = "events"
# Seconds between the arrivals of the processes Claude Code starts for one event: together for
# the hooks of one settings layer (measured 11 ms apart on 2.1.335), but a managed hook runs
# before the others (docs/fleet.md), so a whole judgement (its deadline, 55 s at most) may lie
# between them. Same bytes further apart are another event.
WINDOW = 60.0
STALE = 3600.0  # seconds after which a slot nobody finished is removed
ATTEMPTS = 8  # slots replaced or removed under this process while it arrived
FLAGS = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC


class Slot:
    """The slot this process judges for, locked: `fill` writes the answer and lets the others
    read it."""

    __slots__ = ("fd", "name", "secret")

    def __init__(self, fd: int, name: str, secret: bytes) -> None:
        self.fd, self.name, self.secret = fd, name, secret

    def fill(self, answer: "Answer") -> None:
        try:
            body = jsonio.dumps([answer.payload, answer.exit_code, answer.stderr, answer.text])
            seal = hmac_sha256_hex(self.secret, self.name.encode() + b"\n" + body).encode()
            os.lseek(self.fd, 0, os.SEEK_END)
            os.write(self.fd, b"= " + seal + b" " + body + b"\n")
        except (OSError, ValueError, TypeError):
            pass  # the others find no answer and judge themselves
        finally:
            self.release()

    def release(self) -> None:
        try:  # not contextlib.suppress, which a call would pay to import
            os.close(self.fd)  # the lock goes with it
        except OSError:
            pass


def claimed(
    event: "HookEvent", compiled: "CompiledConfig", env: "Mapping[str, str]"
) -> "tuple[Slot | None, Answer | None]":
    """For a call whose event Claude Code sends to more than one ccbridge: this event's slot to
    judge for, or the answer another ccbridge gave; neither for an event with one registration
    or when no slot can be had (then this process judges alone)."""
    from bridge.config.cache import Cache, sealing_key
    from bridge.paths import state_dir

    expect = dict(compiled.coordinated).get(event.name)
    if expect is None:
        return None, None
    secret, tampered = sealing_key(Cache.of(env).key_file)
    if secret is None or tampered is not None:
        return None, None
    what = identity(event.raw, compiled.digest, event.host)
    try:
        return claim(state_dir(env), secret, what, expect)
    except OSError:
        return None, None


def identity(event: "Mapping[str, Any]", digest: str, host: "str | None") -> bytes:
    """What one slot stands for: the event as sent, the compiled config (its cache key names the
    config files and the settings around them) and the agent."""
    return jsonio.dumps([digest, host, event])


def claim(
    state: str, secret: bytes, what: bytes, expect: int
) -> "tuple[Slot | None, Answer | None]":
    """(the slot to fill, None) when this process judges; (None, the answer) when another
    ccbridge judged the same event; (None, None) when no slot could be had (judge alone).
    Blocks while another process judges (the call's deadline bounds it)."""
    arrived = time.time()
    name = sha256_hex(what)
    directory = os.path.join(state, DIRECTORY)
    path = os.path.join(directory, name)
    for _attempt in range(ATTEMPTS):
        fd = _create(directory, path, arrived, expect)
        if fd is not None:
            if name[0] == "0":  # one new slot in sixteen sweeps what dead processes left
                _sweep(directory, arrived)
            return Slot(fd, name, secret), None
        try:
            fd = os.open(path, FLAGS | os.O_NONBLOCK)  # never waits on what sits there
        except FileNotFoundError:
            continue  # the last of an earlier event removed it: make one
        done = _arrive(fd, path, name, secret, arrived, expect)
        if done is not None:
            return done
    return None, None


def _arrive(
    fd: int, path: str, name: str, secret: bytes, arrived: float, expect: int
) -> "tuple[Slot | None, Answer | None] | None":
    """Past the judge's lock: the answer, this slot to judge for, or None to try again. Closes
    `fd` unless it is the slot returned."""
    kept = False
    try:
        os.set_blocking(fd, True)
        fcntl.flock(fd, fcntl.LOCK_EX)  # the judge's answer, or its death
        if not _same(fd, path):
            return None  # replaced or removed while this process waited
        header, later, answer = _read(fd, name, secret)
        if header is None or abs(arrived - header[0]) > WINDOW or later + 1 >= header[1]:
            # an earlier event's (or no slot ccbridge wrote): a new one in its place
            fresh = _create(os.path.dirname(path), path, arrived, expect, over=True)
            return (Slot(fresh, name, secret), None) if fresh is not None else None
        if answer is not None and later + 2 >= header[1]:
            os.unlink(path)  # the last one expected: nobody else reads it
            return None, answer
        os.lseek(fd, 0, os.SEEK_END)
        os.write(fd, b"+\n")
        if answer is not None:
            return None, answer
        kept = True
        return Slot(fd, name, secret), None  # the judge went without answering: judge here
    finally:
        if not kept:
            os.close(fd)


def _create(
    directory: str, path: str, arrived: float, expect: int, over: bool = False
) -> "int | None":
    """A new slot at `path`, already locked; None when another process made one first. With
    `over`, in place of the one there."""
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = None
    for _attempt in range(3):
        try:
            fd = os.open(temporary, FLAGS | os.O_CREAT | os.O_EXCL, 0o600)
            break
        except FileNotFoundError:
            os.makedirs(directory, mode=0o700, exist_ok=True)
        except FileExistsError:
            os.unlink(temporary)  # a dead process's, of the same pid
    if fd is None:
        return None
    placed = False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, jsonio.dumps({"arrived": arrived, "expect": expect}) + b"\n")
        if over:
            os.replace(temporary, path)
        else:
            try:
                os.link(temporary, path)
            except FileExistsError:
                return None
        placed = True
        return fd
    finally:
        if not placed:
            os.close(fd)
        if not (placed and over):
            try:
                os.unlink(temporary)
            except OSError:
                pass


def _same(fd: int, path: str) -> bool:
    try:
        named = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    same = (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)
    return same and stat.S_ISREG(held.st_mode)


def _read(
    fd: int, name: str, secret: bytes
) -> "tuple[tuple[float, int] | None, int, Answer | None]":
    """(the header's arrival and expected count, the later arrivals, the sealed answer)."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    lines = b"".join(chunks).split(b"\n")
    try:
        header = jsonio.loads(lines[0])
        found = (float(header["arrived"]), int(header["expect"]))
    except (ValueError, KeyError, TypeError):
        return None, 0, None
    later = sum(1 for line in lines[1:] if line == b"+")
    answer = None
    for line in lines[1:]:
        if line.startswith(b"= "):
            answer = _unsealed(line[2:], name, secret)
    return found, later, answer


def _unsealed(line: bytes, name: str, secret: bytes) -> "Answer | None":
    seal, _, body = line.partition(b" ")
    if not compare_digest(seal, hmac_sha256_hex(secret, name.encode() + b"\n" + body).encode()):
        return None  # not ccbridge's: judged again
    try:
        payload, exit_code, stderr, text = jsonio.loads(body)
        return Answer(dict(payload), int(exit_code), str(stderr), str(text))
    except (ValueError, TypeError):
        return None


def _sweep(directory: str, now: float) -> None:
    """Remove the slots and temporary files older than STALE (their processes are long gone)."""
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        path = os.path.join(directory, name)
        try:
            if now - os.stat(path, follow_symlinks=False).st_mtime > STALE:
                os.unlink(path)
        except OSError:
            continue
