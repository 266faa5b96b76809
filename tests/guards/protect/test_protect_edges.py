"""The protected-paths guard at its edges: each test kills mutants of protect_paths.py that
the broader tests let live. Expected values are worked out by hand from the documented rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.guards.protect import ANY_ABOVE, PARENT_ABOVE, Target, protect_paths, writes
from bridge.guards.protect import entries as protected_entries
from bridge.pipeline import Ask, Execution
from bridge.shell.syntax import Unparseable, parse
from tests.support import verdicts


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
    assert protected_entries._match(pattern, parts) is hit


# One protected file, two directories down from where the commands run: a write to it, to a
# directory above it (by how far each command reaches), or nowhere near it.
GUARD = protect_paths.protected_paths_guard(["/p/d/e/f"])


def judged(command: str, cwd: str = "/p") -> str | Ask | None:
    return verdicts.plain(GUARD(Execution.create("Bash", {"command": command}, cwd=cwd)))


def denied(command: str) -> str:
    reason = judged(command)
    assert isinstance(reason, str), command
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
        ("cp -Rf e d", "d/e"),
        ("cp -af e d", "d/e"),
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
        "tar -xf a.tar --directory/tmp",  # no `=`: not the directory option
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
        "ar Xx lib.a",  # a mode is `x` after dashes only
    ],
)
def test_listing_or_extracting_elsewhere_passes(command: str) -> None:
    assert judged(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "find d -delete",
        "find -delete",  # from here
        "find -name f -delete",  # from here too: -name starts the expression
        "find -type f -delete",
        "find -L -maxdepth 9 -name f -delete",
        "find -O3 -name f -delete",
        "find . -name 'f*' -delete",  # a pattern that fits the protected name
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
        "find . -fprintf out %p",
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
    guard = protect_paths.protected_paths_guard([".env"])
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
        ("xz -d d/e/f.xz", "d/e/f"),  # the compressors decompress too
        ("zstd -d d/e/f.zst", "d/e/f"),
        ("bzip2 -d d/e/f.bz2", "d/e/f"),
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


STRICT = protect_paths.self_protection_guard(["/p/s.json"], [], "/st", env={})


def strict(command: str) -> str | Ask | None:
    return verdicts.plain(STRICT(Execution.create("Bash", {"command": command}, cwd="/w")))


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
    guard = protect_paths.protected_paths_guard([str(tmp_path / "d" / "e" / "f")])
    execution = Execution.create("Bash", {"command": f"git apply {patch}"}, cwd=str(tmp_path))
    assert (guard(execution) is not None) is (named == "d/e/f")


@pytest.mark.parametrize(
    ("command", "denied_"),
    [
        ("git checkout -- d/e/f", True),
        ("git checkout d/e/f", True),  # no branch of that name: git restores the path
        ("git restore d/e/f", True),
        ("git rm d/e/f", True),
        ("git rm -n d/e/f", False),
        ("git rm --dry-run d/e/f", False),
        ("git mv d/e/f x", True),
        ("git clean -fd", True),  # all of `.`
        ("git clean -n", False),
        ("git clean -f /tmp", False),
        ("git reset -- d/e/f", False),  # the index entry only (git-reset(1)): no file changes
        ("git reset --hard", False),  # the whole tree, but /p is no work tree
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
    guard = protect_paths.protected_paths_guard([str(agent / "d" / "e" / "f")])
    verdicts.denied(
        guard(Execution.create("Bash", {"command": how}, cwd=str(agent))),
        "protected path: `",
        "may write to ./d/e/f",
        str(agent / "d" / "e" / "f"),
    )
    # After a `cd` the directory is unknown: an unreadable patch may write anything below.
    moved = Execution.create("Bash", {"command": f"cd sub && {how}"}, cwd=str(agent))
    verdicts.denied(
        guard(moved), "protected path: `", "may write to .,", str(agent / "d" / "e" / "f")
    )


def test_a_patch_too_large_to_read_whole_fails_closed(tmp_path: Path) -> None:
    """Past the read cap the rest of the patch is unseen: it may name the protected file."""
    big = tmp_path / "big.patch"
    pair = "--- a/x\n+++ b/x\n"  # 16 bytes: the cap falls right after a whole line
    filler = pair * (writes.MAX_PATCH_BYTES // len(pair))
    big.write_text(filler + "--- a/d/e/f\n+++ b/d/e/f\n", encoding="utf-8")
    guard = protect_paths.protected_paths_guard([str(tmp_path / "d" / "e" / "f")])
    execution = Execution.create("Bash", {"command": "git apply big.patch"}, cwd=str(tmp_path))
    assert guard(execution) is not None
    small = tmp_path / "small.patch"
    small.write_text("--- a/x/y\n+++ b/x/y\n", encoding="utf-8")
    harmless = Execution.create("Bash", {"command": "git apply small.patch"}, cwd=str(tmp_path))
    assert guard(harmless) is None


T = Target
PARENT, ANY = PARENT_ABOVE, ANY_ABOVE


def written(command: str) -> list[Target]:
    """What the guard reads as written by a one-command line, in order."""
    script = parse(command)
    assert not isinstance(script, Unparseable)
    (parsed,) = script.commands()
    return list(protect_paths._written(parsed, "/p"))


@pytest.mark.parametrize(
    ("argv", "values", "operands"),
    [
        (("cp", "-f", "x", "-S", "e", "d"), {"-S"}, [2, 5]),  # options after an operand too
        (("cp", "-f", "--", "-x", "-y", "d"), set(), [3, 4, 5]),  # after `--` all are operands
        (("cp", "--", "x", "d"), set(), [2, 3]),
        (("cp", "x", "-f"), set(), [1]),
        (("cp", "x", "-t"), {"-t"}, [1]),  # a value option with no value left
        (("cp",), set(), []),
    ],
)
def test_operands_are_the_words_that_are_no_option_or_value(
    argv: tuple[str, ...], values: set[str], operands: list[int]
) -> None:
    assert writes.operand_indexes(argv, frozenset(values)) == operands


@pytest.mark.parametrize(
    ("command", "targets"),
    [
        ("cp -t d x", [T("d", False, PARENT), T("d/x", False, 0)]),
        ("cp -vt d x", [T("d", False, PARENT), T("d/x", False, 0)]),  # -t ends a cluster
        ("cp -td x", [T("d", False, PARENT), T("d/x", False, 0)]),  # its value attached
        ("cp --target-directory d x", [T("d", False, PARENT), T("d/x", False, 0)]),
        ("cp --target=d x", [T("d", False, PARENT), T("d/x", False, 0)]),  # abbreviated
        # An abbreviation is no known value option: its value is taken for a source as well.
        ("cp --t d x", [T("d", False, PARENT), T("d/d", False, 0), T("d/x", False, 0)]),
        (
            "cp -t d -t e x",
            [T("d", False, PARENT), T("d/x", False, 0), T("e", False, PARENT), T("e/x", False, 0)],
        ),
        ("cp -- -t d x", [T("x", False, PARENT), T("x/-t", False, 0), T("x/d", False, 0)]),
        ("cp -S t x d", [T("d", False, PARENT), T("d/x", False, 0)]),  # t: the suffix
        ("cp -St x d", [T("d", False, PARENT), T("d/x", False, 0)]),
        ("install -otom x d", [T("d", False, PARENT), T("d/x", False, 0)]),  # owner tom
        ("cp x -t", []),
        ("cp a", []),
        ("ln -s a", [T("a", False, ANY)]),  # linked to from here
        ("mv a b", [T("a", False, ANY), T("b", False, PARENT), T("b/a", False, ANY)]),
        ("cp -T a b", [T("b", False, ANY), T("b/a", False, 0)]),
        ("cp -r a b", [T("b", False, PARENT), T("b/a", False, ANY)]),
        ("cp $S d", [T("d", False, PARENT), T("d/$S", True, 0)]),
        ("cp x $D", [T("$D", True, PARENT), T("$D/x", True, 0)]),
        ("mv $S d", [T("$S", True, ANY), T("d", False, PARENT), T("d/$S", True, ANY)]),
        ("rsync -t a b", [T("b", False, PARENT), T("b/a", False, 0)]),  # -t: --times
        (
            "rsync --remove-source-files a b",
            [T("a", False, ANY), T("b", False, PARENT), T("b/a", False, ANY)],
        ),
        ("install -m 600 -o u -g g x d", [T("d", False, PARENT), T("d/x", False, 0)]),
    ],
)
def test_what_copies_and_moves_write(command: str, targets: list[Target]) -> None:
    assert written(command) == targets


@pytest.mark.parametrize(
    "command",
    [
        "cp --target-directory d/e x",
        "cp --target-dir d/e x",
        "cp --target=d/e x",
        "cp -vt d/e x",
        "cp -td/e x",
        "mv --target-directory d/e x",
        "install -vt d/e x",
        "install -otom x d/e",  # the t of the owner's name is no -t
        "rsync -avt x d/e",  # rsync's -t, -o, -g, -m take no value: d/e is the destination
        "rsync -ao x d/e",
        "rsync -g x d/e",
        "rsync -m x d/e",
    ],
)
def test_every_spelling_of_the_target_directory_is_seen(command: str) -> None:
    """Each of these wrote into d/e unseen before: GNU getopt takes `--target-directory D`,
    `-vtD`, `-tD` and abbreviations alike, and rsync's `-t` is `--times`."""
    assert denied(command) == (
        f"protected path: `{command}` may write to d/e, which matches protected '/p/d/e/f'"
    )


