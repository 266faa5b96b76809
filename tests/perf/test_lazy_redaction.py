"""Redaction compiles a pattern only when a text may match it: the result must not change."""

from __future__ import annotations

from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge.audit import redact
from bridge.audit.redact import MASK, redact_text


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
