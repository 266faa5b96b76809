"""Appending to and reading the audit log.

Writers take an exclusive flock on a side lock file, append one whole line with a single
O_APPEND write, and rotate (audit.jsonl -> .1 -> .2 ...) under the same lock when the next line
would pass the size cap. The cost of an append does not depend on how many records exist.
Readers skip a torn or invalid line (a writer killed mid-write) instead of failing, and the next
writer starts a fresh line after a torn tail, so the torn part never swallows a whole record.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bridge.wire import jsonio


def rotated(path: Path, keep: int) -> list[Path]:
    """The log and its rotated generations, oldest first."""
    return [path.with_name(f"{path.name}.{n}") for n in range(keep, 0, -1)] + [path]


def _rotate(path: Path, keep: int) -> None:
    oldest = path.with_name(f"{path.name}.{keep}")
    if oldest.exists():
        oldest.unlink()
    for n in range(keep - 1, 0, -1):
        older = path.with_name(f"{path.name}.{n}")
        if older.exists():
            older.rename(path.with_name(f"{path.name}.{n + 1}"))
    path.rename(path.with_name(f"{path.name}.1"))


def append(path: Path, record: Mapping[str, Any], max_bytes: int, keep: int) -> None:
    line = jsonio.dumps(record) + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    lock = os.open(path.with_name(path.name + ".lock"), os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            size = 0
        if size and size + len(line) > max_bytes:
            _rotate(path, keep)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            end = os.fstat(fd).st_size
            if end and os.pread(fd, 1, end - 1) != b"\n":
                line = b"\n" + line  # a writer died mid-line: never glue this record onto it
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
    finally:
        os.close(lock)  # closing releases the flock


def read(path: Path, keep: int = 0) -> Iterator[dict[str, Any]]:
    """Every readable record, oldest first; torn or foreign lines are skipped."""
    for file in rotated(path, keep) if keep else [path]:
        try:
            with open(file, "rb") as handle:
                yield from _records(handle)
        except FileNotFoundError:
            continue


def _records(lines: Iterable[bytes]) -> Iterator[dict[str, Any]]:
    for line in lines:
        try:
            record = jsonio.loads(line)
        except jsonio.DecodeError:
            continue
        if isinstance(record, dict):
            yield record