@pytest.mark.parametrize(
    ("name", "option"),
    [
        *(("cp", option) for option in ("-S", "--suffix")),
        *(
            ("install", option)
            for option in ("-S", "--suffix", "-m", "-o", "-g", "--mode", "--owner", "--group")
        ),
        ("install", "--strip-program"),
        *(
            ("rsync", option)
            for option in ("-e", "-f", "-B", "-T", "-M", "--rsh", "--filter", "--block-size")
        ),
        *(
            ("rsync", option)
            for option in ("--temp-dir", "--remote-option", "--exclude", "--include")
        ),
        *(
            ("rsync", option)
            for option in ("--exclude-from", "--include-from", "--files-from", "--log-file")
        ),
        *(
            ("rsync", option)
            for option in ("--partial-dir", "--backup-dir", "--suffix", "--chmod", "--chown")
        ),
        *(
            ("rsync", option)
            for option in ("--rsync-path", "--compare-dest", "--copy-dest", "--link-dest")
        ),
    ],
)
def test_the_value_of_an_option_is_no_destination(name: str, option: str) -> None:
    assert judged(f"{name} x /tmp {option} d/e") is None


def test_an_option_missing_its_value_is_no_crash() -> None:
    assert judged("cp x -t") is None


@pytest.mark.parametrize(
    ("command", "target"),
    [
        ("sed 'w d/e/f'", "d/e/f"),  # the script is the first word
        ("gawk -e '{print > \"d/e/f\"}'", "d/e/f"),  # the program as an option's value
        ("gawk --source='{print > \"d/e/f\"}'", "d/e/f"),
        ("mawk '{print > \"d/e/f\"}' in", "d/e/f"),
        ("nawk '{print > \"d/e/f\"}' in", "d/e/f"),
        ("busybox awk '{print > \"d/e/f\"}' in", "d/e/f"),
        ("awk -F : '{print > \"d/e/f\"}' in", "d/e/f"),
        ("gawk -iinplace '{print}' d/e/f", "d/e/f"),
        ("gawk -i inplace.awk '{print}' d/e/f", "d/e/f"),
        ("gawk --include inplace '{print}' d/e/f", "d/e/f"),
        ("gawk --include=inplace '{print}' d/e/f", "d/e/f"),
    ],
)
def test_every_place_of_a_script_is_read(command: str, target: str) -> None:
    reason = denied(command)
    assert reason.endswith(f"` may write to {target}, which matches protected '/p/d/e/f'")


@pytest.mark.parametrize(
    "command",
    [
        "sed -n 'w d/e' in",  # a file written: nothing below it
        "awk '{print > \"d/e\"}' in",
        "gawk -ilib '{print}' d/e/f",
        "gawk --include=lib '{print}' d/e/f",
    ],
)
def test_a_script_writes_only_the_file_it_names(command: str) -> None:
    assert judged(command) is None


@pytest.mark.parametrize(
    "command",
    [
        "find \\( -name f \\) -delete",  # no starting point: from here
        "find ')' -delete",
        "find , -delete",
        "find . -name g -or -name h -delete",
        "find . -name g , -delete",
        "find . -wholename x -name g -delete",
        "find . -regex x -name g -delete",
        "find . -ipath x -name g -delete",
        "ar x",
    ],
)
def test_what_reaches_the_protected_file_from_here(command: str) -> None:
    assert " may write to " in denied(command)


@pytest.mark.parametrize(
    "command",
    [
        "find -name g -delete",  # from here, but only names like g
        "tar --xattrs -cf /tmp/a.tar x",  # a long option's letters are no mode
        "tar -cf /tmp/a.tar ax",  # nor are a file's
        "7z x a.7z -oxd",
        "tar -xf a.tar --directory=d=x",  # everything after the first `=` is the value
        "tar -xf a.tar --directory=x=d",
    ],
)
def test_what_stays_away_from_the_protected_file_passes(command: str) -> None:
    assert judged(command) is None


@pytest.mark.parametrize(
    ("command", "unknown"),
    [
        ("find $D -delete", "$D"),
        ("7z x a.7z -o$D", "$D"),  # the value inside an option's word
        ("tar -xf a.tar -C `echo d`", "`echo d`"),
        ("7z x a.7z -o`echo d`", "`echo d`"),  # computed where it runs, glued to its option
        ("tar -xf '`echo d`' -C `echo d`", "`echo d`"),  # a quoted look-alike before it
        ("tar -xf a.tar -C`echo d`", "`echo d`"),
        ('sed -n "w $F" in', "$F"),
    ],
)
def test_a_target_known_only_when_the_command_runs_is_denied(command: str, unknown: str) -> None:
    shown = command.replace('"', "").replace("'", "")  # shown as parsed: quotes removed
    assert strict(command) == (
        f"ccbridge self-protection: cannot tell what `{shown}` writes: {unknown} is only known "
        "when the command runs"
    )


def test_a_quoted_backtick_is_a_plain_character() -> None:
    assert strict("tar -xf a.tar -C 'x`y'") is None


