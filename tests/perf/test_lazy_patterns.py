"""The policies' plain-string code agrees with the regular expressions it replaced, and an
everyday command line compiles no pattern (so it never imports `re` for the policies)."""

from __future__ import annotations

import fnmatch
import json
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.shell import fnmatchcase, is_assignment, runners

HOOKS = Path(__file__).resolve().parents[2] / "hooks"
GLOB_TEXT = st.text(alphabet="ab.*?[]!-\n/", max_size=8)


@given(GLOB_TEXT, GLOB_TEXT)
@settings(max_examples=2000)
def test_fnmatchcase_is_the_standard_one(name: str, pattern: str) -> None:
    assert fnmatchcase(name, pattern) == fnmatch.fnmatchcase(name, pattern)


ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")


@given(st.text(alphabet="aZ_09[]+=x $é٣", max_size=10))
@settings(max_examples=2000)
def test_assignment_test_is_the_regex(text: str) -> None:
    assert is_assignment(text) == bool(ASSIGNMENT.match(text))


@given(st.text(alphabet="py.3٣\n/", max_size=10))
@settings(max_examples=2000)
def test_unversioned_is_the_regex(name: str) -> None:
    assert runners._unversioned(name) == re.sub(r"[\d.]+$", "", name)


# Without variables: a command that sets or uses one compiles the substitution patterns.
EVERYDAY = [
    "git status --short",
    "ls -la ~/x > out.txt",
    "FOO=1 make -j4 test",
    "cd /tmp && python3 -m pytest -q tests/x.py 2>&1 | tail -5",
    "cat a{b,c} | grep -n x",
    "VERBOSE=1 npm run build -- --watch=false",
    "rm -rf build dist *.egg-info",
    "find . -name '*.pyc' -delete && chmod -R u+w build",
]

PROBE = """
import json, sys
from bridge import shell
compiled = []
original = shell.Lazy.compiled.fget
def compiling(self):
    if self._compiled is None:
        compiled.append(self.source)
    return original(self)
shell.Lazy.compiled = property(compiling)
from bridge.pipeline import Execution
from bridge.guards.protect.protect_paths import self_protection_guard
sys.path.insert(0, sys.argv[2])
from dangerous_shell import guard as dangerous
from protect_paths import guard as protect
own = self_protection_guard(state_dir="/tmp/state")
for command in json.loads(sys.argv[1]):
    execution = Execution.create("Bash", {"command": command}, cwd="/tmp")
    for guard in (own, dangerous, protect):
        guard(execution)
print(json.dumps(compiled))
"""


def test_everyday_commands_compile_no_pattern() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(EVERYDAY), str(HOOKS)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
