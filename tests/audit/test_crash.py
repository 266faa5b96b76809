"""The crash log (bridge.audit.crash), in-process: the file's exact name, content, mode and size
cut, that it never writes through an existing path, and that only the newest are kept."""

from __future__ import annotations

import os
import stat
import time
import traceback
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.audit import crash

MARKER = b"\n[... cut to the crash log's size cap ...]\n"
CAP = 64 * 1024
# 1_700_000_000 s is 2023-11-14 22:13:20 UTC; the nanoseconds are written with nine digits.
NOW_NS = 1_700_000_000_000_000_042
NAME = f"crash-20231114T221320.000000042Z-{os.getpid()}.txt"


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = types.SimpleNamespace(strftime=time.strftime, gmtime=time.gmtime, time_ns=lambda: NOW_NS)
    monkeypatch.setattr(crash, "time", fake)


@pytest.fixture
def no_umask() -> Iterator[None]:
    """umask 0, so the file's mode is the one ccbridge asks for."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def raised(message: str) -> BaseException:
    try:
        raise ValueError(message)
    except ValueError as problem:
        return problem


def formatted(problem: BaseException) -> str:
    return "".join(traceback.format_exception(problem))


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.usefixtures("clock", "no_umask")
def test_the_log_is_the_redacted_traceback_in_a_private_file(tmp_path: Path) -> None:
    problem = raised("boom password=hunter22")
    path = crash.write(tmp_path / "state", problem)
    assert path == tmp_path / "state" / "crashes" / NAME
    text = formatted(problem)
    assert text.count("hunter22") == 1  # only in the message line
    assert path.read_text() == text.replace("hunter22", "[REDACTED]")
    assert mode(path) == 0o600 and mode(path.parent) == 0o700


@pytest.mark.usefixtures("clock")
def test_an_existing_file_or_link_at_the_name_is_never_written_through(tmp_path: Path) -> None:
    folder = tmp_path / "crashes"
    folder.mkdir()
    (folder / NAME).write_text("earlier")
    with pytest.raises(FileExistsError):
        crash.write(tmp_path, raised("again"))
    assert (folder / NAME).read_text() == "earlier"
    (folder / NAME).unlink()
    victim = tmp_path / "victim"
    victim.write_text("keep me")
    (folder / NAME).symlink_to(victim)
    with pytest.raises(OSError):
        crash.write(tmp_path, raised("again"))
    assert victim.read_text() == "keep me"


def message_for(size: int) -> str:
    """A message whose traceback is exactly `size` bytes (the message appears once in it)."""
    base = len(formatted(raised("x")).encode()) - 1  # (an empty message drops its ": ")
    return "x" * (size - base)


@pytest.mark.usefixtures("clock")
def test_a_log_of_exactly_the_cap_is_kept_whole(tmp_path: Path) -> None:
    problem = raised(message_for(CAP))
    assert len(formatted(problem).encode()) == CAP
    assert crash.write(tmp_path, problem).read_text() == formatted(problem)


@pytest.mark.parametrize("over", [1, 1000, 5 * CAP])
def test_a_longer_log_keeps_both_ends_around_the_marker(tmp_path: Path, over: int) -> None:
    problem = raised(message_for(CAP + over))
    full = formatted(problem).encode()
    assert len(full) == CAP + over
    half = (CAP - len(MARKER)) // 2
    data = crash.write(tmp_path, problem).read_bytes()
    assert data == full[:half] + MARKER + full[-half:]
    assert len(data) <= CAP


def longest(text: str, budget: int, *, tail: bool) -> str:
    """The longest prefix (or suffix) of `text` whose UTF-8 form fits in `budget` bytes."""
    count = 0
    size = 0
    for char in reversed(text) if tail else text:
        size += len(char.encode())
        if size > budget:
            break
        count += 1
    return text[len(text) - count :] if tail else text[:count]


@pytest.mark.parametrize("lead", ["", "a", "ab"])
def test_the_cut_never_splits_a_character(tmp_path: Path, lead: str) -> None:
    """Three-byte characters: with three different offsets, some cut lands inside one; the
    partial character is dropped, never replaced by a substitute."""
    problem = raised(lead + "\u20ac" * CAP)
    full = formatted(problem)
    half = (CAP - len(MARKER)) // 2
    text = crash.write(tmp_path, problem).read_bytes().decode("utf-8")  # strict
    marker = MARKER.decode()
    assert text == longest(full, half, tail=False) + marker + longest(full, half, tail=True)
    assert "\ufffd" not in text


def test_a_lone_surrogate_is_written_as_a_question_mark(tmp_path: Path) -> None:
    path = crash.write(tmp_path, raised("bad \ud800 char"))
    assert "ValueError: bad ? char\n" in path.read_text()


def test_only_the_twenty_newest_logs_are_kept(tmp_path: Path) -> None:
    folder = tmp_path / "crashes"
    folder.mkdir()
    older = [f"crash-20000101T000000.{n:09d}Z-1.txt" for n in range(25)]
    for name in older:
        (folder / name).write_text("old")
    others = ["notes.txt", "crash-x.log", "old-crash-1.txt"]
    for name in others:
        (folder / name).write_text("not a crash log")
    newest = crash.write(tmp_path, raised("now"))
    kept = sorted(path.name for path in folder.iterdir())
    assert kept == sorted([*older[-19:], newest.name, *others])