def test_a_state_name_is_looked_for_in_the_words_not_across_them() -> None:
    """The line's words are joined without adding anything a name could be found in."""
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/s/XX", env={})
    execution = Execution.create("Bash", {"command": "make $X <in; true"}, cwd="/w")
    assert guard(execution) is None


@pytest.mark.parametrize(
    ("command", "targets"),
    [
        ("cp -- x", []),  # after `--` nothing is a target directory
        ("cp -t d -- x", [T("d", False, PARENT), T("d/x", False, 0)]),
        (
            "cp -t d --target-directory=e x",
            [T("d", False, PARENT), T("d/x", False, 0), T("e", False, PARENT), T("e/x", False, 0)],
        ),
        ("cp x --target-directory d", [T("d", False, PARENT), T("d/x", False, 0)]),
        ("cp -tdist x", [T("dist", False, PARENT), T("dist/x", False, 0)]),  # the first t
        ("cp --preserve=mode -t d x", [T("d", False, PARENT), T("d/x", False, 0)]),
        ("cp at d", [T("d", False, PARENT), T("d/at", False, 0)]),  # an operand's t: no -t
        ("cp --target-directory $D x", [T("$D", True, PARENT), T("$D/x", True, 0)]),
        ("cp -t $D x", [T("$D", True, PARENT), T("$D/x", True, 0)]),
    ],
)
def test_what_lands_in_a_target_directory(command: str, targets: list[Target]) -> None:
    assert written(command) == targets


# The environment the agent's commands run in, as the hook is told it.
ENV = {"PWD": "/p", "OLDPWD": "/tmp", "X": "/tmp"}


def strict_in_env(command: str) -> str | Ask | None:
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/st", env=ENV)
    return verdicts.plain(guard(Execution.create("Bash", {"command": command}, cwd="/w")))


@pytest.mark.parametrize(
    ("command", "unknown"),
    [
        ("read X; cp s.json $X", "$X"),  # the line sets X: the environment's value is stale
        ("cp s.json $OLDPWD", "$OLDPWD"),  # whatever directory the agent was in before
        ("cd /q && cp s.json $PWD", "$PWD"),  # after a `cd`: not where the command started
        ("cp s.json ~-", "~-"),  # the previous directory, as `$OLDPWD`
        ("X=$(pwd); cp s.json $X", "$X"),  # assigned a computed value
        ("X=$(echo a=b); cp s.json $X", "$X"),  # the name ends at the first `=`
        ("export X=$(pwd); cp s.json $X", "$X"),
        ("local X=$(pwd); cp s.json $X", "$X"),
        ("declare X=$(pwd); cp s.json $X", "$X"),
        ("readonly X=$(pwd); cp s.json $X", "$X"),
        ("for X in $(ls); do cp s.json $X; done", "$X"),
        ("select X in $(ls); do cp s.json $X; done", "$X"),
        ("mapfile X < f; cp s.json $X", "$X"),
        ("readarray X < f; cp s.json $X", "$X"),
        ("getopts ab X; cp s.json $X", "$X"),
        ("X=$(pwd); for Y in a; do cp s.json $X; done", "$X"),  # a later loop adds its name
        ("X=$(pwd); read Y; cp s.json $X", "$X"),  # and so does a later `read`
    ],
)
def test_a_variable_the_hook_cannot_know_is_unknown(command: str, unknown: str) -> None:
    assert strict_in_env(command) == (
        f"ccbridge self-protection: cannot tell what `cp s.json {unknown}` writes: {unknown} is "
        "only known when the command runs"
    )


def test_pwd_is_where_the_agent_runs_not_the_environment_of_the_hook() -> None:
    assert strict_in_env("cp s.json $PWD") is None  # /w/s.json: not the protected /p/s.json


@pytest.mark.parametrize(
    "command",
    [
        "git -c a=b checkout -- d/e/f",  # global options and their values come first
        "git --git-dir .git checkout -- d/e/f",
        "git --work-tree w checkout -- d/e/f",
    ],
)
def test_git_global_options_do_not_hide_the_subcommand(command: str) -> None:
    assert " may write to " in denied(command)


@pytest.mark.parametrize("command", ["git", "git -C /p", "patch"])
def test_git_or_patch_without_a_subcommand_or_operand(command: str) -> None:
    # `patch` alone reads its patch from the terminal: what it writes is unknown.
    assert (judged(command) is None) is (command != "patch")


def test_a_tab_stripped_here_document_is_read_as_the_patch() -> None:
    assert judged("patch -p1 <<-EOF\n\t+++ b/x/y\n\tEOF") is None


@pytest.mark.parametrize("how", ["git apply x.patch", "patch -p1 < x.patch"])
def test_a_relative_harmless_patch_where_the_agent_runs_passes(tmp_path: Path, how: str) -> None:
    (tmp_path / "x.patch").write_text("--- a/x/y\n+++ b/x/y\n", encoding="utf-8")
    guard = protect_paths.protected_paths_guard([str(tmp_path / "d" / "e" / "f")])
    assert guard(Execution.create("Bash", {"command": how}, cwd=str(tmp_path))) is None


def test_a_patch_of_exactly_the_read_cap_is_read_whole(tmp_path: Path) -> None:
    header = "--- a/x/y\n+++ b/x/y\n"  # then one long context line up to the cap
    filler = " " * (writes.MAX_PATCH_BYTES - len(header))
    (tmp_path / "x.patch").write_text(header + filler, encoding="utf-8")
    assert (tmp_path / "x.patch").stat().st_size == writes.MAX_PATCH_BYTES
    guard = protect_paths.protected_paths_guard([str(tmp_path / "d" / "e" / "f")])
    execution = Execution.create("Bash", {"command": "git apply x.patch"}, cwd=str(tmp_path))
    assert guard(execution) is None


def written_in(command: str, cwd: str) -> list[Target]:
    script = parse(command)
    assert not isinstance(script, Unparseable)
    (parsed,) = script.commands()
    return list(protect_paths._written(parsed, cwd))


@pytest.mark.parametrize(
    ("command", "targets"),
    [
        ("git clean -fd", [T(".", False, ANY)]),
        ("git clean -f x", [T("x", False, ANY)]),
        ("git checkout -- x", [T("x", False, ANY)]),
        ("git apply --check x.patch", []),
        ("patch --dry-run x", []),
        # The patch's paths, as written and without their first component (`-p1`).
        ("git apply <<EOF\n+++ b/x/y\nEOF", [T("./b/x/y", False, ANY), T("./x/y", False, ANY)]),
        (
            "git apply <<EOF\n--- /dev/null\n+++ b/x\nEOF",
            [T("./b/x", False, ANY), T("./x", False, ANY)],
        ),
        (
            "git apply --directory=d <<EOF\n+++ b/x\nEOF",
            [T("d/b/x", False, ANY), T("d/x", False, ANY)],
        ),
        (
            "patch -n <<EOF\n+++ b/x\nEOF",
            [T("./b/x", False, ANY), T("./x", False, ANY)],
        ),  # --normal
        ("patch -p1 <<EOF\n+++ b/x\nEOF", [T("./b/x", False, ANY), T("./x", False, ANY)]),
        (
            "patch x.c <<EOF\n+++ b/x\nEOF",
            [T("x.c", False, ANY), T("./b/x", False, ANY), T("./x", False, ANY)],
        ),
        (
            "patch -d d <<EOF\n+++ b/x\nEOF",  # (the value d is taken for a file as well)
            [
                T("d", False, ANY),
                T("d/d", False, ANY),
                T("d/b/x", False, ANY),
                T("d/x", False, ANY),
            ],
        ),
        ("patch -i p.diff", [T("p.diff", False, ANY), T(".", False, ANY)]),  # unread: all of .
    ],
)
def test_what_git_and_patch_write(command: str, targets: list[Target]) -> None:
    assert written(command) == targets


