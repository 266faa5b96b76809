"""Native policies for the config-layer law (tests/robustness/test_config_layers.py)."""

from __future__ import annotations

from collections.abc import Callable

from bridge.pipeline import Ask, Execution, PreDecision


def deny_rm(execution: Execution) -> str | None:
    command = str(execution.input.get("command", ""))
    return "no rm here" if command.startswith("rm ") else None


def deny_writes(execution: Execution) -> str | None:
    return "no writes here" if execution.tool_name == "Write" else None


def ask_curl(execution: Execution, next_: Callable[[], PreDecision]) -> PreDecision:
    if "curl" in str(execution.input.get("command", "")):
        return Ask("curl: sure?")
    return next_()


def pass_on(execution: Execution, next_: Callable[[], PreDecision]) -> PreDecision:
    return next_()
