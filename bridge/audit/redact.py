"""Keeping obvious secrets out of the audit: tokens, keys and passwords are masked."""

from __future__ import annotations

import re
from typing import Any

_PATTERNS = [
    re.compile(
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)", re.DOTALL
    ),
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}"),  # OpenAI/Anthropic/Stripe style keys
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"),  # GitHub tokens
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),  # Slack
    re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),  # AWS access key ids
    re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),  # JWTs
    re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{12,}"),
    re.compile(r"(?i)\b(?:https?|ftp|postgres(?:ql)?|mysql|redis|mongodb)://[^\s:/@]+:[^\s@/]+@"),
]
# key=value / key: value where the key names a secret; the value is masked, the key kept.
_ASSIGNMENT = re.compile(
    r"(?i)([A-Za-z0-9_\-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|"
    r"private[_-]?key|credential)[A-Za-z0-9_\-]*[\"']?\s*[:=]\s*[\"']?)([^\s\"',;&|]{4,})"
)
MASK = "[REDACTED]"


def redact_text(text: str) -> str:
    for pattern in _PATTERNS:
        text = pattern.sub(MASK, text)
    return _ASSIGNMENT.sub(lambda found: found.group(1) + MASK, text)


def redact(value: Any) -> Any:
    """A copy of JSON-like data with every string redacted."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {key: redact(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    return value