@pytest.mark.parametrize(
    ("command", "targets"),
    [
        (
            "patch -i p.diff",
            [T("p.diff", False, ANY), T("./b/x", False, ANY), T("./x", False, ANY)],
        ),
        ("patch --input=p.diff", [T("./b/x", False, ANY), T("./x", False, ANY)]),
        (
            "patch x.c p.diff",
            [
                T("x.c", False, ANY),
                T("p.diff", False, ANY),
                T("./b/x", False, ANY),
                T("./x", False, ANY),
            ],
        ),
        ("git apply p.diff", [T("./b/x", False, ANY), T("./x", False, ANY)]),
        # git reads the patch where it runs; --directory only prefixes the paths in it
        ("git apply --directory=d p.diff", [T("d/b/x", False, ANY), T("d/x", False, ANY)]),
    ],
)
def test_what_a_patch_file_makes_them_write(
    tmp_path: Path, command: str, targets: list[Target]
) -> None:
    (tmp_path / "p.diff").write_text("+++ b/x\n", encoding="utf-8")
    assert written_in(command, str(tmp_path)) == targets


@pytest.mark.parametrize(
    "command",
    [
        "patch --directory=d/e f < p.diff",  # the file named is in the `-d` directory
        "patch -dd/e f < p.diff",
        "patch -p 1 d/e/f < p.diff",  # after an option's value
        "patch -od/e/f x < p.diff",  # the output file
        "patch --output=d/e/f x < p.diff",
    ],
)
def test_patch_writes_the_file_it_is_given_wherever_it_stands(tmp_path: Path, command: str) -> None:
    """Each of these wrote the protected file unseen before (the patch itself is harmless; the
    protected file, read as a patch, names nothing)."""
    (tmp_path / "p.diff").write_text("--- a/x\n+++ b/x\n", encoding="utf-8")
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "e" / "f").write_text("{}\n", encoding="utf-8")
    guard = protect_paths.protected_paths_guard([str(tmp_path / "d" / "e" / "f")])
    verdicts.denied(
        guard(Execution.create("Bash", {"command": command}, cwd=str(tmp_path))), " may write to "
    )


def test_git_reads_a_relative_patch_where_it_runs_not_in_its_directory_option(
    tmp_path: Path,
) -> None:
    """--directory prefixes the paths in the patch; the patch file is read where git runs."""
    (tmp_path / "x.patch").write_text("+++ b/.claude/settings.json\n", encoding="utf-8")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "x.patch").write_text("+++ b/x\n", encoding="utf-8")  # a decoy
    guard = protect_paths.protected_paths_guard(["**/.claude/settings*.json"])
    command = "git apply --directory=a x.patch"
    reason = guard(Execution.create("Bash", {"command": command}, cwd=str(tmp_path)))
    assert reason == (
        f"protected path: `{command}` may write to a/b/.claude/settings.json, which matches "
        "protected '**/.claude/settings*.json'"
    )


def test_a_shell_command_in_inline_code_is_judged_as_a_command() -> None:
    command = "python3 -c \"import os; os.system('cp x /p/s.json')\""
    assert strict(command) == (
        "ccbridge self-protection: `cp x /p/s.json` may write to /p/s.json, which matches "
        "protected '/p/s.json'"
    )


AWK_WORDS = ("-v", "f", "in")  # an awk program's words besides itself


@pytest.mark.parametrize(
    ("command", "targets"),
    [
        ("find -delete", [T(".", False, ANY)]),
        ("find -name g -delete", [T(".", False, ANY, ("g",))]),
        ("find -H -O3 -D tree d -delete", [T("d", False, ANY)]),
        ("find -P d -delete", [T("d", False, ANY)]),
        ("find -D -delete", [T(".", False, ANY)]),  # (-delete as -D's value: all words used)
        ("find d -name g -delete", [T("d", False, ANY, ("g",))]),
        ("find $D -delete", [T("$D", True, ANY)]),
        ("tar -xf a.tar", [T(".", False, ANY)]),
        ("tar -xf a.tar -C d", [T("d", False, ANY)]),
        ("tar -xf a.tar -C $D", [T("$D", True, ANY)]),
        ("tar -xf $A -C d", [T("d", False, ANY)]),  # another word's expansion: not the directory
        ("7z x a.7z -o$D", [T("$D", True, ANY)]),
        ("ar x lib.a", [T(".", False, ANY)]),
        ("sed -n 'w x' in", [T("x", False, 0)]),
        ('sed -n "w $F" in', [T("$F", True, 0)]),
        ("awk '{print > \"x\"}' in", [T("x", False, 0)]),
        # an awk variable: known when it runs, and each operand or value may be what it names
        ("awk '{print > x}' in", [T("x", True, 0), T("in", False, 0)]),
        ("awk -v x=f '{print > x}' in", [T("x", True, 0), *(T(w, False, 0) for w in AWK_WORDS)]),
        ("gawk -i inplace 1 $F", [T(w, w == "$F") for w in ("gawk", "-i", "inplace", "1", "$F")]),
    ],
)
def test_what_finds_archives_and_scripts_write(command: str, targets: list[Target]) -> None:
    assert written(command) == targets


def test_inline_code_that_is_no_shell_is_not_judged_as_shell() -> None:
    assert isinstance(parse("a = (1"), Unparseable)
    assert strict("python3 -c 'a = (1'") is None


def test_patch_reads_its_input_in_its_directory(tmp_path: Path) -> None:
    """`patch -d DIR` changes to DIR first: `-i FILE` is read there."""
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "p.diff").write_text("+++ b/x\n", encoding="utf-8")
    assert written_in("patch -d d -i p.diff", str(tmp_path)) == [
        T("d", False, ANY),  # (option values are taken for files as well)
        T("d/d", False, ANY),
        T("p.diff", False, ANY),
        T("d/p.diff", False, ANY),
        T("d/b/x", False, ANY),
        T("d/x", False, ANY),
    ]


RUNS = (
    "runs ccbridge itself; the agent may not run `ccbridge run`, `explain`, `install` or "
    "`uninstall` (they could forge hook events or rewrite the registration)"
)
XARGS = (
    "xargs hands it arguments that are only known when the command runs (name the files instead)"
)


@pytest.mark.parametrize(
    "command",
    ["ccbridge run", "python3 -m bridge.foo", "python3 /opt/bin/ccbridge"],
)
def test_running_ccbridge_is_denied(command: str) -> None:
    assert strict(command) == f"ccbridge self-protection: `{command}` {RUNS}"


def test_running_a_file_of_the_package_is_running_ccbridge() -> None:
    command = f"python3 {protect_paths._PACKAGE}/main.py"
    assert strict(command) == f"ccbridge self-protection: `{command}` {RUNS}"


@pytest.mark.parametrize("command", ["ls | xargs rm", "ls | xargs python3"])
def test_a_writer_or_interpreter_fed_by_xargs_is_denied(command: str) -> None:
    assert verdicts.denied(strict(command)).endswith(XARGS)


