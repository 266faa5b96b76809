"""Every file, module, test and option the docs name in backticks exists: a reader who follows
`tests/x.py::test_y`, `bridge/wire/event.py`, `guards/protect/writes.py` or `bridge.wire.answer`
finds it. The pages are those of tests/test_doc_links.py; pyproject's mutmut list is held too."""

import ast
import fnmatch
import re
import tomllib
from functools import cache
from pathlib import Path

import pytest

from tests.support import REPO
from tests.test_doc_links import PAGES

SPAN = re.compile(r"`([^`\n]+)`")
TOP = ("bridge/", "tests/", "bench/", "scripts/", "bin/", "fixtures/", "hooks/", "docs/", ".ci/")
PACKAGES = tuple(f"{p.name}/" for p in (REPO / "bridge").iterdir() if (p / "__init__.py").is_file())
PATH = re.compile(r"[A-Za-z0-9_.*/-]+(?:::[A-Za-z0-9_]+)?")
TEST_NAME = re.compile(r"test_[a-z0-9_]+")
DOTTED = re.compile(r"(?<![\w.-])bridge(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


# Files a page tells the reader to make, or names in the reader's own project: not ours.
EXAMPLES = frozenset(
    {
        "fixtures/my-case",  # CONTRIBUTING: the case a reader adds
        "bridge/policies/no_force_push.py",  # README: the reader's policies/no_force_push.py
        "hooks/json.py",  # a module a hook directory could be shadowed by
        "hooks/guard.py",  # docs/hook-code.md: a reader's hook script
        "hooks/hooks.json",  # a plugin's hooks file
        "bridge/goal/change",  # the goal log's event kind `goal/change`, not a path
    }
)


def _placeholder(token: str) -> bool:
    """`bridge/cli/NAME_command.py`, `tests/<package>/`: a pattern for the reader, not a file."""
    return bool(re.search(r"[A-Z]{3,}|<|\{", token))


def repository_paths(span: str) -> list[str]:
    """The repository paths a backticked span names (`tests/x.py::test_y` kept whole), each
    relative to the root: a package-relative module (`guards/protect/writes.py`) under bridge/."""
    found = []
    for token in span.split():
        token = token.strip("(),;:'\"").removesuffix(".")
        if _placeholder(token) or not PATH.fullmatch(token):
            continue
        if token.startswith(TOP):
            found.append(token)
        elif token.startswith(PACKAGES) and "/" in token:
            found.append(f"bridge/{token}")
    return found


def test_the_reader_finds_paths_tests_and_package_relative_modules() -> None:
    span = "tests/a.py::test_b, guards/protect/writes.py and bridge/cli/NAME_command.py"
    assert repository_paths(span) == ["tests/a.py::test_b", "bridge/guards/protect/writes.py"]
    assert repository_paths("sudo rm -rf / and ~/.claude/settings.json") == []


@cache
def defined_tests() -> frozenset[str]:
    names = set()
    for path in (REPO / "tests").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(node.name)
        names.add(path.stem)  # a test module is named as its file: `test_hot_path_imports`
    return frozenset(names)


def _exists(path: str) -> bool:
    """A file, a directory, a module named without `.py`, or a glob that matches something."""
    if "*" in path:
        return any(fnmatch.fnmatch(str(p.relative_to(REPO)), path) for p in REPO.rglob("*"))
    target = REPO / path.rstrip("/")
    return target.exists() or target.with_suffix(".py").is_file()


def problems(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    wrong = []
    for span in SPAN.findall(text):
        for path in repository_paths(span):
            file, _, test = path.partition("::")
            if file in EXAMPLES:
                continue
            if not _exists(file):
                wrong.append(f"{path}: no such file")
            elif test and f"def {test}(" not in (REPO / file).read_text(encoding="utf-8"):
                wrong.append(f"{path}: no such test in {file}")
        for name in [] if repository_paths(span) else TEST_NAME.findall(span):
            if not _placeholder(span) and name not in defined_tests():
                wrong.append(f"{name}: no test of that name under tests/")
        for dotted in DOTTED.findall(span):
            if not resolves(dotted):
                wrong.append(f"{dotted}: no such module or attribute")
    return wrong


def resolves(dotted: str) -> bool:
    """`bridge.wire.answer` (a module) or `bridge.wire.READ_ONLY_TOOLS` (a name a module
    defines or imports), read from the source: nothing is imported."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = REPO.joinpath(*parts[:cut])
        source = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if source.is_file():
            rest = parts[cut:]
            return not rest or (len(rest) == 1 and rest[0] in top_level_names(source))
    return False


@cache
def top_level_names(source: Path) -> frozenset[str]:
    names = set()
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_every_file_module_and_test_a_page_names_exists(page: Path) -> None:
    assert problems(page) == []


def test_a_missing_test_and_a_missing_module_are_found(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        "`tests/test_layout.py::test_no_such_test`, `pipeline/record`, `test_nothing_here_xyz`, "
        "`bridge.wire.no_such_name`, `bridge/wire/event.py`, `tests/test_layout.py`"
    )
    assert problems(page) == [
        "tests/test_layout.py::test_no_such_test: no such test in tests/test_layout.py",
        "bridge/pipeline/record: no such file",
        "test_nothing_here_xyz: no test of that name under tests/",
        "bridge.wire.no_such_name: no such module or attribute",
    ]


def test_every_path_mutmut_is_told_to_mutate_exists() -> None:
    settings = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    for pattern in settings["tool"]["mutmut"]["only_mutate"]:
        assert _exists(pattern), f"pyproject's mutmut list names {pattern}, which matches no file"
