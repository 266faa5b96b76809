"""The protected-paths guard at its edges (issue 16): each test kills mutants of protect.py that
the broader tests let live. Expected values are worked out by hand from the documented rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.pipeline import Execution
from bridge.policies import protect


@pytest.mark.parametrize(
    ("pattern", "parts", "hit"),
    [
        (("**",), (), True),
        (("**",), ("a", "b"), True),
        (("a", "**"), ("a",), True),  # `**` may stand for no component at all
        (("a", "**"), ("a", "b", "c"), True),
        (("a",), ("a", "b"), False),  # a pattern matches whole paths, not prefixes
        (("a", "b"), ("a",), False),
        (("**", "b"), ("a", "x", "b"), True),
        (("**", "b"), ("b", "x"), False),
        (("a", "*"), ("a", "bc"), True),
        (("a", "?"), ("a", "bc"), False),
        (("*",), (), False),
        ((), (), True),
        ((), ("a",), False),
    ],
)
def test_glob_components_match_whole_paths(
    pattern: tuple[str, ...], parts: tuple[str, ...], hit: bool
) -> None:
    assert protect._match(pattern, parts) is hit


# One protected file, two directories down from where the commands run: a write to it, to a
# directory above it (by how far each command reaches), or nowhere near it.
GUARD = protect.protected_paths_guard(["/p/d/e/f"])


def judged(command: str, cwd: str = "/p") -> str | None:
    return GUARD(Execution.create("Bash", {"command": command}, cwd=cwd))


def denied(command: str) -> str:
    reason = judged(command)
    assert reason is not None, command
    return reason


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("cp x d/e/f", "d/e/f"),
        ("cp x d/e", "d/e"),  # a file lands in d/e: f is one level down
        ("cp -T x d", "d"),  # d itself is replaced
        ("cp --no-target-directory x d", "d"),
        ("cp -t d/e x", "d/e"),
        ("cp --target-directory=d/e x", "d/e"),
        ("cp -r e d", "d/e"),  # a tree copied into d replaces d/e
        ("cp -R e d", "d/e"),
        ("cp -a e d", "d/e"),
        ("cp -rf e d", "d/e"),
        ("cp --recursive e d", "d/e"),
        ("cp --archive e d", "d/e"),
        ("mv d /tmp/x", "d"),  # moved away
        ("ln -f d /tmp/x", "d"),
        ("rsync --remove-source-files d /tmp/x", "d"),
        ("mv /tmp/e d", "d/e"),
        ("cp -- -x d/e", "d/e"),
        ("install -m 600 x d/e/f", "d/e/f"),
    ],
)
def test_copies_and_moves_write_their_destination_and_what_lands_in_it(
    command: str, written: str
) -> None:
    assert denied(command) == (
        f"protected path: `{command}` may write to {written}, which matches protected '/p/d/e/f'"
    )


@pytest.mark.parametrize(
    "command",
    [
        "cp x d",  # lands as d/x: f is two levels down
        "cp e d",  # not recursive: only the file d/e, beside nothing protected
        "cp d /tmp/x",  # a copy only reads its source
        "cp -t /tmp d/e/f",
        "cp -m 600 x /tmp",
        "cp x",
        "rsync -av d /tmp/x",
    ],
)
def test_copies_elsewhere_pass(command: str) -> None:
    assert judged(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "tar -xf a.tar",
        "tar xf a.tar",
        "tar -x -f a.tar -C d",
        "tar --extract -f a.tar",
        "tar --get -f a.tar",
        "bsdtar -xf a.tar",
        "unzip a.zip",
        "unzip a.zip -d d/e",
        "7z x a.7z",
        "7za e a.7z",
        "7zr x a.7z -od",
        "cpio -i",
        "cpio -idv",
        "cpio --extract",
        "ar x lib.a",
        "ar -x lib.a",
        "jar xf a.jar",
    ],
)
def test_archive_extraction_into_a_directory_above_is_denied(command: str) -> None:
    assert " may write to " in denied(command)


@pytest.mark.parametrize(
    "command",
    [
        "tar -tf a.tar",
        "tar tf a.tar",
        "tar -cf a.tar x",
        "tar -xf a.tar -C /tmp",
        "tar -xf a.tar -C/tmp",
        "tar -xf a.tar --directory=/tmp",
        "tar -xf a.tar --directory /tmp",
        "unzip -l a.zip",
        "unzip -t a.zip",
        "unzip -v a.zip",
        "unzip -Z a.zip",
        "unzip -p a.zip",
        "unzip a.zip -d /tmp",
        "7z l a.7z",
        "7z x a.7z -o/tmp",
        "cpio -o",
        "cpio -i -D /tmp",
        "cpio --extract --directory=/tmp",
        "ar t lib.a",
        "jar tf a.jar",
        "ar",
        "bsdtar -xf a.tar -C /tmp",
        "7za x a.7z -o/tmp",
        "7zr x a.7z -o/tmp",
        "cpio -i --directory=/tmp",
    ],
)
def test_listing_or_extracting_elsewhere_passes(command: str) -> None:
    assert judged(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "find d -delete",
        "find -delete",  # from here
        "find . -name f -delete",
        "find . -name e -delete",  # a directory on the way: all below it goes
        "find . -iname f -delete",
        "find . -name g -o -name h -delete",  # -o: other files are reached too
        "find . -not -name g -delete",
        "find . ! -name g -delete",
        "find . -path x -name g -delete",
        "find . -exec rm {} +",
        "find -D tree d -delete",
        "find . -fprint out",
        "find d -fls out",
    ],
)
def test_find_that_deletes_or_writes_where_the_file_may_be_is_denied(command: str) -> None:
    assert " may write to " in denied(command)


@pytest.mark.parametrize(
    "command",
    [
        "find /tmp -delete",
        "find . -name g -delete",  # only names like g are deleted: f is not one
        "find . -name 'x*' -delete",
        "find . -iname g -delete",
        "find . -name g -exec rm {} +",
        "find . -exec cat {} +",
        "find d -name f",
        "find -L /tmp -delete",
        "find -D d /tmp -delete",  # -D and -O take a value: d is no starting point
        "find -O d /tmp -delete",
    ],
)
def test_find_that_cannot_reach_the_file_passes(command: str) -> None:
    assert judged(command) is None


def test_find_names_an_unanchored_entry_wherever_it_looks() -> None:
    guard = protect.protected_paths_guard([".env"])
    execution = Execution.create("Bash", {"command": "find /tmp -name .env -delete"}, cwd="/p")
    assert guard(execution) == (
        "protected path: `find /tmp -name .env -delete` may write to /tmp, which matches "
        "protected '.env'"
    )
    other = Execution.create("Bash", {"command": "find /tmp -name .envx -delete"}, cwd="/p")
    assert guard(other) is None


@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("sed -n 'w d/e/f' in", "d/e/f"),
        ("sed -n 's/a/b/w d/e/f' in", "d/e/f"),
        ("sed -n '/x/{w d/e/f\n}' in", "d/e/f"),
        ("sed -n '1w d/e/f' in", "d/e/f"),  # after an address
        ("sed -n '1,5w d/e/f' in", "d/e/f"),
        ("sed -n '$w d/e/f' in", "d/e/f"),
        ("sed -n '1!w d/e/f' in", "d/e/f"),
        ("sed -n '1W d/e/f' in", "d/e/f"),
        ("sed -n 's/a/b/gw d/e/f' in", "d/e/f"),  # after the flags of `s`
        ("sed -n 's/a/b/2w d/e/f' in", "d/e/f"),
        ("sed -i s/a/b/ d/e/f", "d/e/f"),
        ("sed -Ei s/a/b/ d/e/f", "d/e/f"),
        ("sed --in-place=.bak s/a/b/ d/e/f", "d/e/f"),
        ("perl -i -pe s/a/b/ d/e/f", "d/e/f"),
        ("awk '{print > \"d/e/f\"}' in", "d/e/f"),
        ("awk '{print >> \"d/e/f\"}' in", "d/e/f"),
        ('awk \'{printf "%s", $0 > "d/e/f"}\' in', "d/e/f"),
        ("awk -F: '{print > \"d/e/f\"}' in", "d/e/f"),
        ("gawk -v x=1 '{print > \"d/e/f\"}' in", "d/e/f"),
        ("awk '{print > d/e/f}' in", "d/e/f"),
        ("gawk -i inplace '{print}' d/e/f", "d/e/f"),
        ("gzip -d d/e/f.gz", "d/e/f"),  # the file it writes beside the archive
        ("unxz d/e/f.xz", "d/e/f"),
        ("bunzip2 d/e/f.bz2", "d/e/f"),
        ("unzstd d/e/f.zst", "d/e/f"),
        ("gunzip d/e/f.Z", "d/e/f"),
    ],
)
def test_scripts_and_in_place_editors_write_what_they_name(command: str, written: str) -> None:
    reason = denied(command)  # (the command is shown as parsed: quotes removed)
    assert reason.startswith("protected path: `")
    assert reason.endswith(f"` may write to {written}, which matches protected '/p/d/e/f'")


@pytest.mark.parametrize(
    "command",
    [
        "sed -n p d/e/f",
        "sed 's/w x/y/' d/e/f",
        "sed --posix s/a/b/ d/e/f",
        "perl -pe s/a/b/ d/e/f",
        "perl -ne print d/e/f",
        "awk '{print}' d/e/f",
        "awk '{print > \"out\"}' d/e/f",
        "gawk -i lib.awk '{print}' d/e/f",
        "gzip -d d/e/f.tgz",
        "python3 d/e/f",
        "awk",
    ],
)
def test_reading_scripts_pass(command: str) -> None:
    assert judged(command) is None


STRICT = protect.self_protection_guard(["/p/s.json"], [], "/st", env={})


def strict(command: str) -> str | None:
    return STRICT(Execution.create("Bash", {"command": command}, cwd="/w"))


def test_inline_code_that_deletes_a_directory_above_a_protected_file_is_denied() -> None:
    assert strict("python3 -c \"import shutil; shutil.rmtree('/p')\"") == (
        "ccbridge self-protection: `python3 -c import shutil; shutil.rmtree('/p')`: rmtree "
        "recursively deletes /p, which matches protected '/p/s.json'"
    )
    assert strict("python3 -c \"import shutil; shutil.rmtree('/q')\"") is None


def test_a_protected_name_in_a_here_document_is_a_hint_for_an_unknown_word() -> None:
    assert strict("tee $OUT <<EOF\nsettings.json\nEOF") == (
        "ccbridge self-protection: cannot tell what `tee $OUT` does with $OUT, which is only "
        "known when it runs, in a command line that mentions settings.json"
    )


def test_the_config_option_takes_a_value_before_the_subcommand() -> None:
    assert strict("ccbridge --config /tmp/c.yaml goal list") is None
    assert strict("ccbridge --config /tmp/c.yaml run") is not None


@pytest.mark.parametrize(
    "command",
    [
        "patch -p1 <<'EOF'\n+++ b/d/e/f\nEOF",
        "patch -p1 <<-EOF\n\t+++ b/d/e/f\n\tEOF",
        "git apply <<< '+++ b/d/e/f'",
        "cat x.patch | patch -p1 2>/dev/null",  # stdin from a pipe: unknown, all of `.` at risk
        "git apply --directory=d x.patch",  # (the patch is not there to read)
    ],
)
def test_a_patch_on_stdin_or_unread_is_judged_by_what_it_may_touch(command: str) -> None:
    assert " may write to " in denied(command)


@pytest.mark.parametrize(
    "command",
    [
        "patch -p1 <<'EOF'\n+++ b/x/y\nEOF",
        "git apply <<< '+++ b/x/y'",
        "git apply --check x.patch",
        "patch --dry-run -p1 < x.patch",
    ],
)
def test_a_patch_that_touches_nothing_protected_passes(command: str) -> None:
    assert judged(command) is None


@pytest.mark.parametrize("named", ["d/e/f", "x/y"])
def test_a_patch_that_is_not_utf8_is_still_read(tmp_path: Path, named: str) -> None:
    patch = tmp_path / "x.patch"
    patch.write_bytes(
        b"\xff\xfe binary junk\n--- a/" + named.encode() + b"\n+++ b/" + named.encode() + b"\n"
    )
    guard = protect.protected_paths_guard([str(tmp_path / "d" / "e" / "f")])
    execution = Execution.create("Bash", {"command": f"git apply {patch}"}, cwd=str(tmp_path))
    assert (guard(execution) is not None) is (named == "d/e/f")


@pytest.mark.parametrize(
    ("command", "denied_"),
    [
        ("git checkout -- d/e/f", True),
        ("git checkout d/e/f", False),  # a branch of that name, as far as text can tell
        ("git restore d/e/f", True),
        ("git rm d/e/f", True),
        ("git rm -n d/e/f", False),
        ("git rm --dry-run d/e/f", False),
        ("git mv d/e/f x", True),
        ("git clean -fd", True),  # all of `.`
        ("git clean -n", False),
        ("git clean -f /tmp", False),
        ("git reset -- d/e/f", True),
        ("git -C /p checkout -- d/e/f", True),
        ("git stash", False),
        ("git status", False),
    ],
)
def test_git_commands_that_rewrite_the_paths_they_are_given(command: str, denied_: bool) -> None:
    assert (judged(command) is not None) is denied_


@pytest.mark.parametrize(
    "how", ["git apply x.patch", "patch -p1 < x.patch", "patch -p1 -i x.patch"]
)
def test_a_relative_patch_is_read_where_the_agent_runs_not_where_the_hook_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """The agent's patch (in its cwd) touches the protected file; a harmless patch of the same
    name where the hook happens to run must not stand in for it."""
    agent, hook = tmp_path / "agent", tmp_path / "hook"
    agent.mkdir()
    hook.mkdir()
    (agent / "x.patch").write_text("--- a/d/e/f\n+++ b/d/e/f\n", encoding="utf-8")
    (hook / "x.patch").write_text("--- a/x/y\n+++ b/x/y\n", encoding="utf-8")
    monkeypatch.chdir(hook)
    guard = protect.protected_paths_guard([str(agent / "d" / "e" / "f")])
    assert guard(Execution.create("Bash", {"command": how}, cwd=str(agent))) is not None
    # After a `cd` the directory is unknown: an unreadable patch may write anything below.
    moved = Execution.create("Bash", {"command": f"cd sub && {how}"}, cwd=str(agent))
    assert guard(moved) is not None


def test_a_patch_too_large_to_read_whole_fails_closed(tmp_path: Path) -> None:
    """Past the read cap the rest of the patch is unseen: it may name the protected file."""
    big = tmp_path / "big.patch"
    pair = "--- a/x\n+++ b/x\n"  # 16 bytes: the cap falls right after a whole line
    filler = pair * (protect._MAX_PATCH_BYTES // len(pair))
    big.write_text(filler + "--- a/d/e/f\n+++ b/d/e/f\n", encoding="utf-8")
    guard = protect.protected_paths_guard([str(tmp_path / "d" / "e" / "f")])
    execution = Execution.create("Bash", {"command": "git apply big.patch"}, cwd=str(tmp_path))
    assert guard(execution) is not None
    small = tmp_path / "small.patch"
    small.write_text("--- a/x/y\n+++ b/x/y\n", encoding="utf-8")
    harmless = Execution.create("Bash", {"command": "git apply small.patch"}, cwd=str(tmp_path))
    assert guard(harmless) is None