NAMED = protect_paths.self_protection_guard(
    ["/p/s.json"], [], "/st", env={"C": "/opt/ccbridge", "L": "ls", "G": "/bin/l*"}
)


def named(command: str, cwd: str = "/w") -> str | Ask | None:
    return verdicts.plain(NAMED(Execution.create("Bash", {"command": command}, cwd=cwd)))


def test_a_command_name_from_the_environment_is_put_in() -> None:
    assert (
        named("$C run") == "ccbridge self-protection: `$C run` runs ccbridge itself (/opt/ccbridge)"
    )
    assert named("$L -la") is None
    assert named("$G") == (
        "ccbridge self-protection: cannot tell what `$G` runs: the command name $G is only "
        "known when it runs"
    )


@pytest.mark.parametrize(
    ("command", "word"),
    [
        ("cat x", "x"),  # a plain name, relative to a directory inside the state
        ("cat -n x", "x"),  # options are skipped
    ],
)
def test_words_are_read_where_the_command_runs(command: str, word: str) -> None:
    assert named(command, cwd="/st") == (
        f"ccbridge self-protection: `{command}` names {word}, inside ccbridge's state '/st', "
        "which the agent may not touch"
    )


def test_a_redirection_names_a_state_path() -> None:
    assert strict("cat < /st/x") == (
        "ccbridge self-protection: `cat` names /st/x, inside ccbridge's state '/st', which the "
        "agent may not touch"
    )


def test_after_a_cd_a_relative_path_is_resolved_where_the_cd_went() -> None:
    assert strict("cd / && cat st/x") == (
        "ccbridge self-protection: `cat st/x` names st/x, inside ccbridge's state '/st', which "
        "the agent may not touch"
    )
    assert strict("cd /tmp && cat st/x") is None  # /tmp/st/x


def test_after_a_cd_to_somewhere_unknown_a_relative_path_may_end_in_the_state() -> None:
    assert strict("cd $SOMEWHERE && cat st/x") == (
        "ccbridge self-protection: `cat st/x` names st/x, inside ccbridge's state '/st', which "
        "the agent may not touch"
    )


def test_a_glob_is_expanded_to_the_state_it_names(tmp_path: Path) -> None:
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "x").write_text("", encoding="utf-8")
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], str(tmp_path / "state"), env={})
    command = f"cat {tmp_path}/sta*/x"
    verdicts.denied(
        guard(Execution.create("Bash", {"command": command}, cwd="/w")), " inside ccbridge's state "
    )


@pytest.mark.parametrize(
    "command",
    [
        "git log $R -- .claude",  # git commands that only read
        "git -C /tmp log $R .claude",
        "git -c a=b log $R .claude",
        "git --git-dir /tmp/g log $R .claude",
        "git --work-tree /tmp/w log $R .claude",
        "git",
        "cat $Y .claude",  # and commands that only read
        "X=$Y; echo .claude",  # an assignment alone runs nothing
        "make '$Y' .claude",  # a quoted `$` is a plain character
        "'$Y' .claude",  # in the command name too
    ],
)
def test_an_unknown_word_in_a_reading_command_passes(command: str) -> None:
    assert strict(command) is None


@pytest.mark.parametrize("command", ["dd if=x of=d/e/f=x", "dd if=x of=x=d/e/f"])
def test_the_value_of_a_word_is_what_follows_its_first_equals_sign(command: str) -> None:
    assert judged(command) is None


def test_an_unknown_word_after_an_assignment_is_still_its_own() -> None:
    verdicts.denied(strict("X=1 make $Y .claude"), "does with $Y, which is only known when it runs")


@pytest.mark.parametrize("command", ["X=/st=y true", "X=y=/st true"])
def test_an_assignment_names_what_follows_its_first_equals_sign(command: str) -> None:
    assert strict(command) is None


def test_code_on_standard_input_is_judged() -> None:
    assert strict("python3 <<EOF\nopen('settings.json', 'w')\nEOF") == (
        "ccbridge self-protection: `python3` runs code that can write files and mentions "
        "settings.json; its paths are only known when it runs"
    )


def test_inline_shell_code_is_judged_as_commands_not_as_code() -> None:
    assert strict("bash -c 'echo settings.json >/dev/null'") is None


def test_many_inline_programs_in_one_line_are_each_judged() -> None:
    command = "python3 -c 1; " * 5 + "python3 -c \"import os; os.system('cp x /p/s.json')\""
    assert strict(command) == (
        "ccbridge self-protection: `cp x /p/s.json` may write to /p/s.json, which matches "
        "protected '/p/s.json'"
    )


@pytest.mark.parametrize(
    "command",
    [
        "D=/s; cat ${D}t/x",
        "for x in /s; do cat ${x}t/y; done",
        "D=/s; read y; for f in a; do cat ${D}t/x; done",  # every cue of an assignment at once
    ],
)
def test_values_the_line_assigns_are_put_in(command: str) -> None:
    verdicts.denied(strict(command), " inside ccbridge's state '/st'")


def test_tilde_plus_is_where_the_command_runs() -> None:
    verdicts.denied(judged("cp x ~+/d/e/f"), " may write to /p/d/e/f, ")


def test_find_names_only_reach_an_anchored_entry_below_its_start() -> None:
    assert judged("find /tmp -name f -delete") is None


