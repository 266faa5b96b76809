"""The package's shape: no import circles (imports inside functions included) and one name per
thing (no two modules or packages of bridge/ share a name, so a command's work, its click
wrapper and the package it reports on are never three files called `audit.py`)."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.support import REPO

PACKAGE = REPO / "bridge"


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package under `root`, by dotted name (a package by its own name)."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join(parts)] = path
    return names


def _type_checking_only(node: ast.If) -> bool:
    """`if TYPE_CHECKING:` blocks never run: their imports are for the type checker."""
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run, at any depth (functions and methods included)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking_only(node):
            for other in node.orelse:
                yield from _imports(ast.Module(body=[other], type_ignores=[]))
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        yield from _imports(node)


def _resolve(node: ast.ImportFrom, module: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the package's modules it imports: `from a import b` names module a.b when b is
    one, else a."""
    modules = module_names(root)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                source = _resolve(node, name, is_package)
                targets = [
                    f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                    for alias in node.names
                ]
            graph[name].update(target for target in targets if target in modules)
        graph[name].discard(name)
    return graph


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_module_of_bridge_is_in_an_import_circle() -> None:
    assert circles(import_graph(PACKAGE)) == []


def test_function_local_imports_count(tmp_path: Path) -> None:
    """The control: a circle closed by an import inside a function is found; one closed only
    under TYPE_CHECKING is not."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("def f():\n    from pkg.a import x\n")
    (package / "c.py").write_text("from pkg.d import y\n")
    (package / "d.py").write_text("TYPE_CHECKING = False\nif TYPE_CHECKING:\n    import pkg.c\n")
    (package / "e.py").write_text("from . import f\n")
    (package / "f.py").write_text("class K:\n    def m(self):\n        import pkg.e\n")
    assert circles(import_graph(package)) == [["pkg.a", "pkg.b"], ["pkg.e", "pkg.f"]]


def test_a_command_has_one_name() -> None:
    """`bridge/install.py` beside `bridge/cli/install.py` left a reader guessing which one does
    the work: the work lives in bridge/commands/, the click wrappers in bridge/cli/."""
    top = {path.stem for path in PACKAGE.glob("*.py")} - {"__init__", "__main__"}
    cli = {path.stem for path in (PACKAGE / "cli").glob("*.py")} - {"__init__"}
    assert cli, "no click modules found"
    assert top & cli == set()


def names_used_twice(root: Path) -> dict[str, list[str]]:
    """Module and package names (the last part of a dotted name) held by more than one place."""
    places: dict[str, list[str]] = {}
    for dotted in module_names(root):
        if dotted != root.name and not dotted.endswith(".__main__"):
            places.setdefault(dotted.rsplit(".", 1)[-1], []).append(dotted)
    return {name: where for name, where in places.items() if len(where) > 1}


def test_no_two_modules_of_the_package_share_a_name() -> None:
    assert names_used_twice(PACKAGE) == {}


def test_names_used_twice_sees_modules_and_packages(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    for relative in (
        "__init__.py",
        "audit/__init__.py",
        "cli/__init__.py",
        "cli/audit.py",
        "cli/check.py",
        "commands/__init__.py",
        "commands/check.py",
        "solo.py",
    ):
        (package / relative).parent.mkdir(parents=True, exist_ok=True)
        (package / relative).write_text("")
    assert names_used_twice(package) == {
        "audit": ["pkg.audit", "pkg.cli.audit"],
        "check": ["pkg.cli.check", "pkg.commands.check"],
    }


def classes_named_twice(root: Path) -> dict[str, list[str]]:
    """Public top-level class names defined by more than one module of the package."""
    places: dict[str, list[str]] = {}
    for dotted, path in module_names(root).items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                places.setdefault(node.name, []).append(dotted)
    return {name: where for name, where in places.items() if len(where) > 1}


def test_no_two_classes_of_the_package_share_a_name() -> None:
    """`Target` was the files an install edits and the paths a write names; `Outcome` a golden
    case's result and a pipeline's: a reader who meets one name looks up one thing."""
    assert classes_named_twice(PACKAGE) == {}


def test_classes_named_twice_sees_a_class_in_two_modules(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("class Solo:\n    pass\n")
    (package / "a.py").write_text("class Target:\n    pass\nclass _Own:\n    pass\n")
    (package / "b.py").write_text("class Target:\n    pass\nclass _Own:\n    pass\n")
    assert classes_named_twice(package) == {"Target": ["pkg.a", "pkg.b"]}


HOSTS = PACKAGE / "wire" / "hosts"


def constants_named_twice(root: Path, protocol: Path | None = None) -> dict[str, list[str]]:
    """Public module-level UPPER_CASE names assigned by more than one module; the modules under
    `protocol` (one interface, a module per agent: each its NAME, TOOLS, ...) are left out."""
    places: dict[str, list[str]] = {}
    for dotted, path in module_names(root).items():
        if protocol is not None and path.is_relative_to(protocol):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                name = target.id if isinstance(target, ast.Name) else ""
                if name.isupper() and not name.startswith("_") and name != "TYPE_CHECKING":
                    places.setdefault(name, []).append(dotted)
    return {name: where for name, where in places.items() if len(where) > 1}


def test_no_two_modules_define_a_constant_of_one_name() -> None:
    """`MAX_DEPTH` was 32 in one module and 200 in another, `SKILL_SHELL` the same string in
    three: one value is defined once and imported, two values have two names."""
    assert constants_named_twice(PACKAGE, HOSTS) == {}


def test_constants_named_twice_sees_two_modules_and_leaves_the_protocol(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "hosts").mkdir(parents=True)
    for relative in ("__init__.py", "hosts/__init__.py"):
        (package / relative).write_text("")
    (package / "a.py").write_text("MAX_DEPTH = 32\n_OWN = 1\nTYPE_CHECKING = False\n")
    (package / "b.py").write_text("MAX_DEPTH: int = 200\n_OWN = 2\nTYPE_CHECKING = False\n")
    (package / "hosts" / "one.py").write_text("NAME = 'one'\n")
    (package / "hosts" / "two.py").write_text("NAME = 'two'\n")
    assert constants_named_twice(package, package / "hosts") == {"MAX_DEPTH": ["pkg.a", "pkg.b"]}


def test_host_means_an_agent_ccbridge_speaks_for() -> None:
    """A host is an agent whose wire format ccbridge speaks (bridge/wire/hosts/); what the engine
    takes from its machine and the code that changes goal state have names of their own."""
    strays = []
    for dotted, path in module_names(PACKAGE).items():
        if path.is_relative_to(HOSTS):
            continue
        if "host" in dotted.rsplit(".", 1)[-1].lower():
            strays.append(dotted)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and "host" in node.name.lower():
                strays.append(f"{dotted}.{node.name}")
    assert strays == []


OUTSIDE_CLI = sorted(
    p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file() and p.name != "cli"
)


@pytest.mark.parametrize("package", OUTSIDE_CLI)
def test_click_is_imported_only_by_the_command_line(package: str) -> None:
    """The click wrappers, and the styling of what they print, are all in bridge/cli/; no other
    package imports click: a command's work returns values, the CLI prints them."""
    for name, path in module_names(PACKAGE / package).items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        clicks = [
            node
            for node in _imports(tree)
            if any(
                (alias.name if isinstance(node, ast.Import) else node.module or "").split(".")[0]
                == "click"
                for alias in node.names
            )
        ]
        decorated = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef)
            and any("click" in ast.unparse(decorator) for decorator in node.decorator_list)
        ]
        assert decorated == [], f"{name} defines a click command: it belongs in bridge.cli"
        assert clicks == [], f"{name} imports click"


