"""Redaction compiles a pattern only when a text may match it: the result must not change."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.audit import record, redact
from bridge.audit.record import redacted
from bridge.audit.redact import MASK, redact_text
from bridge.wire import jsonio


def eager(text: str) -> str:
    """Every pattern applied, none skipped: what redaction means."""
    with (
        patch.object(redact, "_may_match", lambda *_args: True),
        patch.object(redact, "_ANY_PIECE", ("",)),  # "" is in every text: no quick reject
    ):
        return redact_text(text)


FRAGMENTS = [
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "sk-",
    "pk-",
    "rk-",
    "ghp_",
    "github_pat_",
    "xoxb-",
    "AKIA",
    "ASIA",
    "eyJ",
    ".",
    "Bearer ",
    "BASIC ",
    "https://",
    "postgres://",
    "u:p@",
    "password",
    "PassWd",
    "SECRET",
    "token",
    "api_key",
    "Access-Key",
    "privatekey",
    "credential",
    "=",
    ": ",
    "'",
    '"',
    " ",
    "\n",
    "abcdefghijklmnopqrstuvwxyz0123",
    "ABCDEFGHIJKLMNOP",
    "\u0131",
    "\u017f",
    "\u212a",
    "\u0130",
    "pa\u017f\u017fword",
    "\u00e9",
]
texts = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=8), max_size=12).map("".join)


@settings(max_examples=2000, deadline=None)
@given(texts)
def test_lazy_redaction_equals_applying_every_pattern(text: str) -> None:
    assert redact_text(text) == eager(text)


def test_secrets_are_still_masked() -> None:
    text = "Authorization: Bearer abcdefghijklmnop and password=hunter22 and ghp_" + "a" * 24
    assert redact_text(text) == eager(text)
    assert "hunter22" not in redact_text(text)
    assert "abcdefghijklmnop" not in redact_text(text)


def test_folded_letters_are_matched_as_re_matches_them() -> None:
    text = "pa\u017f\u017fword=hunter22"  # long s: `re` matches it as s without regard to case
    assert redact_text(text) == eager(text) == f"pa\u017f\u017fword={MASK}"


# JSON-like records of those texts, keys included: the whole-record test must agree with
# redacting string by string.
records = st.recursive(
    st.none() | st.booleans() | st.integers() | texts,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=1000, deadline=None)
@given(st.dictionaries(texts, records, max_size=6))
def test_a_record_judged_whole_is_redacted_as_string_by_string(record: dict[str, object]) -> None:
    assert jsonio.dumps(redacted(record)) == jsonio.dumps(redact.redact(record))


def test_no_piece_holds_what_json_escapes() -> None:
    """What makes one test of a record's JSON text stand for a test of each of its strings."""
    pieces = {piece for _source, rule_pieces in redact._ALL_RULES for piece in rule_pieces}
    assert pieces and all(
        '"' not in piece and "\\" not in piece and all(ord(c) >= 0x20 for c in piece)
        for piece in pieces
    )
    assert all(jsonio.dumps(piece).decode() == f'"{piece}"' for piece in pieces)


def test_the_pieces_a_record_is_judged_by_are_the_rules_own() -> None:
    assert record.PIECES_ANY_CASE == redact._ANY_PIECE
    assert record.PIECES_EXACT == redact._ANY_EXACT


def test_a_record_with_a_secret_is_still_masked() -> None:
    record = {"tool_input": {"command": "curl -H 'Authorization: Bearer abcdefghijklmnop' x"}}
    assert "abcdefghijklmnop" not in jsonio.dumps(redacted(record)).decode()
    assert redacted({"password": "hunter22"}) == {"password": MASK}