def test_a_glob_may_match_hidden_files(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("", encoding="utf-8")
    guard = protect_paths.protected_paths_guard([str(tmp_path / ".env")])
    reason = guard(Execution.create("Bash", {"command": "rm ./*"}, cwd=str(tmp_path)))
    assert reason == (
        f"protected path: `rm ./*` may write to ./*, which matches protected '{tmp_path}/.env'"
    )


def test_a_state_directory_given_with_a_slash_still_names_its_hint() -> None:
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/var/zz/", env={})
    execution = Execution.create("Bash", {"command": "make $X; echo zz"}, cwd="/w")
    verdicts.denied(
        guard(execution), "ccbridge self-protection: cannot tell what `make $X` does", "mentions zz"
    )


def test_an_anchored_glob_matches_from_the_root_only() -> None:
    guard = protect_paths.protected_paths_guard(["/p/*.json"])
    deeper = Execution.create("Write", {"file_path": "/q/p/a.json", "content": ""}, cwd="/w")
    assert guard(deeper) is None
    direct = Execution.create("Write", {"file_path": "/p/a.json", "content": ""}, cwd="/w")
    assert guard(direct) is not None


@pytest.mark.parametrize(("command", "hit"), [("rm -rf /", True), ("cp x /", False)])
def test_an_anchored_glob_is_reached_from_as_far_above_as_the_command_reaches(
    command: str, hit: bool
) -> None:
    guard = protect_paths.protected_paths_guard(["/p/*.json"])  # two levels below `/`
    reason = guard(Execution.create("Bash", {"command": command}, cwd="/w"))
    assert (reason is not None) is hit


def test_files_landing_in_the_directory_holding_the_state_reach_it() -> None:
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/q/st", env={})
    reason = guard(Execution.create("Bash", {"command": "cp x /q"}, cwd="/w"))
    assert reason == (
        "ccbridge self-protection: `cp x /q` may write to /q, which matches protected '/q/st'"
    )


def test_a_path_the_system_cannot_resolve_is_still_guarded_as_written() -> None:
    guard = protect_paths.protected_paths_guard(["/p/a\x00b"])  # realpath refuses the NUL
    execution = Execution.create("Write", {"file_path": "/p/a\x00b", "content": ""}, cwd="/w")
    verdicts.denied(guard(execution), "protected path: Write to /p/a\x00b is denied")


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """A protected file given by a symlinked directory, and the real directory (a name that
    would be a glob if it were read as one)."""
    real = tmp_path / "real[1]"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    return tmp_path / "link" / "f", real


def test_a_protected_symlink_guards_its_target_under_the_configured_name(
    linked: tuple[Path, Path],
) -> None:
    spec, real = linked
    guard = protect_paths.protected_paths_guard([str(spec)])
    execution = Execution.create("Write", {"file_path": f"{real}/f", "content": ""}, cwd="/w")
    assert guard(execution) == (f"protected path: Write to {real}/f is denied (matches '{spec}')")


def test_deleting_the_target_directory_of_a_protected_symlink_is_denied(
    linked: tuple[Path, Path],
) -> None:
    spec, real = linked
    guard = protect_paths.protected_paths_guard([str(spec)])
    execution = Execution.create("Bash", {"command": f"rm -rf '{real}'"}, cwd="/w")
    verdicts.denied(
        guard(execution), f"protected path: `rm -rf {real}` may write to {real}", str(spec)
    )


def test_find_elsewhere_does_not_reach_the_target_of_a_protected_symlink(
    linked: tuple[Path, Path],
) -> None:
    spec, _ = linked
    guard = protect_paths.protected_paths_guard([str(spec)])
    command = "find /nonexistent -name 'real*' -delete"
    assert guard(Execution.create("Bash", {"command": command}, cwd="/w")) is None


def test_a_file_tool_path_is_taken_literally_not_as_a_glob(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("", encoding="utf-8")
    guard = protect_paths.protected_paths_guard([str(tmp_path / "secret")])
    execution = Execution.create("Write", {"file_path": f"{tmp_path}/s*", "content": ""}, cwd="/w")
    assert guard(execution) is None


@pytest.mark.parametrize("cwd", ["", "sub"])
def test_without_an_absolute_working_directory_a_path_is_read_where_the_hook_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cwd: str
) -> None:
    monkeypatch.chdir(tmp_path)
    guard = protect_paths.protected_paths_guard([str(tmp_path / "f")])
    verdicts.denied(
        guard(Execution.create("Write", {"file_path": "f", "content": ""}, cwd=cwd)),
        "protected path: Write to f is denied",
        str(tmp_path / "f"),
    )


def test_every_match_of_a_glob_is_judged(tmp_path: Path) -> None:
    import glob

    for name in ("a", "b", "c"):
        (tmp_path / name).write_text("", encoding="utf-8")
    first = glob.glob(f"{tmp_path}/*")[0]  # not the last one the shell's expansion yields
    guard = protect_paths.protected_paths_guard([first])
    command = f"rm {tmp_path}/*"
    verdicts.denied(
        guard(Execution.create("Bash", {"command": command}, cwd="/w")),
        f"protected path: `{command}` may write to",
        f"matches protected {first!r}",
    )


def test_after_a_cd_an_absolute_path_is_only_itself() -> None:
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/q/st", env={})
    execution = Execution.create("Bash", {"command": "cd /tmp && cat /st/x"}, cwd="/w")
    assert guard(execution) is None  # /st/x is no path inside /q/st


def test_a_state_directory_name_is_a_hint_as_it_is_spelled() -> None:
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/v/boX", env={})
    execution = Execution.create("Bash", {"command": "make $X; echo bo"}, cwd="/w")
    assert guard(execution) is None  # `bo` is not the name `boX`


def test_a_state_directory_at_the_root_gives_no_empty_hint() -> None:
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/", env={})
    execution = Execution.create("Bash", {"command": "make -j$X"}, cwd="/w")
    assert guard(execution) is None


def test_popd_moves_too() -> None:
    assert strict("popd && cp x s.json") == (
        "ccbridge self-protection: `cp x s.json` may write to s.json, which matches protected "
        "'/p/s.json'"
    )


def test_after_a_cd_a_relative_patch_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / "x.patch").write_text(
        "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+b\n",
        encoding="utf-8",
    )
    guard = protect_paths.protected_paths_guard([str(tmp_path / "s.json")])
    harmless = Execution.create("Bash", {"command": "git apply x.patch"}, cwd=str(tmp_path))
    assert guard(harmless) is None
    moved = Execution.create("Bash", {"command": "cd sub && git apply x.patch"}, cwd=str(tmp_path))
    assert guard(moved) == (
        "protected path: `git apply x.patch` may write to ., which matches protected "
        f"'{tmp_path}/s.json'"
    )


def test_a_glob_beside_an_unknown_target_is_expanded(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("", encoding="utf-8")
    guard = protect_paths.protected_paths_guard([str(tmp_path / "secret")])
    command = f"echo {tmp_path}/sec* | tee $OUT"
    verdict = guard(Execution.create("Bash", {"command": command}, cwd="/w"))
    assert isinstance(verdict, Ask) and f"names {tmp_path}/sec*, " in verdict.reason


def test_an_unknown_target_in_a_line_naming_nothing_protected_passes() -> None:
    assert judged("echo hi | tee $OUT") is None


def test_an_unknown_target_in_backticks_is_unknown() -> None:
    verdict = judged("cat d/e/f | tee `cat n`")
    assert isinstance(verdict, Ask)  # the target is only known at run time: a question
    assert verdict.reason == (
        "protected path: the command writes to `cat n`, which cannot be resolved before it runs, "
        "and `cat d/e/f` names d/e/f, which matches protected '/p/d/e/f'"
    )


def test_an_option_word_holding_a_path_is_still_read() -> None:
    assert strict("cat -- -d/../../st/x") == (
        "ccbridge self-protection: `cat -- -d/../../st/x` names -d/../../st/x, inside "
        "ccbridge's state '/st', which the agent may not touch"
    )


def test_the_name_of_a_script_file_is_not_read_as_code() -> None:
    assert strict("python3 write_ccbridge.py") is None


def test_a_braced_variable_is_put_in() -> None:
    assert strict_in_env("cp s.json ${X}") is None  # /tmp: nothing protected


@pytest.mark.parametrize(
    "command",
    [
        "cp s.json $X X=1",  # an operand that looks like an assignment assigns nothing
        "for Y in a; do cp s.json $in; done",  # `in` is no loop variable
    ],
)
def test_only_names_the_line_assigns_are_not_taken_from_the_environment(command: str) -> None:
    guard = protect_paths.self_protection_guard(
        ["/p/s.json"], [], "/st", env={"X": "/t", "in": "/t"}
    )
    assert guard(Execution.create("Bash", {"command": command}, cwd="/w")) is None


def test_a_redirection_writes_only_the_file_it_names() -> None:
    assert judged("echo x > d") is None  # d/e/f lies below d: a file d is no directory above


def test_a_decompressed_file_is_resolved_like_its_archive() -> None:
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/st", env={"D": "/p"})
    reason = guard(Execution.create("Bash", {"command": "gunzip $D/s.json.gz"}, cwd="/w"))
    assert reason == (
        "ccbridge self-protection: `gunzip $D/s.json.gz` may write to /p/s.json, which matches "
        "protected '/p/s.json'"
    )


def test_inline_code_that_deletes_reaches_below_what_it_names() -> None:
    command = "python3 -c \"import shutil; shutil.rmtree('d')\""
    assert denied(command) == (
        "protected path: `python3 -c import shutil; shutil.rmtree('d')` may write to d, which "
        "matches protected '/p/d/e/f'"
    )


CODE_WITH_A_DOLLAR = "python3 -c 'import re; re.compile(\"a$\")'"  # a regex anchor, no variable


def test_a_dollar_sign_in_inline_code_is_a_plain_character() -> None:
    assert strict(f"{CODE_WITH_A_DOLLAR} ccbridge") is None  # a line naming a state piece
    assert judged(f"{CODE_WITH_A_DOLLAR} d/e/f") is None  # and one naming a protected path


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("X=$Y make .claude", "in a command line that mentions .claude"),
        ("cat --file=/st/x", "names /st/x, inside ccbridge's state '/st'"),
    ],
)
def test_assignments_and_option_values_are_words_of_their_own(command: str, why: str) -> None:
    verdicts.denied(strict(command), "ccbridge self-protection: ", why)