def test_every_error_a_command_explains_is_a_ccbridge_error() -> None:
    """One base for the errors ccbridge explains, so bridge.cli maps them to a message and exit 1
    in one place: a public `...Error(ValueError)` of its own is a second, unmapped one."""
    strays = []
    for name, path in module_names(PACKAGE).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {ast.unparse(base) for base in node.bases}
                if "ValueError" in bases and node.name != "CcbridgeError":
                    strays.append(f"{name}.{node.name}")
    assert strays == []


def test_no_module_of_the_package_is_named_as_a_standard_library_module() -> None:
    """`bridge/subhooks/select.py` beside `import select`: a reader (and a careless relative
    import) takes one for the other."""
    import sys

    shadows = sorted(
        name
        for name, path in module_names(PACKAGE).items()
        if path.stem in sys.stdlib_module_names
        or (path.name == "__init__.py" and path.parent.name in sys.stdlib_module_names)
    )
    assert shadows == []


LONGEST_FUNCTION = 70  # lines from its `def`, its docstring included (a click command's options
# are its decorators, read as a table, not counted)


def test_no_function_is_longer_than_a_screen() -> None:
    """A function a reader can hold at once: past this, split it by what its parts do."""
    long = []
    for name, path in module_names(PACKAGE).items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > LONGEST_FUNCTION:
                    long.append(f"{name}.{node.name}: {size} lines")
    assert long == []
