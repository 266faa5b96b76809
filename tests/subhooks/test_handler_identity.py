"""A handler's identity is everything that says what runs: two exec-form handlers of one
program with different `args` are two handlers, both run; the same program with the same
`args` is one."""

from __future__ import annotations

from pathlib import Path

from bridge.subhooks.selection import select
from bridge.subhooks.spec import HookSpec
from tests.support.sandbox import Sandbox, encode, matching, pre_tool_use


def exec_form(order: int, *args: str) -> HookSpec:
    where = f"cfg:{order}"
    return HookSpec("PreToolUse", "check", where, order, command="check", args=args)


def test_exec_form_handlers_with_other_args_are_other_handlers() -> None:
    hooks = [exec_form(0, "--fast"), exec_form(1, "--slow"), exec_form(2, "--fast")]
    assert [(hook.args, hit) for hook, hit in select(hooks, "Bash", {})] == [
        (("--fast",), True),
        (("--slow",), True),
        (("--fast",), False),  # a copy of the first: it runs once
    ]


def test_both_exec_form_handlers_run(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    runs = tmp_path / "runs"
    script = sandbox.script("note.sh", f'cat >/dev/null\necho "$1" >> {runs}')
    hooks = [{"type": "command", "command": str(script), "args": [word]} for word in "ab"]
    outcome = sandbox.call(sandbox.write_config(matching(hooks)), encode(pre_tool_use()))
    assert (outcome.exit_code, outcome.decision) == (0, "none"), outcome
    assert sorted(runs.read_text().split()) == ["a", "b"]