def test_importing_runpy_is_running_ccbridge() -> None:
    assert strict("python3 -c 'import runpy'") == (
        f"ccbridge self-protection: `python3 -c import runpy` {RUNS}"
    )


def test_an_unknown_option_of_an_interpreter_reading_stdin_is_no_program() -> None:
    assert strict("python3 -u$X - <<EOF\nprint(1)\nEOF") is None


def test_inline_shell_code_is_no_code_to_take_paths_from() -> None:
    assert judged("sh -c 'cat d/e/f'") is None  # it only reads d/e/f


def test_a_bare_double_dash_option_is_no_target_directory() -> None:
    assert judged("cp x --=d/e") is None


@pytest.mark.parametrize("length", [199, 200, 201, 250])
def test_a_long_command_is_shown_cut_to_200_characters(length: int) -> None:
    command = "rm d/e/f " + "x" * (length - len("rm d/e/f "))
    shown = command if length <= 200 else command[:197] + "..."
    assert denied(command) == (
        f"protected path: `{shown}` may write to d/e/f, which matches protected '/p/d/e/f'"
    )


# After a `cd` to a directory only known when the line runs, a relative path starts from an
# unknown directory: it may be any, so a relative path that could name a directory above a
# protected file reaches that file.
@pytest.mark.parametrize(
    ("command", "written"),
    [
        ("cd $X && rm -rf d", "d"),
        ("cd $X && rm -rf d/e", "d/e"),
        ("cd $X && mv e /tmp/e", "e"),
        ("cd $X && cp y d/e", "d/e"),  # files land in d/e: f is one of them
        ("cd $X/y && rm -rf ../e", "../e"),  # above an unknown directory: still unknown
        ("cd $X/y && rm ../e/f", "../e/f"),
    ],
)
def test_after_a_cd_a_directory_above_the_protected_file_is_reached(
    command: str, written: str
) -> None:
    assert judged(command, cwd="/w") == (
        f"protected path: `{command.partition(' && ')[2]}` may write to {written}, which matches "
        "protected '/p/d/e/f'"
    )


@pytest.mark.parametrize(
    "command",
    [
        "cd $X && rm -rf q",
        "cd $X && cp y d",  # a file lands in d: f is two levels below
        "cd $X && rm -rf e/g",
        "cd $X && find d -name g -delete",  # only files named g go: f is none
        "cd $X && rm -rf /d/e",  # absolute: where it is does not depend on the cd
    ],
)
def test_after_a_cd_a_path_beside_the_protected_file_passes(command: str) -> None:
    assert judged(command, cwd="/w") is None


def test_after_a_cd_the_directory_holding_the_state_is_reached() -> None:
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/q/st", env={})
    execution = Execution.create("Bash", {"command": "cd / && rm -rf q"}, cwd="/w")
    assert guard(execution) == (
        "ccbridge self-protection: `rm -rf q` may write to q, which matches protected '/q/st'"
    )


def test_a_glob_with_more_matches_than_are_looked_at_fails_closed(tmp_path: Path) -> None:
    import glob

    crowded, full = tmp_path / "crowded", tmp_path / "full"
    cap = protected_entries._MAX_GLOB_MATCHES
    for directory, count in ((crowded, cap + 100), (full, cap)):  # full: all are looked at
        directory.mkdir()
        for i in range(count):
            (directory / f"f{i}").write_bytes(b"")
    last = list(glob.iglob(f"{crowded}/*"))[-1]  # past the matches that are looked at
    (tmp_path / "elsewhere").mkdir()
    guard = protect_paths.protected_paths_guard(
        [f"{last}/x", str(full / "g"), str(tmp_path / "elsewhere" / "f")]
    )

    def judged_here(command: str) -> str | Ask | None:
        return verdicts.plain(guard(Execution.create("Bash", {"command": command}, cwd="/w")))

    assert judged_here(f"rm -rf {crowded}/*") is not None  # x lies below one of the matches
    (tmp_path / "link").symlink_to(crowded)
    assert judged_here(f"rm -rf {tmp_path}/link/*") is not None  # the same, through a link
    assert judged_here(f"cat {crowded}/* > /tmp/all") is None  # only read
    assert judged_here(f"rm {tmp_path}/elsewhere/g*") is None
    assert judged_here(f"rm {full}/f*") is None  # every match looked at: g is none of them
    assert judged_here(f"rm -rf {tmp_path}/crow*/*") is not None  # below the first glob
    elsewhere = protect_paths.protected_paths_guard([str(tmp_path / "elsewhere" / "f")])
    command = f"rm -rf {tmp_path}/link/*"  # crowded, with nothing protected below it
    assert elsewhere(Execution.create("Bash", {"command": command}, cwd="/w")) is None


# After a `cd` to a literal directory, relative words are judged there (and where the call
# runs: the order of the line's commands is not followed), globs expanded in it.
@pytest.mark.parametrize(
    "command",
    [
        "cd {q} && find . -delete",
        "cd {q} && rm -rf *",
        "cd {q} && rm -rf ./*",
        "cd {p} && rm s.*",
        "cd {root} && rm -rf */*",
        "cd {w}; cd ../q; rm -rf *",  # one cd after another
        "cd -P -- {q} && rm -rf *",
        "pushd {q} && rm -rf *",
        "cd {w} && rm -rf ../q/*",
    ],
)
def test_after_a_cd_a_glob_or_the_directory_itself_reaches_what_it_holds(
    tmp_path: Path, command: str
) -> None:
    places = {name: tmp_path / name for name in ("p", "q", "w")}
    for place in places.values():
        place.mkdir()
    (places["p"] / "s.json").touch()
    (places["q"] / "st").mkdir()
    (places["q"] / "st" / "x").touch()
    guard = protect_paths.self_protection_guard(
        [str(places["p"] / "s.json")], [], str(places["q"] / "st"), env={}
    )
    line = command.format(root=tmp_path, **places)
    assert guard(Execution.create("Bash", {"command": line}, cwd=str(places["w"]))) is not None
    # The same words after a cd to a directory holding nothing protected pass.
    elsewhere = line.replace(str(places["q"]), str(places["w"])).replace(
        str(places["p"]), str(places["w"])
    )
    if "../q" not in elsewhere and "*/*" not in elsewhere:
        assert guard(Execution.create("Bash", {"command": elsewhere}, cwd=str(places["w"]))) is None


