"""The dangerous_shell guard against a corpus of labelled commands, in both of its forms.

The corpus (`corpus/dangerous.tsv`) holds the peer guards' public test cases and this project's
own evasions and benign look-alikes. Every case goes through the native guard (loaded as the
config loads it); a sample, with every reported case, goes through the plain hook as Claude Code
runs it. The figures in docs/guards.md are checked against the corpus so they cannot drift.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.pipeline import Execution
from bridge.pipeline.record import Record
from bridge.policies.loader import load_policy
from tests.support import REPO

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "dangerous.tsv"
HOOK = REPO / "hooks" / "dangerous_shell.py"
GUIDE = REPO / "docs" / "guards.md"
PROJECT, HOME = "/work/project", "/home/dev"
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}


class Case(Record, frozen=True, slots=True):
    expect: str
    source: str
    command: str
    note: str


def _decode(text: str) -> str:
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append(_ESCAPES[text[i + 1]])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _load() -> list[Case]:
    cases = []
    for line in CORPUS.read_text().splitlines():
        if line.startswith("#"):
            continue
        expect, source, *rest = line.split("\t")
        command, note = (*rest, "", "")[:2]
        cases.append(Case(expect, source, _decode(command), note))
    return cases


CASES = _load()
DENY = [case for case in CASES if case.expect == "deny"]
ALLOW = [case for case in CASES if case.expect == "allow"]


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", HOME)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", PROJECT)


def test_the_corpus_is_large_labelled_and_sourced() -> None:
    assert len(CASES) >= 300
    assert {case.expect for case in CASES} == {"deny", "allow"}
    assert len(DENY) >= 100 and len(ALLOW) >= 100
    sources = Counter(case.source for case in CASES)
    assert set(sources) == {"cc-safety-net", "dcg", "reported", "own"}
    assert len({case.command for case in CASES}) == len(CASES), "a command is listed twice"


def _native(command: str) -> str | None:
    guard = load_policy(f"{HOOK}:guard")
    reason: str | None = guard(Execution.create("Bash", {"command": command}, cwd=PROJECT))
    return reason


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c.source}" for i, c in enumerate(CASES)])
def test_the_native_guard_answers_every_case(case: Case) -> None:
    reason = _native(case.command)
    assert (reason is not None) == (case.expect == "deny"), (case.command, reason)


QUOTED_WRAPPERS = ["bash -c {}", "sh -c {}", "eval {}", "sudo bash -c {}", "echo {} | sh"]
PLAIN_WRAPPERS = ["( {} )", "true && {}", "{}; true", "echo $( {} )", "if true; then {}\nfi"]


@given(st.sampled_from(DENY), st.sampled_from(QUOTED_WRAPPERS + PLAIN_WRAPPERS))
def test_no_wrapping_makes_a_denied_case_pass(case: Case, wrapper: str) -> None:
    inner = shlex.quote(case.command) if wrapper in QUOTED_WRAPPERS else case.command
    assert _native(wrapper.format(inner)) is not None


@given(st.sampled_from(CASES))
def test_any_case_given_to_echo_as_data_passes(case: Case) -> None:
    assert _native(f"echo {shlex.quote(case.command)}") is None


def _hook(command: str) -> str | None:
    event = {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": PROJECT,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_01",
    }
    done = subprocess.run(
        [str(HOOK)],
        input=json.dumps(event).encode(),
        capture_output=True,
        env={**os.environ, "HOME": HOME, "CLAUDE_PROJECT_DIR": PROJECT},
        check=False,
        timeout=30,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    if not done.stdout:
        return None
    specific = json.loads(done.stdout)["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    return str(specific["permissionDecisionReason"])


def test_the_plain_hook_answers_a_sample_as_the_native_guard_does() -> None:
    sample = [c for i, c in enumerate(CASES) if i % 7 == 0 or c.source == "reported"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(_hook, [case.command for case in sample]))
    for case, reason in zip(sample, answers, strict=True):
        assert (reason is not None) == (case.expect == "deny"), (case.command, reason)
        assert reason == _native(case.command)


def test_the_guide_states_recall_and_false_positives_on_this_corpus() -> None:
    denied = sum(_native(case.command) is not None for case in DENY)
    false = sum(_native(case.command) is not None for case in ALLOW)
    text = GUIDE.read_text()
    assert f"dangerous.tsv`, {len(CASES)} commands" in text
    assert f"recall {denied}/{len(DENY)}" in text
    assert f"false positives {false}/{len(ALLOW)}" in text
