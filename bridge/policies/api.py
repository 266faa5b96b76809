"""The native policy API: plain functions, run in-process, failing closed like sub-hooks.

    guard(execution) -> str | None                      deny with a reason, or abstain
    pre_execute(execution, next) -> PreDecision         Allow(), Deny(why), Ask(why) or next()
    post_execute(execution, result, next) -> PostDecision
    observer(execution, result) -> None                 read-only; failures are contained

Reference them from the config as `module:function` or `path/to/file.py:function`.
A ten-line guard:

    from bridge.policies.api import Execution

    def no_force_push(execution: Execution) -> str | None:
        if execution.tool_name != "Bash":
            return None
        command = str(execution.input.get("command", ""))
        if "git push" in command and "--force" in command.split():
            return "force-pushing is not allowed here"
        return None
"""

from bridge.pipeline import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    Execution,
    Guard,
    Observer,
    PostDecision,
    PostListener,
    PreDecision,
    PreListener,
    ReplaceContent,
    ReplaceValue,
    ToolResult,
)

__all__ = [
    "Accept",
    "Allow",
    "Ask",
    "Block",
    "Deny",
    "Execution",
    "Guard",
    "Observer",
    "PostDecision",
    "PostListener",
    "PreDecision",
    "PreListener",
    "ReplaceContent",
    "ReplaceValue",
    "ToolResult",
]