@pytest.mark.parametrize(
    "command",
    [
        "cd $X && rm -rf *",
        "cd $X && find . -delete",
        "cd - && rm -f ./*",
        "popd && rm -rf *",
        "cd $X && rm s.*",
    ],
)
def test_after_a_cd_known_only_when_it_runs_a_glob_or_the_directory_fails_closed(
    command: str,
) -> None:
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/q/st", env={})
    verdicts.denied(
        guard(Execution.create("Bash", {"command": command}, cwd="/w")),
        "is relative to a directory only known when it runs",
    )


def test_with_cdpath_set_a_relative_cd_goes_somewhere_unknown() -> None:
    """CDPATH sends `cd q` to any of its directories: a relative target is then unknown."""
    command = "cd q && rm -rf *"
    plain = protect_paths.self_protection_guard(["/p/s.json"], [], "/q/st", env={})
    with_cdpath = protect_paths.self_protection_guard(
        ["/p/s.json"], [], "/q/st", env={"CDPATH": "/"}
    )
    assert plain(Execution.create("Bash", {"command": command}, cwd="/w")) is None  # /w/q/*
    assert with_cdpath(Execution.create("Bash", {"command": command}, cwd="/w")) is not None
    absolute = "cd /w/q && rm -rf *"  # CDPATH is not used for these
    assert with_cdpath(Execution.create("Bash", {"command": absolute}, cwd="/w")) is None


def test_a_cd_with_no_directory_goes_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "st").mkdir()
    (tmp_path / "st" / "x").touch()
    monkeypatch.setenv("HOME", str(tmp_path))
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], str(tmp_path / "st"), env={})
    verdicts.denied(
        guard(Execution.create("Bash", {"command": "cd && rm -rf *"}, cwd="/w")),
        "ccbridge self-protection: `rm -rf *` names *, inside ccbridge's state",
        str(tmp_path / "st"),
    )


def test_a_find_that_deletes_run_by_find_makes_the_outer_find_a_writer() -> None:
    command = "find /p -execdir sh -c 'find . -delete' ';'"  # `.`: each directory found
    assert judged(command, cwd="/w") == (
        "protected path: `find /p -execdir sh -c find . -delete ;` may write to /p, which matches "
        "protected '/p/d/e/f'"
    )


def test_after_a_cd_a_leading_double_star_alone_names_no_directory() -> None:
    guard = protect_paths.protected_paths_guard(["**/.claude/s.json"])
    execution = Execution.create("Bash", {"command": "cd $X && rm -rf build"}, cwd="/w")
    assert guard(execution) is None
    held = Execution.create("Bash", {"command": "cd $X && rm -rf a/.claude"}, cwd="/w")
    assert guard(held) is not None


@pytest.mark.parametrize("target", ["./x", "../x", ".", ".."])
def test_cdpath_is_not_used_for_a_target_that_starts_from_here(target: str) -> None:
    """`cd ./x`, `cd ../x`, `cd .` and `cd ..` never look in CDPATH: where they go is known."""
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/q/st", env={"CDPATH": "/"})
    command = f"cd {target} && rm -rf zz*"  # matches nothing in any known directory
    assert guard(Execution.create("Bash", {"command": command}, cwd="/w")) is None


@pytest.mark.parametrize(
    ("glob", "absolute"),
    [("/nonexistent/zz*", True), ("~/nonexistent/zz*", True), ("~nosuchuser/*", False)],
)
def test_after_an_unknown_cd_an_absolute_glob_is_judged_as_it_is(glob: str, absolute: bool) -> None:
    """`~nosuchuser` is left as written by the shell: a directory relative to where it runs."""
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/q/st", env={})
    command = f"cd $X && rm -rf {glob}"
    judged_here = guard(Execution.create("Bash", {"command": command}, cwd="/w"))
    assert (judged_here is None) is absolute


def test_after_an_unknown_cd_the_directory_holding_the_state_is_reached() -> None:
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/q/st", env={})
    assert guard(Execution.create("Bash", {"command": "cd $X && rm -rf q"}, cwd="/w")) == (
        "ccbridge self-protection: `rm -rf q` may write to q, which matches protected '/q/st'"
    )


def test_after_an_unknown_cd_an_absolute_glob_is_expanded(tmp_path: Path) -> None:
    (tmp_path / "p" / "d" / "e").mkdir(parents=True)
    guard = protect_paths.protected_paths_guard([str(tmp_path / "p" / "d" / "e" / "f")])
    command = f"cd $X && rm -rf {tmp_path}/p/d*"  # d* is d, above the protected file
    verdicts.denied(
        guard(Execution.create("Bash", {"command": command}, cwd="/w")),
        f"protected path: `rm -rf {tmp_path}/p/d*` may write to",
        str(tmp_path / "p" / "d" / "e" / "f"),
    )


@pytest.mark.parametrize(
    ("command", "reached"),
    [
        ("cd $X && rm -rf q", True),  # holds the state
        ("cd $X && rm -rf st", True),  # is it
        ("cd $X && rm -rf st/x", True),  # inside it
        ("cd $X && rm -rf r", False),
    ],
)
def test_after_an_unknown_cd_a_protected_directory_and_what_holds_it_are_reached(
    command: str, reached: bool
) -> None:
    guard = protect_paths.protected_paths_guard(["/q/st/"])  # a directory: all below it
    assert (guard(Execution.create("Bash", {"command": command}, cwd="/w")) is not None) is reached


def test_a_crowded_glob_reaches_only_as_deep_as_the_command_goes(tmp_path: Path) -> None:
    """Past the matches looked at, any match may be above a protected path, but only as far
    as the command reaches: `cp x DIR/*` puts x into the last match, one level below it."""
    crowded = tmp_path / "crowded"
    crowded.mkdir()
    for i in range(protected_entries._MAX_GLOB_MATCHES + 10):
        (crowded / f"f{i}").write_bytes(b"")

    def judged_here(protected: Path, command: str = f"cp x {crowded}/*") -> str | Ask | None:
        guard = protect_paths.protected_paths_guard([str(protected)])
        return verdicts.plain(guard(Execution.create("Bash", {"command": command}, cwd="/w")))

    assert judged_here(crowded / "a" / "deep") is not None  # x may land as a/deep
    assert judged_here(crowded / "a" / "b" / "deep") is None  # two levels below a match
    redirected = f"echo x > {crowded}/*"  # a redirection writes the match itself, no deeper
    assert judged_here(crowded / "zz", redirected) is not None
    assert judged_here(crowded / "a" / "deep", redirected) is None


def test_a_cd_to_where_the_call_runs_leaves_pwd_known() -> None:
    """`cd /p` from /p goes nowhere: $PWD is still where the command runs, so the write is
    judged by the path it names, not refused as unknown."""
    guard = protect_paths.self_protection_guard(["/p/s.json"], [], "/q/st", env={})
    command = "cd /p && cp x $PWD/s.json"
    assert guard(Execution.create("Bash", {"command": command}, cwd="/p")) == (
        "ccbridge self-protection: `cp x $PWD/s.json` may write to /p/s.json, which matches "
        "protected '/p/s.json'"
    )
