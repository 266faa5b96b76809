"""The audit record of one invocation, built from the engine's Report."""

import time

from bridge import __version__
from bridge.engine import Report
from bridge.wire import jsonio
from bridge.wire.digest import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from typing import Any


def input_digest(tool_input: "Any") -> str:
    return "sha256:" + sha256_hex(jsonio.dumps(tool_input, sort_keys=True))


def build(
    report: "Report | None",
    *,
    event_name: str,
    started: float,
    error: "str | None",
    final: "dict[str, Any]",
    raw: "dict[str, Any] | None" = None,
    crash_log: "str | None" = None,
) -> "dict[str, Any]":
    raw = raw if raw is not None else (dict(report.event.raw) if report else {})
    record: dict[str, Any] = {
        "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        + f".{int(time.time() % 1 * 1000):03d}Z",
        "event": event_name,
        "session": raw.get("session_id") if isinstance(raw.get("session_id"), str) else None,
        "tool_use_id": raw.get("tool_use_id") if isinstance(raw.get("tool_use_id"), str) else None,
        "tool": raw.get("tool_name") if isinstance(raw.get("tool_name"), str) else None,
        "agent_id": raw.get("agent_id") if isinstance(raw.get("agent_id"), str) else None,
        "version": __version__,
        # `wall`: CC's sandbox keeps the agent from ccbridge's files; `tripwire`: text judgement
        # only. Without a loaded config (an unreadable event, a crash) the lesser is claimed.
        "protection": report.config.protection if report is not None else "tripwire",
        "final": final,
        "duration_ms": round((time.monotonic() - started) * 1000, 1),
    }
    if isinstance(raw.get("prompt_id"), str):  # CC's telemetry keys a prompt by prompt.id
        record["prompt_id"] = raw["prompt_id"]
    if isinstance(raw.get("ccbridge_host"), str):
        record["host"] = raw["ccbridge_host"]  # the agent that called, when it is not CC
    if isinstance(raw.get("tool_input"), dict):
        record["input_digest"] = input_digest(raw["tool_input"])
    if error is not None:
        record["error"] = error
    if crash_log is not None:
        record["crash_log"] = crash_log  # the traceback, which the record does not hold
    if report is not None:
        record["config_digest"] = report.config.digest
        record["config_files"] = list(report.config.files)
        if report.config.warnings:  # loosenings a project or local layer tried: refused
            record["config_warnings"] = list(report.config.warnings)
        record["subhooks"] = [item.to_json() for item in report.subhooks if item.matched]
        record["steps"] = [
            {"station": s.station, "name": s.name, "outcome": s.outcome, "detail": s.detail}
            for s in report.steps
        ]
        folded = report.folded
        if folded is not None:
            record["downgrades"] = list(folded.downgraded)
            record["rewrites"] = [{"hook": r.hook, "diff": r.diff} for r in folded.rewrites]
            record["ignored_failures"] = list(folded.ignored_failures)
        if report.notes:
            record["notes"] = report.notes
    return redacted(record)


# The literal pieces of every redaction rule (bridge.audit.redact): those of its case-insensitive
# rules lower-cased, the others' as they are. A record whose JSON text holds none of them matches
# no rule, and is written without loading the rules at all (tests/perf/test_lazy_redaction.py
# holds these equal to the rules' own).
PIECES_ANY_CASE = (
    "-pw", "://", "_pw", "access-key", "access_key", "accesskey", "accountkey", "api-key",
    "api_key", "apikey", "authorization", "basic", "bearer", "configure", "credential", "keypass",
    "pass", "private-key", "private_key", "privatekey", "secret", "sharedaccesskey", "storepass",
    "token",
)  # fmt: skip
PIECES_EXACT = (
    "-----BEGIN ", "--user", "-U", "-cli", "-u", "7z", "AC", "AIza", "AKIA", "ASIA", "MT", "Mj",
    "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT", "SG.", "SK", "az ", "eyJ", "gho_", "ghp_", "ghr_",
    "ghs_", "ghu_", "github_pat_", "glpat-", "htpasswd", "ldap", "ldappasswd", "login", "mariadb",
    "mysql", "npm_", "openssl", "pk-", "pk_", "pypi-AgE", "rk-", "rk_", "sk-", "sk_", "ssh-keygen",
    "sshpass", "xox", "zip",
)  # fmt: skip


def holds_a_piece(text: str) -> bool:
    """Whether some rule could match in `text`. A JSON text of a value holds each string and key
    of it as it is, save the escapes of `"`, `\\` and control characters, which no piece holds:
    one test of the whole text stands for one of every string in it. A text that is not ASCII
    is always judged by the rules, as `re` folds some other letters to ASCII ones."""
    if not text.isascii():
        return True
    folded = text.lower()
    for piece in PIECES_ANY_CASE:  # a plain loop: see redact._holds
        if piece in folded:
            return True
    for piece in PIECES_EXACT:  # noqa: SIM110
        if piece in text:
            return True
    return False


def redacted(record: "dict[str, Any]") -> "dict[str, Any]":
    """`redact(record)`, as the audit log writes it: a record whose JSON holds no piece of any
    redaction rule (the common case) is judged by one test of that text, not string by string,
    and the rules are loaded only for a record that may hold a secret."""
    try:
        text = jsonio.dumps(record).decode()
    except (TypeError, ValueError):  # not JSON: redaction walks it anyway
        text = None
    if text is not None and not holds_a_piece(text):
        return record
    from bridge.audit.redact import redact

    return redact(record)  # type: ignore[no-any-return]
