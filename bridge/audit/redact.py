"""Keeping obvious secrets out of the audit: tokens, keys and passwords are masked."""

from __future__ import annotations

import re
from typing import Any

# Each rule: a pattern, its flags, and literal pieces one of which every match contains. A pattern
# is compiled only when a text holds one of its pieces: compiling them all costs 1.5 ms, a tenth
# of a hook call, and ordinary audit records hold none. Pieces of a case-insensitive pattern are
# looked for in the lower-cased text when it is ASCII; `re` folds some other letters to ASCII ones
# (dotless i to i, long s to s), so a non-ASCII text is always matched against such a pattern.
_RULES: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    (
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z)",
        re.DOTALL,
        ("-----BEGIN ",),
    ),
    (r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}", 0, ("sk-", "pk-", "rk-")),  # OpenAI/Anthropic/Stripe
    (r"\bgh[pousr]_[A-Za-z0-9]{20,}", 0, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),  # GitHub
    (r"\bgithub_pat_[A-Za-z0-9_]{20,}", 0, ("github_pat_",)),
    (r"\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}", 0, ("sk_", "pk_", "rk_")),  # Stripe
    (r"\bglpat-[A-Za-z0-9_\-]{20,}", 0, ("glpat-",)),  # GitLab
    (r"\bnpm_[A-Za-z0-9]{36}\b", 0, ("npm_",)),
    (r"\bAIza[A-Za-z0-9_\-]{35}", 0, ("AIza",)),  # Google API keys
    (r"\bxox[abprs]-[A-Za-z0-9\-]{10,}", 0, ("xox",)),  # Slack
    (r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b", 0, ("AKIA", "ASIA")),  # AWS access key ids
    (r"\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}", 0, ("eyJ",)),  # JWTs
    (r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=\-]{12,}", 0, ("bearer", "basic")),
    (
        r"(?i)\b(?:https?|ftp|postgres(?:ql)?|mysql|redis|mongodb)://[^\s:/@]+:[^\s@/]+@",
        0,
        ("://",),
    ),
)
_SECRET_NAME = (
    r"[A-Za-z0-9_\-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|"
    r"access[_-]?key|private[_-]?key|credential)[A-Za-z0-9_\-]*"
    r"|(?:[A-Za-z0-9\-]*[_-]|(?<![A-Za-z0-9]))pass\b"
)
_SECRET_PIECES = (
    *(f"{stem}{joint}key" for stem in ("api", "access", "private") for joint in ("", "_", "-")),
    "pass",
    "secret",
    "token",
    "credential",
)
_VALUE = r"(?:\"([^\"\n]+)\"|'([^'\n]+)'|([^\s\"',;&|]{4,}))"
# A named secret: the name is kept, the value masked (its quotes kept). key=value, key: value,
# --flag value, and curl's -u user:password.
_NAMED: tuple[tuple[str, tuple[str, ...]], ...] = (
    (rf"(?i)((?:{_SECRET_NAME})[\"']?\s*[:=]\s*){_VALUE}", _SECRET_PIECES),
    (rf"(?i)((?<!\S)--?(?:{_SECRET_NAME})\s+)(?!-){_VALUE}", _SECRET_PIECES),
    (rf"((?<!\S)(?:-u|--user)\s+[\"']?[^\s:\"']+:){_VALUE}", ("-u", "--user")),
)
MASK = "[REDACTED]"


def _may_match(text: str, source: str, pieces: tuple[str, ...]) -> bool:
    if source.startswith("(?i)"):
        if not text.isascii():
            return True
        text = text.lower()
    return any(piece in text for piece in pieces)


def _masked(found: re.Match[str]) -> str:
    quote = '"' if found.group(2) else "'" if found.group(3) else ""
    return f"{found.group(1)}{quote}{MASK}{quote}"


def redact_text(text: str) -> str:
    for source, flags, pieces in _RULES:
        if _may_match(text, source, pieces):
            text = re.compile(source, flags).sub(MASK, text)  # `re` caches the compiled pattern
    for source, pieces in _NAMED:
        if _may_match(text, source, pieces):
            text = re.compile(source).sub(_masked, text)
    return text


def redact(value: Any) -> Any:
    """A copy of JSON-like data with every string redacted."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {key: redact(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [redact(item) for item in value]
    return value
