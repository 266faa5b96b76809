"""The DSH tool pipeline: pure, host-agnostic, no I/O.

Stations, in order: pre-execute waterfall, approval, deny-only guards, execute waterfall,
post-execute waterfall, observers. Hosts (the Claude Code bridge, or a Python program running
its own tools) supply listeners as plain callables and get decisions and results back as values.
The execute stage, which only a host running its own tools needs, is
bridge.pipeline.execute_stage.
"""

from bridge.pipeline.decisions import (
    Accept,
    Allow,
    Ask,
    Block,
    Deny,
    PostDecision,
    PreDecision,
    ReplaceContent,
    ReplaceValue,
)
from bridge.pipeline.execution import Execution, ToolResult, freeze, thaw
from bridge.pipeline.stations import (
    Approval,
    ApprovalChannel,
    Guard,
    Named,
    Observer,
    Outcome,
    PostListener,
    PreListener,
    Stations,
    Step,
    decide,
    denial_result,
    finish,
)

__all__ = [
    "Accept",
    "Allow",
    "Approval",
    "ApprovalChannel",
    "Ask",
    "Block",
    "Deny",
    "Execution",
    "Guard",
    "Named",
    "Observer",
    "Outcome",
    "PostDecision",
    "PostListener",
    "PreDecision",
    "PreListener",
    "ReplaceContent",
    "ReplaceValue",
    "Stations",
    "Step",
    "ToolResult",
    "decide",
    "denial_result",
    "finish",
    "freeze",
    "thaw",
]
