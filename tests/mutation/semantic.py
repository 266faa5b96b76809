"""The project's own semantic mutants: hand-written bugs a developer could really make, each one
breaking a behaviour the README promises. mutmut's mutants are syntactic (an operator, a
constant); these are the ones a review plants by hand, kept so that every run checks them again.

Each mutant is a module path, an exact snippet of its source and the snippet's replacement: no
line numbers, so code moving around does not break it, and a snippet that is gone (or no longer
unique) is an error naming the mutant and the file, never a silent skip. Each is applied alone
to a scratch copy of the tree and judged by the tests named with it: caught when one of them
fails, survived when all pass.

The scratch copy comes with a scratch environment, so that everything the tests run imports the
mutated copy: the test process itself, the `ccbridge` executable the tests find beside the
interpreter (and `python -m bridge`, and the watchdog's sweep), whatever environment a test
gives those processes. It is a virtual environment whose site-packages links to every package
of the running interpreter's but ccbridge's own install, plus a path file naming the copy.

    scripts/semantic-mutants              every mutant; exit 1 if one survives, 2 on an error
    scripts/semantic-mutants NAME ...     only these
    scripts/semantic-mutants --list       names and the behaviour each one breaks
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import site
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Per mutant: the tests rarely take seconds; a mutant that makes one hang is caught by this.
TIMEOUT = 600.0


@dataclass(frozen=True)
class Mutant:
    name: str
    module: str  # relative to the root of the tree
    find: str  # exact text, present exactly once in the module
    replace: str
    tests: tuple[str, ...]  # pytest paths or node ids, relative to the root, run in this order
    breaks: str  # the promise it breaks, in a few words


@dataclass(frozen=True)
class Result:
    mutant: Mutant
    outcome: str  # "caught", "survived" or "error"
    caught_by: str = ""  # the first failing test, or what went wrong
    seconds: float = 0.0


class MutantError(ValueError):
    """A mutant that cannot be applied or judged; the message names it."""


def mutated(mutant: Mutant, root: Path) -> str:
    """The mutant's module text with the bug planted."""
    path = root / mutant.module
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise MutantError(f"mutant {mutant.name}: cannot read {mutant.module}: {error}") from None
    count = text.count(mutant.find)
    if count == 0:
        raise MutantError(f"mutant {mutant.name}: snippet not found in {mutant.module}")
    if count > 1:
        raise MutantError(
            f"mutant {mutant.name}: snippet found {count} times in {mutant.module}, not once"
        )
    return text.replace(mutant.find, mutant.replace)


def check(mutants: Sequence[Mutant], root: Path = ROOT) -> None:
    """Every mutant applies and names tests that exist, before any is run."""
    names = [mutant.name for mutant in mutants]
    for name in {name for name in names if names.count(name) > 1}:
        raise MutantError(f"mutant {name}: the name is used twice")
    for mutant in mutants:
        if mutated(mutant, root) == (root / mutant.module).read_text(encoding="utf-8"):
            raise MutantError(f"mutant {mutant.name}: the replacement changes nothing")
        if not mutant.tests:
            raise MutantError(f"mutant {mutant.name}: no tests to judge it")
        for test in mutant.tests:
            if not (root / test.split("::", 1)[0]).is_file():
                raise MutantError(f"mutant {mutant.name}: no test file {test.split('::')[0]}")


def _tracked_files(root: Path) -> list[str]:
    """The tree as it is now, uncommitted changes included (what `git ls-files` lists)."""
    done = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    )
    return [name for name in done.stdout.decode().split("\0") if name]


def _copy_tree(root: Path, into: Path) -> None:
    for name in _tracked_files(root):
        source = root / name
        if not source.is_file():  # deleted but not yet staged
            continue
        target = into / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)


def _is_ccbridge_install(name: str) -> bool:
    """An entry of site-packages that would import ccbridge from somewhere else."""
    return name == "bridge" or (name.startswith("__editable__") and "ccbridge" in name)


def _make_environment(tree: Path, into: Path) -> Path:
    """A virtual environment whose `bridge` is the tree's; its interpreter's path."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    bin_dir = into / "bin"
    packages = into / "lib" / f"python{version}" / "site-packages"
    bin_dir.mkdir(parents=True)
    packages.mkdir(parents=True)
    (into / "pyvenv.cfg").write_text(
        f"home = {base.parent}\ninclude-system-site-packages = false\n"
        f"version = {'.'.join(map(str, sys.version_info[:3]))}\n"
    )
    python = bin_dir / "python3"
    python.symlink_to(base)
    (bin_dir / "python").symlink_to("python3")
    for directory in dict.fromkeys([*site.getsitepackages(), sysconfig.get_path("purelib")]):
        for entry in sorted(os.listdir(directory)) if os.path.isdir(directory) else ():
            if not _is_ccbridge_install(entry) and not (packages / entry).exists():
                (packages / entry).symlink_to(Path(directory) / entry)
    (packages / "ccbridge-scratch.pth").write_text(f"{tree}\n")
    executable = (tree / "bin" / "ccbridge").read_text(encoding="utf-8")
    script = bin_dir / "ccbridge"
    script.write_text(f"#!{python}\n" + executable.split("\n", 1)[1], encoding="utf-8")
    script.chmod(0o755)
    return python


@dataclass
class Scratch:
    """A copy of the tree and the environment that imports it."""

    tree: Path
    python: Path

    def env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV")
        }
        env["VIRTUAL_ENV"] = str(self.python.parent.parent)
        env["PATH"] = f"{self.python.parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}"
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # a mutant's bytecode must not outlive it
        return env

    def pytest(self, tests: Sequence[str], timeout: float) -> tuple[int | None, str]:
        """The tests' exit status (None on timeout) and output."""
        argv = [str(self.python), "-m", "pytest", "-x", "-q", "-rfE", "-p", "no:cacheprovider"]
        process = subprocess.Popen(
            [*argv, *tests],
            cwd=self.tree,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a timeout kills the tests and all they started
        )
        try:
            out, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, _ = process.communicate()
            return None, out.decode("utf-8", "replace")
        return process.returncode, out.decode("utf-8", "replace")


