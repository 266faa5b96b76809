"""Goal errors are values with a stable code that the model, the audit log and tests match on."""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class Code(StrEnum):
    NO_GOAL = "no_goal"
    UNKNOWN_GOAL = "unknown_goal"
    STALE_REVISION = "stale_revision"
    INVALID_TRANSITION = "invalid_transition"
    INVALID_REQUEST = "invalid_request"
    FORBIDDEN = "forbidden"
    NO_TURN = "no_turn"
    NOT_ARMED = "not_armed"
    ROUND_MISMATCH = "round_mismatch"
    ROUND_LIMIT = "round_limit"
    CORRUPT_LOG = "corrupt_log"
    STORAGE_ERROR = "storage_error"
    NOT_RECORDED = "not_recorded"
    EXPIRED = "expired"
    NOT_HOST = "not_host"
    GOALS_OFF = "goals_off"


class GoalError(Exception):
    """A refused goal operation; nothing was written."""

    def __init__(self, code: Code, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code.value, "message": self.message, **self.details}
