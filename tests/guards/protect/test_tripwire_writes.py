"""What self-protection's tripwire counts as written by a command it does not know to only
read: the files tar, zip and `cmake -E` write (read from their syntax), the readers that write
only with an option, and every other word of an unknown command. Checked against the programs
where this machine has them: running the line changes exactly the files counted."""

from __future__ import annotations

import os
import posixpath
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from bridge.guards.protect.tripwire import (
    git_verb,
    loose_words,
    read_only,
    tar_archive,
    written_by_model,
)
from bridge.shell.syntax import Script, SimpleCommand, parse


def command_of(line: str) -> SimpleCommand:
    script = parse(line)
    assert isinstance(script, Script), line
    return next(script.commands())


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A folder with a file `f`, a JSON file, a folder `d`, and archives `a.tar` and `a.zip`."""
    work = tmp_path / "work"
    (work / "d").mkdir(parents=True)
    (work / "f").write_text("b\na\na\n")
    (work / "j.json").write_text('{"a": 1}')
    with tarfile.open(work / "a.tar", "w") as archive:
        archive.add(work / "f", arcname="f")
    with zipfile.ZipFile(work / "a.zip", "w") as archive:
        archive.write(work / "f", arcname="f")
    return work


def _state(work: Path) -> dict[str, tuple[int, int]]:
    return {
        path.relative_to(work).parts[0]: (path.stat().st_size, path.stat().st_mtime_ns)
        for path in sorted(work.rglob("*"))
        if path.is_file() or not any(path.iterdir())
    }


def changed_by(line: str, work: Path) -> set[str]:
    """The top-level names under `work` that running `line` there creates, changes or removes."""
    before = _state(work)
    env = {"HOME": str(work.parent), "PATH": os.environ["PATH"], "LC_ALL": "C"}
    subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True, timeout=60)
    after = _state(work)
    return {name for name in before.keys() | after.keys() if before.get(name) != after.get(name)}


def _skip_without(program: str) -> None:
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")


# -- tar, zip and `cmake -E`: what they write is read from their syntax, the rest is read

MODELED = [
    ("tar", "tar czf x.tgz f", {"x.tgz"}),
    ("tar", "tar cvf x.tar f", {"x.tar"}),
    ("tar", "tar -czf x.tgz f", {"x.tgz"}),
    ("tar", "tar -cvzf x.tgz f d", {"x.tgz"}),
    ("tar", "tar -c -f x.tar f", {"x.tar"}),
    ("tar", "tar -c -v -f x.tar f", {"x.tar"}),
    ("tar", "tar -cfx.tar f", {"x.tar"}),
    ("tar", "tar --file=x.tar -c f", {"x.tar"}),
    ("tar", "tar --file x.tar -c f", {"x.tar"}),
    ("tar", "tar -rf a.tar f", {"a.tar"}),
    ("zip", "zip -q out.zip f", {"out.zip"}),
    ("zip", "zip -q -r out.zip d f", {"out.zip"}),
    ("zip", "zip -q a.zip j.json", {"a.zip"}),
    ("zip", "zip -q -O new.zip a.zip j.json", {"new.zip"}),
    ("zip", "zip -q --output-file new.zip a.zip j.json", {"new.zip"}),
    ("cmake", "cmake -E copy f g", {"g"}),
    ("cmake", "cmake -E copy f j.json d", {"d"}),
    ("cmake", "cmake -E copy_if_different f g", {"g"}),
    ("cmake", "cmake -E create_symlink f link", {"link"}),
    ("cmake", "cmake -E touch g h", {"g", "h"}),
    ("cmake", "cmake -E make_directory e", {"e"}),
    ("cmake", "cmake -E rm -f f", {"f"}),
    ("cmake", "cmake -E echo f", set()),
    ("cmake", "cmake -E cat f", set()),
    ("cmake", "cmake -E sha256sum f", set()),
    ("cmake", "cmake -E compare_files f j.json", set()),
]


@pytest.mark.parametrize(("program", "line", "written"), MODELED, ids=[m[1] for m in MODELED])
def test_what_a_modeled_program_writes_is_what_it_changes(
    work: Path, program: str, line: str, written: set[str]
) -> None:
    counted = {posixpath.normpath(text) for text, _ in written_by_model(command_of(line))}
    assert counted == written
    _skip_without(program)
    assert changed_by(line, work) == written


@pytest.mark.parametrize(
    ("line", "archive"),
    [
        ("tar --file=a=b.tar -c f", "a=b.tar"),
        ("tar cfz x.tgz f", "x.tgz"),  # old style: each letter's value in turn
        ("tar -cfz x.tgz f", "z"),  # `-f` takes the rest of its word
        ("tar -c --files-from=list -f x.tar", "x.tar"),
        ("tar -x -v --gzip -f a.tgz", "a.tgz"),
        ("tar -cf x.tar", "x.tar"),
        ("tar -c --file", None),
        ("tar -c -f", None),
    ],
)
def test_the_archive_is_the_value_of_f(line: str, archive: str | None) -> None:
    assert tar_archive(command_of(line)) == archive


def test_a_computed_word_a_modeled_program_writes_is_marked_dynamic() -> None:
    assert written_by_model(command_of('zip "$OUT" f')) == [("$OUT", True)]
    assert written_by_model(command_of('cmake -E touch "$F"')) == [("$F", True)]
    assert written_by_model(command_of("tar -cf - f")) == [("-", False)]
    assert written_by_model(command_of("tar -c f")) == []
    assert written_by_model(command_of("tar -cf")) == []


# -- readers that write only with an option (or a second operand)

READERS = [
    # (line, only reads, safe to run here)
    ("sort f", True, True),
    ("sort -r -u f", True, True),
    ("sort -o out f", False, True),
    ("sort --output=out f", False, True),
    ("sort --compress-program=gzip f", False, False),
    ("uniq f", True, True),
    ("uniq -c f", True, True),
    ("uniq f out", False, True),
    ("uniq - out < f", False, True),
    ("xxd f", True, True),
    ("xxd -g 1 f", True, True),
    ("xxd f out", False, True),
    ("xxd -r f", False, False),  # `xxd -r` patches an output file in place
    ("python3 -m json.tool j.json", True, True),
    ("python3 -mjson.tool j.json", True, True),
    ("python3 -m json.tool --indent 2 j.json", True, True),
    ("python3 -m json.tool --sort-keys j.json", True, True),
    ("python3 -m json.tool j.json out.json", False, True),
    ("python3 -m json.tool --indent 2 j.json out.json", False, True),
    ("python3 -m json.tool - out.json < j.json", False, True),
    ("python3 -m pip list", False, False),
    ("tree -L 2", True, False),
    ("tree -o out", False, False),
    ("less -o log f", False, False),
    ("rg --pre ./filter x", False, False),
    ("file f", True, True),
    ("file -C -m magic", False, False),
    ("date", True, True),
    ("date -s tomorrow", False, False),  # never run: it would set the clock
    ("hostname -F f", False, False),
    ("history -w f", False, False),
    ("git log", True, False),
    ("git -C . --no-pager log -1", True, False),
    ("git --namespace n log", True, False),
    ("git log --output=out", False, False),
    ("git diff --ext-diff", False, False),
    ("git show --textconv HEAD", False, False),
    ("git -c core.pager=less log", False, False),
    ("git config --get user.name", False, False),
    ("git rebase main", False, False),
    ("git", False, False),
    ("cat f", False, False),  # not a reader this judges: the quick allow-list's
]


@pytest.mark.parametrize(("line", "reads", "runnable"), READERS, ids=[r[0] for r in READERS])
def test_a_reader_writes_only_with_its_writing_option(
    work: Path, line: str, reads: bool, runnable: bool
) -> None:
    assert read_only(command_of(line)) is reads
    if runnable:
        _skip_without(line.split()[0])
        assert (changed_by(line, work) == set()) is reads, line


# -- any other command: each word may be a file it writes


@pytest.mark.parametrize(
    ("line", "whole", "words"),
    [
        ("foo a b", True, ["a", "b"]),
        ("foo a b", False, []),
        ("foo -o=out x", True, ["out", "x"]),
        ("foo --log-file=out", True, ["out"]),
        ("foo -v --verbose", True, []),
        ("foo -oout.txt", True, ["out.txt", "ut.txt", "t.txt", ".txt", "xt", "t"]),
        ("foo -ab", True, []),
        ("foo a=b/c", True, ["a=b/c", "b/c"]),
        ("foo --opt=a=b", True, ["a=b"]),
        ("foo x=a=b", True, ["x=a=b", "a=b"]),
        # a word holding spaces: its path-like pieces (`.output` too), the option among them
        ("foo '.output out.db' '-x y'", True, [".output", "out.db", ".output out.db"]),
        ("foo '.output out.db'", False, [".output", "out.db"]),
        ("foo 'w! ~/x y'", False, ["~/x"]),
        ("foo $'a\\tb/c'", False, ["b/c"]),
        ("foo <<< 'write .claude/x'", False, [".claude/x"]),
        ("foo <<EOF\nw a/b\nEOF", False, ["a/b"]),
        ("foo <<EOF\nplain words\nEOF", False, []),
    ],
)
def test_the_words_an_unknown_command_may_write(line: str, whole: bool, words: list[str]) -> None:
    assert [text for text, _ in loose_words(command_of(line), whole)] == words


def test_a_computed_word_is_marked_dynamic_and_code_words_are_left_to_the_code_judgement() -> None:
    found = list(loose_words(command_of('foo "$A" b -o="$C"'), True))
    assert found == [("$A", True), ("b", False), ("$C", True)]
    assert list(loose_words(command_of("foo 'w a/b' c"), True, ("w a/b",))) == [("c", False)]
    # a here-document bash expands: its words holding an expansion are dynamic
    heredoc = command_of("foo <<EOF\n$D/x `pwd`/y plain/z ${E}/w\nEOF")
    expected = [("$D/x", True), ("/y", False), ("plain/z", False), ("${E}/w", True)]
    assert list(loose_words(heredoc, False)) == expected
    quoted = command_of("foo <<'EOF'\n$D/x\nEOF")
    assert list(loose_words(quoted, False)) == [("$D/x", False)]


@pytest.mark.parametrize(
    ("line", "verb"),
    [
        ("git log", "log"),
        ("git -C d -c a=b --git-dir g --work-tree w --namespace n status", "status"),
        ("git --no-pager -p diff", "diff"),
        ("git --bare --literal-pathspecs show", "show"),
        ("git -- log", "log"),
        ("git", ""),
        ("git -C d", ""),
    ],
)
def test_the_verb_of_a_git_command_is_found_past_its_options(line: str, verb: str) -> None:
    assert git_verb(command_of(line).argv) == verb
