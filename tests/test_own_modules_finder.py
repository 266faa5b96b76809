"""bridge.own_modules_finder: the finder a hook call imports ccbridge's modules with finds the
very file Python's own path finder would, and leaves every other case to Python."""

from __future__ import annotations

import importlib.machinery
import subprocess
import sys
from pathlib import Path

import pytest

import bridge
from bridge import own_modules_finder

PACKAGE = Path(bridge.__file__).parent


def module_names() -> list[tuple[str, str]]:
    """(dotted name, directory of its parent package) for every module and package of bridge."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
            if len(parts) == 1:
                continue  # bridge itself: a top-level name, Python's to find
        found.append(
            (".".join(parts), str(path.parent.parent if path.stem == "__init__" else path.parent))
        )
    return found


@pytest.mark.parametrize(("name", "directory"), module_names())
def test_it_finds_the_file_python_finds(name: str, directory: str) -> None:
    ours = own_modules_finder().find_spec(name, [directory], None)
    pythons = importlib.machinery.PathFinder.find_spec(name, [directory])
    assert ours is not None and pythons is not None
    assert (ours.origin, ours.submodule_search_locations, ours.cached) == (
        pythons.origin,
        pythons.submodule_search_locations,
        pythons.cached,
    )
    assert type(ours.loader) is type(pythons.loader)  # Python's own SourceFileLoader


def test_the_package_has_modules_to_check() -> None:
    names = {name for name, _ in module_names()}
    assert {"bridge.engine", "bridge.shell.syntax", "bridge.guards.protect"} <= names
    assert len(names) > 80


def tree(root: Path, files: list[str]) -> str:
    for file in files:
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        (root / file).write_text("")
    return str(root)


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (["x/__init__.py", "x.py"], "x/__init__.py"),  # a package before a module, as Python
        (["x.py"], "x.py"),
        (["x.py", "x.abi3.so"], None),  # Python prefers the extension: Python's to load
        (["x/other.py"], None),  # a namespace directory
        (["x.pyc"], None),  # bytecode without source
        (["y.py"], None),  # no such module
    ],
)
def test_what_it_leaves_to_python(tmp_path: Path, files: list[str], expected: str | None) -> None:
    spec = own_modules_finder().find_spec("bridge.x", [tree(tmp_path, files)], None)
    assert (spec.origin if spec else None) == (str(tmp_path / expected) if expected else None)


def test_other_names_and_odd_paths_are_python_s(tmp_path: Path) -> None:
    finder = own_modules_finder()
    directory = tree(tmp_path, ["x.py"])
    assert finder.find_spec("bridgeish.x", [directory], None) is None
    assert finder.find_spec("bridge", None, None) is None  # top level
    assert finder.find_spec("bridge.x", [directory, directory], None) is None  # split package
    assert finder.find_spec("bridge.x", [str(tmp_path / "gone")], None) is None  # no directory


def isolated_python(code: str) -> subprocess.CompletedProcess[str]:
    """`code` run by this Python with `-I`, as Claude Code starts ccbridge."""
    return subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_ccbridge_command_imports_through_it() -> None:
    """bridge/__main__ (the `ccbridge` command, `python -m bridge`) puts it first, once, before
    ccbridge's modules load; they then come from the files Python would have found."""
    code = (
        "import runpy, sys\n"
        "sys.argv = ['ccbridge', '--version']\n"
        "try:\n"
        "    runpy.run_module('bridge', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "import bridge, bridge.main\n"
        "names = [type(f).__name__ for f in sys.meta_path]\n"
        "spec = sys.meta_path[0].find_spec('bridge.main', bridge.__path__)\n"
        "bridge.find_own_modules_directly()  # again: still one\n"
        "again = [type(f).__name__ for f in sys.meta_path].count('OwnModules')\n"
        "print(names.count('OwnModules'), names[0], spec.origin == bridge.main.__file__, again)\n"
    )
    done = isolated_python(code)
    assert done.stdout.splitlines()[-1] == "1 OwnModules True 1", done.stderr


def test_a_python_it_cannot_build_on_keeps_its_own_finders() -> None:
    """Import internals a future Python renames (here `_imp.extension_suffixes` gone) leave
    Python's finders in charge, and ccbridge's modules still import."""
    code = (
        "import sys, _imp\n"
        "import bridge\n"
        "before = list(sys.meta_path)\n"
        "saved = _imp.extension_suffixes\n"
        "del _imp.extension_suffixes\n"
        "bridge.find_own_modules_directly()\n"
        "_imp.extension_suffixes = saved  # Python's own finders need it back\n"
        "import bridge.engine\n"
        "print(sys.meta_path == before, bridge.engine.__name__)\n"
    )
    done = isolated_python(code)
    assert done.stdout.splitlines()[-1:] == ["True bridge.engine"], done.stderr
