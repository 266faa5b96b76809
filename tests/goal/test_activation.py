from __future__ import annotations

from pathlib import Path

from bridge.goal.activation import ProcessIdentity, find_cc_process


def fake_proc(root: Path, processes: dict[int, tuple[str, int, int]]) -> Path:
    (root / "sys/kernel/random").mkdir(parents=True)
    (root / "sys/kernel/random/boot_id").write_text("boot-1\n")
    for pid, (name, parent, start) in processes.items():
        (root / str(pid)).mkdir()
        rest = " ".join(["0"] * 15)
        (root / str(pid) / "stat").write_text(f"{pid} ({name}) S {parent} 1 1 {rest} {start} 9\n")
    return root


def test_walks_past_shells_and_python_to_claude_code(tmp_path: Path) -> None:
    proc = fake_proc(
        tmp_path,
        {
            500: ("claude", 1, 777),
            600: ("sh", 500, 800),
            700: ("python3.11", 600, 900),
            710: ("ccbridge", 700, 901),
        },
    )
    assert find_cc_process(710, proc) == ProcessIdentity(500, 777, "boot-1")


def test_names_with_spaces_and_parentheses_are_read_whole(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, {500: ("node (x) y", 1, 42), 600: ("bash", 500, 43)})
    assert find_cc_process(600, proc) == ProcessIdentity(500, 42, "boot-1")


def test_no_identity_when_only_shells_lead_to_init(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path, {600: ("bash", 1, 43), 700: ("dash", 600, 44)})
    assert find_cc_process(700, proc) is None


def test_no_identity_when_proc_is_unreadable(tmp_path: Path) -> None:
    assert find_cc_process(123, tmp_path) is None
    proc = fake_proc(tmp_path / "p", {})
    assert find_cc_process(123, proc) is None


def test_restarted_process_has_another_identity(tmp_path: Path) -> None:
    before = find_cc_process(
        600, fake_proc(tmp_path / "a", {500: ("claude", 1, 1), 600: ("sh", 500, 2)})
    )
    # Same pid reused by a new process: the start time differs.
    after = find_cc_process(
        600, fake_proc(tmp_path / "b", {500: ("claude", 1, 9), 600: ("sh", 500, 10)})
    )
    assert before is not None and after is not None
    assert before != after


def test_real_parent_chain_resolves_to_a_live_process() -> None:
    identity = find_cc_process()
    assert identity is None or Path(f"/proc/{identity.pid}").exists()
