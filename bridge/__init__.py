"""ccbridge: Claude Code hooks run through the DSH tool pipeline."""

__version__ = "0.1.0"

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import ModuleType

    from _typeshed.importlib import MetaPathFinderProtocol


class CcbridgeError(ValueError):
    """A problem ccbridge explains in its own words (a bad config, event, matcher, fixture, an
    install it cannot make): the command line prints the message and exits 1, once, in
    bridge.cli; a hook call turns it into its fail-closed answer. A ValueError, as each of them
    was one before."""


def own_modules_finder() -> "MetaPathFinderProtocol":
    """A finder for ccbridge's own modules, to go ahead of Python's (`python -m bridge` and the
    `ccbridge` command put it there first thing: find_own_modules_directly).

    Python's path finder builds and tries several file names in Python code for every import,
    and a hook call imports some thirty modules of this package: finding them that way was
    about 1.5 M of the 55 M instructions of a Bash call (valgrind, docs/performance.md). This
    finder lists each of the package's directories once and takes `NAME/__init__.py`, else
    `NAME.py`, as Python does, loading it with Python's own loader. Anything else (a compiled
    extension of that name, which Python would prefer; a namespace directory; a name with no
    such file; any error) goes on to Python's finders, so what loads is always the file Python
    itself would load."""
    import os
    from _frozen_importlib import ModuleSpec  # importlib.machinery's, without its import
    from _frozen_importlib_external import SourceFileLoader
    from _imp import extension_suffixes

    extensions = extension_suffixes()

    sep = os.sep
    listed: dict[str, frozenset[str]] = {}

    def spec(name: str, file: str, package: "str | None") -> "ModuleSpec":
        made = ModuleSpec(name, SourceFileLoader(name, file), origin=file)
        made.has_location = True  # sets __file__ and __cached__, as Python's own finder does
        if package is not None:
            made.submodule_search_locations = [package]
        return made

    def find(name: str, directory: str) -> "ModuleSpec | None":
        names = listed.get(directory)
        if names is None:
            names = listed[directory] = frozenset(os.listdir(directory))
        leaf = name.rpartition(".")[2]
        if leaf in names:  # a directory: a package if it has an __init__.py
            init = directory + sep + leaf + sep + "__init__.py"
            return spec(name, init, directory + sep + leaf) if os.path.isfile(init) else None
        if leaf + ".py" not in names or any(leaf + s in names for s in extensions):
            return None
        return spec(name, directory + sep + leaf + ".py", None)

    class OwnModules:
        @staticmethod
        def find_spec(
            name: str, path: "Sequence[str] | None" = None, target: "ModuleType | None" = None
        ) -> "ModuleSpec | None":
            if path is None or len(path) != 1 or not name.startswith("bridge."):
                return None  # a top-level name, or a package split over directories
            try:
                return find(name, path[0])
            except Exception:  # never fail an import Python's own finders could make
                return None

    return OwnModules()


def find_own_modules_directly() -> None:
    """Put `own_modules_finder()` ahead of Python's finders, once. A Python whose import
    internals it cannot build on keeps its own finders: slower, never broken."""
    import sys

    if any(type(finder).__name__ == "OwnModules" for finder in sys.meta_path):
        return
    try:
        finder = own_modules_finder()
    except (ImportError, AttributeError):
        return
    sys.meta_path.insert(0, finder)
