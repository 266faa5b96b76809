"""Appending to and reading the audit log.

Writers take an exclusive flock on a side lock file, append one whole line with a single
O_APPEND write, and rotate (audit.jsonl -> .1 -> .2 ...) under the same lock when the next line
would pass the size cap. The cost of an append does not depend on how many records exist.
A writer waits at most LOCK_WAIT seconds for the lock: past it (a process holding the lock
forever), the line is appended without it and without rotating, as one O_APPEND write cannot
interleave with another. The log and its lock must be regular files: a FIFO there would block.
A write cut short (a full disk, a file size limit) is rolled back to the log's previous length:
a record is whole or absent, and the caller says the loss. Readers skip a torn or invalid line
(a writer killed mid-write) instead of failing, and the next writer starts a fresh line after a
torn tail, so the torn part never swallows a whole record.
"""

import fcntl
import os
import time

from bridge.paths import NotRegular, open_regular
from bridge.wire import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Iterable, Iterator, Mapping
    from typing import Any, TypeVar

    PathLike = str | os.PathLike[str]
    P = TypeVar("P", bound=PathLike)

# Paths are strings inside (`os.path`, not `pathlib`, which a hook call would pay to import);
# callers may pass either.


def private_dir(path: "P") -> "P":
    """A directory of ccbridge's state: created 0700 (its parents as the umask makes them)."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


LOCK_WAIT = 1.0  # seconds


def open_private(path: "PathLike", flags: int) -> int:
    """os.open for a file of ccbridge's state: created 0600, and one found wider (an older
    version's, or made by hand) narrowed to 0600. Never blocks on a FIFO; refuses anything but
    a regular file (bridge.paths.NotRegular)."""
    try:
        fd = open_regular(path, flags | os.O_CREAT)
    except NotRegular as error:
        raise OSError(f"{os.fspath(path)}: {error}") from None
    if os.fstat(fd).st_mode & 0o077:
        os.fchmod(fd, 0o600)
    return fd


def lock_within(fd: int, seconds: float) -> bool:
    """An exclusive flock on `fd`, waited for at most `seconds`; False when it was not had."""
    give_up = time.monotonic() + seconds
    pause = 0.001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= give_up:
                return False
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


def rotated(path: "PathLike", keep: int) -> "list[str]":
    """The log and its rotated generations, oldest first."""
    path = os.fspath(path)
    return [f"{path}.{n}" for n in range(keep, 0, -1)] + [path]


def _rotate(path: str, keep: int) -> None:
    oldest = f"{path}.{keep}"
    if os.path.exists(oldest):
        os.unlink(oldest)
    for n in range(keep - 1, 0, -1):
        older = f"{path}.{n}"
        if os.path.exists(older):
            os.rename(older, f"{path}.{n + 1}")
    os.chmod(path, 0o600)  # a wider log of an older version must not stay wide once rotated
    os.rename(path, f"{path}.1")


def append(path: "PathLike", record: "Mapping[str, Any]", max_bytes: int, keep: int) -> None:
    path = os.fspath(path)
    line = jsonio.dumps(record) + b"\n"
    private_dir(os.path.dirname(path) or ".")
    lock = open_private(path + ".lock", os.O_WRONLY)
    try:
        locked = lock_within(lock, LOCK_WAIT)
        try:
            size = os.stat(path).st_size
        except FileNotFoundError:
            size = 0
        if locked and size and size + len(line) > max_bytes:
            _rotate(path, keep)
        fd = open_private(path, os.O_RDWR | os.O_APPEND)  # rotated files keep its mode
        try:
            end = os.fstat(fd).st_size
            if end and os.pread(fd, 1, end - 1) != b"\n":
                line = b"\n" + line  # a writer died mid-line: never glue this record onto it
            _write_whole(fd, line, end if locked else None)
        finally:
            os.close(fd)
    finally:
        os.close(lock)  # closing releases the flock


def _write_whole(fd: int, line: bytes, end: "int | None") -> None:
    """Write the line or none of it: a write cut short (a full disk, a file size limit) is
    rolled back to the length `end` the log had, so no fragment of the record stays in it.
    Without the lock (`end` None) another writer may have appended since: nothing is cut then,
    and the next writer starts a fresh line after the fragment."""
    view = memoryview(line)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError as error:
        if len(view) < len(line):  # a part of it went in
            try:
                if end is None:
                    raise OSError(error.errno, "the log was not locked")
                os.ftruncate(fd, end)
            except OSError as cannot:
                raise OSError(
                    error.errno,
                    f"{error.strerror}; the record was cut short, and could not be taken out "
                    f"again ({cannot.strerror})",
                ) from None
        raise OSError(
            error.errno, f"{error.strerror}; the record was not written (the log is as it was)"
        ) from None


def read(path: "PathLike", keep: int = 0) -> "Records":
    """Every readable record, oldest first; torn or foreign lines are skipped (and counted)."""
    return Records(path, keep)


class Records:
    """The records of a log and its `keep` rotated generations, oldest first. Iterating counts
    the torn or foreign lines it skipped in `skipped` (blank lines are not counted)."""

    def __init__(self, path: "PathLike", keep: int = 0) -> None:
        self.files = rotated(path, keep)
        self.skipped = 0

    def __iter__(self) -> "Iterator[dict[str, Any]]":
        for file in self.files:
            try:
                with open(file, "rb") as handle:
                    yield from self._records(handle)
            except FileNotFoundError:
                continue

    def _records(self, lines: "Iterable[bytes]") -> "Iterator[dict[str, Any]]":
        # A log runs to many megabytes: orjson reads it several times faster than `_json`, which
        # repays its import (reading is a command, never a hook call).
        import orjson

        for line in lines:
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                self.skipped += bool(line.strip())
                continue
            if isinstance(record, dict):
                yield record
            else:
                self.skipped += 1


def subhook_verdict(item: "Mapping[str, Any]") -> str:
    """What a sub-hook of a logged record answered (deny, ask, ...); `raw` is what an older
    log calls it."""
    return str(item.get("verdict") or item.get("raw") or "none")
