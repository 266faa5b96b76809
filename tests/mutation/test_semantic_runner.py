"""The semantic-mutant runner itself, judged on a small tree of its own (a `bridge` package, its
`ccbridge` executable and two tests) so that no edit of the project's code or of the mutant list
changes what these tests see: a snippet that is gone is an error naming the mutant and the file,
a mutant seen only by the spawned `ccbridge` is caught, a harmless one survives, and the working
tree is left as it was. The project's own list is checked for what the runner needs before it
judges anything (each mutant's module and tests exist); whether each snippet is still in the code
is the runner's to say when it runs (an error naming the mutant, exit 2), not the suite's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.mutation import semantic
from tests.mutation.mutants import MUTANTS
from tests.mutation.semantic import ROOT, Mutant, MutantError

TREE = {
    "bin/ccbridge": "#!python\nimport bridge.__main__  # noqa: F401\n",
    "bridge/__init__.py": "",
    "bridge/__main__.py": "import sys\n\nfrom bridge.main import main\n\nsys.exit(main())\n",
    "bridge/main.py": (
        "def main() -> int:\n"
        "    # Nothing to do: a comment a harmless mutant changes\n"
        "    return 0\n\n\n"
        "def double(n: int) -> int:\n"
        "    return n * 2\n"
    ),
    "tests/__init__.py": "",
    "tests/test_spawned.py": (
        "import subprocess, sys\nfrom pathlib import Path\n\n\n"
        "def test_the_executable_exits_0() -> None:\n"
        "    ccbridge = Path(sys.executable).with_name('ccbridge')\n"
        "    assert subprocess.run([str(ccbridge)], check=False).returncode == 0\n"
    ),
    "tests/test_double.py": (
        "from bridge.main import double\n\n\n"
        "def test_double() -> None:\n    assert double(3) == 6\n"
    ),
}
SPAWNED = "tests/test_spawned.py::test_the_executable_exits_0"
DOUBLE = "tests/test_double.py::test_double"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name, text in TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / "bin" / "ccbridge").chmod(0o755)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "."], cwd=root, check=True)
    return root


def test_every_mutant_names_a_module_and_tests_that_exist() -> None:
    assert len(MUTANTS) >= 12
    names = [mutant.name for mutant in MUTANTS]
    assert len(set(names)) == len(names)
    for mutant in MUTANTS:
        assert (ROOT / mutant.module).is_file(), mutant.name
        assert mutant.tests and mutant.find != mutant.replace, mutant.name
        for test in mutant.tests:
            assert (ROOT / test.split("::", 1)[0]).is_file(), (mutant.name, test)


def gone(find: str = "no such text anywhere") -> Mutant:
    return Mutant("gone", "bridge/main.py", find, "x", (DOUBLE,), "nothing")


def test_a_snippet_that_is_gone_is_an_error_naming_mutant_and_file(tree: Path) -> None:
    with pytest.raises(MutantError, match=r"^mutant gone: snippet not found in bridge/main\.py$"):
        semantic.judge([gone()], root=tree)  # refused before any scratch copy is made


def test_a_snippet_found_twice_is_an_error(tree: Path) -> None:
    with pytest.raises(MutantError, match=r"^mutant gone: snippet found 2 times in bridge/main"):
        semantic.check([gone("    return ")], root=tree)


def test_tests_that_do_not_exist_are_an_error(tree: Path) -> None:
    mutant = Mutant("lost", "bridge/main.py", "n * 2", "n * 3", ("tests/nope.py",), "")
    with pytest.raises(MutantError, match=r"^mutant lost: no test file tests/nope\.py$"):
        semantic.check([mutant], root=tree)


def test_a_caught_and_a_surviving_mutant_are_reported_as_such(tree: Path) -> None:
    spawned_only = Mutant(  # bridge/__main__.py runs only in the `ccbridge` processes
        "exits-1", "bridge/__main__.py", "sys.exit(main())", "sys.exit(1)", (SPAWNED,), "all"
    )
    in_process = Mutant("triples", "bridge/main.py", "n * 2", "n * 3", (DOUBLE,), "doubling")
    harmless = Mutant(
        "comment",
        "bridge/main.py",
        "    # Nothing to do:",
        "    # (a changed comment) Nothing to do:",
        (DOUBLE, SPAWNED),
        "nothing",
    )
    before = {name: (tree / name).read_bytes() for name in TREE}
    results = semantic.judge([spawned_only, in_process, harmless], root=tree)
    assert [(r.mutant.name, r.outcome, r.caught_by) for r in results] == [
        ("exits-1", "caught", SPAWNED),
        ("triples", "caught", DOUBLE),
        ("comment", "survived", ""),
    ]
    assert {name: (tree / name).read_bytes() for name in TREE} == before
    assert semantic.exit_status(results) == 1
    assert semantic.exit_status(results[:2]) == 0
    shown = semantic.table(results)
    assert "exits-1" in shown and "2 / 3 caught (67%)" in shown


def test_tests_failing_without_any_mutant_are_an_error(tree: Path) -> None:
    (tree / "bridge" / "main.py").write_text(TREE["bridge/main.py"].replace("n * 2", "n + 2"))
    mutant = Mutant("any", "bridge/main.py", "return 0", "return 1", (DOUBLE,), "")
    with pytest.raises(MutantError, match="the tests fail without any mutant"):
        semantic.judge([mutant], root=tree)
