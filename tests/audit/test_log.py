"""The audit log's file handling in-process (so mutation testing sees it): one compact JSON line
per record, rotation once the next line would pass `max_bytes`, `keep` generations, private
modes, and readers that skip a torn or foreign line while later writers start a fresh one."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from bridge.audit import log

LINE = len(b'{"n":1}\n')  # each record below is one such 8-byte line


def mode(path: Path | str) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def numbers(path: Path, keep: int) -> list[int]:
    return [record["n"] for record in log.read(path, keep)]


def test_append_writes_one_compact_line_per_record(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log.append(path, {"n": 1}, 1 << 20, 2)
    log.append(str(path), {"n": 2}, 1 << 20, 2)
    assert path.read_bytes() == b'{"n":1}\n{"n":2}\n'
    assert numbers(path, 2) == [1, 2]


def test_append_creates_private_directories_and_files(tmp_path: Path) -> None:
    path = tmp_path / "state" / "audit.jsonl"
    log.append(path, {"n": 1}, 1 << 20, 2)
    assert mode(tmp_path / "state") == 0o700
    assert mode(path) == 0o600
    assert mode(str(path) + ".lock") == 0o600


def test_a_log_found_wider_is_narrowed(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_bytes(b"")
    path.chmod(0o644)
    log.append(path, {"n": 1}, 1 << 20, 2)
    assert mode(path) == 0o600


def test_open_private_leaves_a_private_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"")
    path.chmod(0o400)  # narrower than 0600: nothing to narrow, so it stays as it was
    os.close(log.open_private(path, os.O_RDONLY))
    assert mode(path) == 0o400


def test_private_dir_returns_its_path(tmp_path: Path) -> None:
    wanted = tmp_path / "a"
    assert log.private_dir(wanted) is wanted
    assert log.private_dir(wanted) is wanted  # a second time: already there is fine
    assert mode(wanted) == 0o700


def test_the_log_rotates_only_when_the_next_line_would_pass_max_bytes(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log.append(path, {"n": 1}, 2 * LINE, 3)
    log.append(path, {"n": 2}, 2 * LINE, 3)  # exactly max_bytes: still one file
    assert not Path(f"{path}.1").exists()
    log.append(path, {"n": 3}, 2 * LINE, 3)
    assert Path(f"{path}.1").read_bytes() == b'{"n":1}\n{"n":2}\n'
    assert path.read_bytes() == b'{"n":3}\n'
    assert numbers(path, 3) == [1, 2, 3]


def test_a_record_larger_than_max_bytes_is_still_written_whole(tmp_path: Path) -> None:
    """An empty log never rotates: the record gets a file of its own, not a loop or a loss."""
    path = tmp_path / "audit.jsonl"
    log.append(path, {"n": 1}, 1, 2)
    log.append(path, {"n": 2}, 1, 2)
    assert path.read_bytes() == b'{"n":2}\n'
    assert Path(f"{path}.1").read_bytes() == b'{"n":1}\n'


def test_rotation_keeps_keep_generations_and_drops_the_oldest(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    for n in range(6):
        log.append(path, {"n": n}, LINE, 2)  # one record per file
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "audit.jsonl",
        "audit.jsonl.1",
        "audit.jsonl.2",
        "audit.jsonl.lock",
    ]
    assert Path(f"{path}.2").read_bytes() == b'{"n":3}\n'
    assert Path(f"{path}.1").read_bytes() == b'{"n":4}\n'
    assert numbers(path, 2) == [3, 4, 5]
    assert numbers(path, 1) == [4, 5]
    assert numbers(path, 0) == [5]


def test_a_wide_log_is_private_once_rotated(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log.append(path, {"n": 1}, LINE, 2)
    path.chmod(0o644)
    log.append(path, {"n": 2}, LINE, 2)
    assert mode(f"{path}.1") == 0o600


def test_rotated_lists_the_generations_oldest_first(tmp_path: Path) -> None:
    assert log.rotated("a/log", 3) == ["a/log.3", "a/log.2", "a/log.1", "a/log"]
    assert log.rotated(Path("log"), 0) == ["log"]


def test_a_torn_tail_is_skipped_and_the_next_record_starts_a_fresh_line(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log.append(path, {"n": 1}, 1 << 20, 2)
    with open(path, "ab") as handle:
        handle.write(b'{"n":2, "pa')  # a writer killed mid-line
    log.append(path, {"n": 3}, 1 << 20, 2)
    assert path.read_bytes() == b'{"n":1}\n{"n":2, "pa\n{"n":3}\n'
    records = log.read(path, 2)
    assert [record["n"] for record in records] == [1, 3]
    assert records.skipped == 1


def test_readers_skip_foreign_lines_and_count_them_but_not_blank_ones(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_bytes(b'{"n":1}\n\n   \n[1, 2]\n"text"\nnot json\n{"n":2}\n')
    Path(f"{path}.1").write_bytes(b'{"n":0}\n')
    records = log.read(path, 1)
    assert [record["n"] for record in records] == [0, 1, 2]
    assert records.skipped == 3


def test_reading_a_missing_log_yields_nothing(tmp_path: Path) -> None:
    records = log.read(tmp_path / "none.jsonl", 3)
    assert list(records) == []
    assert records.skipped == 0


def test_a_missing_generation_does_not_hide_the_others(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    Path(f"{path}.2").write_bytes(b'{"n":1}\n')
    path.write_bytes(b'{"n":2}\n')
    assert numbers(path, 2) == [1, 2]


def test_every_generation_moves_up_one(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    for n in range(5):
        log.append(path, {"n": n}, LINE, 3)
    assert [Path(f"{path}.{g}").read_bytes() for g in (3, 2, 1)] == [
        b'{"n":1}\n',
        b'{"n":2}\n',
        b'{"n":3}\n',
    ]
    assert numbers(path, 3) == [1, 2, 3, 4]


def test_by_default_only_the_live_log_is_read(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    for n in range(3):
        log.append(path, {"n": n}, LINE, 2)
    assert [record["n"] for record in log.read(path)] == [2]
    assert [record["n"] for record in log.Records(path)] == [2]


def test_a_log_in_the_working_directory_creates_nothing_else(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    log.append("audit.jsonl", {"n": 1}, 1 << 20, 2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["audit.jsonl", "audit.jsonl.lock"]