@contextmanager
def scratch(root: Path = ROOT) -> Iterator[Scratch]:
    with tempfile.TemporaryDirectory(prefix="ccbridge-semantic-") as directory:
        tree = Path(directory) / "tree"
        _copy_tree(root, tree)
        yield Scratch(tree, _make_environment(tree, Path(directory) / "venv"))


def _failed(output: str) -> str:
    found = re.search(r"^(?:FAILED|ERROR) (\S+)", output, re.MULTILINE)
    return found.group(1) if found else "(a failing test; see its output)"


def judge(
    mutants: Sequence[Mutant],
    root: Path = ROOT,
    timeout: float = TIMEOUT,
    progress: Callable[[Result], None] = lambda _result: None,
) -> list[Result]:
    """Each mutant applied alone to one scratch copy, restored after its tests ran."""
    check(mutants, root)
    results = []
    with scratch(root) as where:
        every = list(dict.fromkeys(test for mutant in mutants for test in mutant.tests))
        status, output = where.pytest(every, timeout)
        if status != 0:
            raise MutantError(
                "the tests fail without any mutant, so no mutant can be judged:\n" + output[-3000:]
            )
        for mutant in mutants:
            path = where.tree / mutant.module
            original = path.read_bytes()
            started = time.monotonic()
            try:
                path.write_text(mutated(mutant, where.tree), encoding="utf-8")
                status, output = where.pytest(mutant.tests, timeout)
            finally:
                path.write_bytes(original)
            seconds = time.monotonic() - started
            if status is None:
                result = Result(mutant, "caught", f"(timed out after {timeout:.0f} s)", seconds)
            elif status == 1:  # tests ran and some failed
                result = Result(mutant, "caught", _failed(output), seconds)
            elif status == 0:
                result = Result(mutant, "survived", "", seconds)
            else:  # interrupted, a usage error, no tests collected
                tail = output.strip().splitlines()[-1:] or [""]
                result = Result(mutant, "error", f"pytest exit {status}: {tail[0]}", seconds)
            progress(result)
            results.append(result)
    return results


def table(results: Sequence[Result]) -> str:
    width = max([len(result.mutant.name) for result in results] + [6])
    lines = [f"{'mutant':{width}}  {'result':8}  {'s':>5}  caught by", "-" * (width + 40)]
    for result in results:
        lines.append(
            f"{result.mutant.name:{width}}  {result.outcome:8}  {result.seconds:5.1f}  "
            f"{result.caught_by}"
        )
    caught = sum(result.outcome == "caught" for result in results)
    share = 100 * caught / len(results) if results else 100.0
    lines.append(f"\n{caught} / {len(results)} caught ({share:.0f}%)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None, mutants: Sequence[Mutant] | None = None) -> int:
    from tests.mutation.mutants import MUTANTS

    chosen_from = list(MUTANTS if mutants is None else mutants)
    parser = argparse.ArgumentParser(prog="scripts/semantic-mutants", description=__doc__)
    parser.add_argument("names", nargs="*", help="only these mutants (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per mutant")
    options = parser.parse_args(argv)
    by_name = {mutant.name: mutant for mutant in chosen_from}
    unknown = [name for name in options.names if name not in by_name]
    if unknown:
        parser.error(f"no mutant named {', '.join(unknown)} (see --list)")
    chosen = [by_name[name] for name in options.names] or chosen_from
    if options.list:
        for mutant in chosen:
            print(f"{mutant.name}: {mutant.breaks} ({mutant.module})")
        return 0
    started = time.monotonic()
    try:
        results = judge(
            chosen,
            timeout=options.timeout,
            progress=lambda result: print(
                f"  {result.mutant.name}: {result.outcome}", file=sys.stderr, flush=True
            ),
        )
    except MutantError as error:
        print(f"semantic-mutants: {error}", file=sys.stderr)
        return 2
    print(table(results))
    print(f"{time.monotonic() - started:.0f} s")
    return exit_status(results)


def exit_status(results: Sequence[Result]) -> int:
    """0 when every mutant was caught, 1 when one survived, 2 when one could not be judged."""
    if any(result.outcome == "error" for result in results):
        return 2
    return 1 if any(result.outcome == "survived" for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
