"""Self-protection judges a line once per value its variables may take (`for f in a b`), and
a question raised by one value never hides a certain denial raised by another: through the
real executable, in a git project whose settings file is tracked (so `git pull` may rewrite it,
a question: what it brings is only known when it runs)."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.support.sandbox import Outcome, Sandbox, pre_tool_use

GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


@pytest.fixture(scope="module")
def tracked(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    sandbox = Sandbox(tmp_path_factory.mktemp("variants"))
    sandbox.write_json(sandbox.settings, {"permissions": {"allow": []}})
    for step in (["init", "-q"], ["add", "."], ["commit", "-qm", "start"]):
        subprocess.run([*GIT, *step], cwd=sandbox.project, check=True, env=sandbox.env)
    return sandbox


def call(sandbox: Sandbox, command: str) -> Outcome:
    event = pre_tool_use(command, cwd=str(sandbox.project))
    env = {"CLAUDE_PROJECT_DIR": str(sandbox.project)}
    return sandbox.call_executable(None, json.dumps(event).encode(), env=env)


def test_the_question_alone_is_asked(tracked: Sandbox) -> None:
    asked = call(tracked, "for f in aa; do git pull; tee .claude/$f < /dev/null; done")
    assert asked.exit_code == 0 and asked.decision == "ask", asked.stdout
    assert "`git pull` may rewrite" in asked.reason and "only known when it runs" in asked.reason


@pytest.mark.parametrize(
    "command",
    [
        "for f in aa settings.json; do git pull; tee .claude/$f < /dev/null; done",
        "for f in settings.json aa; do git pull; tee .claude/$f < /dev/null; done",
        "f=aa; git pull; tee .claude/$f < /dev/null; f=settings.json; tee .claude/$f < /dev/null",
    ],
)
def test_a_question_never_hides_a_certain_denial_across_variants(
    tracked: Sandbox, command: str
) -> None:
    denied = call(tracked, command)
    assert denied.decision == "deny", denied.stdout
    assert denied.reason.startswith("[self-protection] "), denied.reason
    assert "`tee .claude/settings.json` may write to .claude/settings.json" in denied.reason
