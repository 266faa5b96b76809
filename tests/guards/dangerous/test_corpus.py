"""The dangerous_shell guard against a corpus of labelled commands, in both of its forms.

The corpus (`corpus/dangerous.tsv`) holds the peer guards' public test cases and this project's
own evasions and benign look-alikes. Every case goes through the native guard (loaded as the
config loads it); a sample, with every reported case, goes through the plain hook as Claude Code
runs it. Each case is labelled with the guard's answer: deny, ask (what only the run would tell)
or allow. The figures in docs/guards.md and docs/guard-benchmark.md are checked against the
corpus so they cannot drift.
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

from bridge.pipeline import Ask, Execution
from bridge.pipeline.valueclass import Record
from bridge.policies.loader import load_policy
from tests.support import REPO

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus" / "dangerous.tsv"
HOOK = REPO / "hooks" / "dangerous_shell.py"
GUIDES = (REPO / "docs" / "guards.md", REPO / "docs" / "guard-benchmark.md")
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
ASK = [case for case in CASES if case.expect == "ask"]
ALLOW = [case for case in CASES if case.expect == "allow"]


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", HOME)
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", PROJECT)


def test_the_corpus_is_large_labelled_and_sourced() -> None:
    assert len(CASES) >= 300
    assert {case.expect for case in CASES} == {"deny", "ask", "allow"}
    assert len(DENY) >= 100 and len(ALLOW) >= 100 and len(ASK) >= 20
    sources = Counter(case.source for case in CASES)
    assert set(sources) == {"cc-safety-net", "dcg", "reported", "own"}
    assert len({case.command for case in CASES}) == len(CASES), "a command is listed twice"


def _native(command: str) -> str | Ask | None:
    guard = load_policy(f"{HOOK}:guard")
    verdict: str | Ask | None = guard(Execution.create("Bash", {"command": command}, cwd=PROJECT))
    return verdict


def _kind(verdict: str | Ask | None) -> str:
    return "allow" if verdict is None else "ask" if isinstance(verdict, Ask) else "deny"


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c.source}" for i, c in enumerate(CASES)])
def test_the_native_guard_answers_every_case(case: Case) -> None:
    verdict = _native(case.command)
    assert _kind(verdict) == case.expect, (case.command, verdict)


QUOTED_WRAPPERS = ["bash -c {}", "sh -c {}", "eval {}", "sudo bash -c {}", "echo {} | sh"]
PLAIN_WRAPPERS = ["( {} )", "true && {}", "{}; true", "echo $( {} )", "if true; then {}\nfi"]


@given(st.sampled_from(DENY + ASK), st.sampled_from(QUOTED_WRAPPERS + PLAIN_WRAPPERS))
def test_no_wrapping_makes_a_denied_or_asked_case_pass(case: Case, wrapper: str) -> None:
    inner = shlex.quote(case.command) if wrapper in QUOTED_WRAPPERS else case.command
    verdict = _native(wrapper.format(inner))
    assert verdict is not None
    if case.expect == "deny":
        assert _kind(verdict) == "deny"  # wrapping a certain harm never makes it a question


@given(st.sampled_from(CASES))
def test_any_case_given_to_echo_as_data_passes(case: Case) -> None:
    assert _native(f"echo {shlex.quote(case.command)}") is None


def _hook(command: str) -> str | Ask | None:
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
    reason = str(specific["permissionDecisionReason"])
    assert specific["permissionDecision"] in ("deny", "ask")
    return Ask(reason) if specific["permissionDecision"] == "ask" else reason


def test_the_plain_hook_answers_a_sample_as_the_native_guard_does() -> None:
    sample = [c for i, c in enumerate(CASES) if i % 7 == 0 or c.source == "reported"]
    assert {case.expect for case in sample} == {"deny", "ask", "allow"}
    with ThreadPoolExecutor(max_workers=2) as pool:
        answers = list(pool.map(_hook, [case.command for case in sample]))
    for case, verdict in zip(sample, answers, strict=True):
        assert _kind(verdict) == case.expect, (case.command, verdict)
        assert verdict == _native(case.command)


def test_the_guides_state_the_figures_on_this_corpus() -> None:
    denied = sum(_kind(_native(case.command)) == "deny" for case in DENY)
    asked = sum(_kind(_native(case.command)) == "ask" for case in ASK)
    false = sum(_native(case.command) is not None for case in ALLOW)
    for guide in GUIDES:
        text = " ".join(guide.read_text().split())  # a figure may wrap across lines
        assert f"dangerous.tsv`, {len(CASES)} commands" in text, guide
        assert f"denied {denied}/{len(DENY)}" in text, guide
        assert f"asked {asked}/{len(ASK)}" in text, guide
        assert f"false positives {false}/{len(ALLOW)}" in text, guide
