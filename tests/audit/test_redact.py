"""Redaction of the audit (bridge.audit.redact), in-process: what is masked (each expected text
written out by hand), how keys and nesting are treated, and which patterns a text makes it
compile (only those whose literal pieces the text holds)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.audit import redact as redact_module
from bridge.audit.redact import MASK, redact, redact_text

AWS_ID = "AKIAIOSFODNN7EXAMPLE"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # 40 characters


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Authorization: BEARER abcdefghijklmnop", f"Authorization: {MASK}"),  # any case
        ("key sk-abcdefghijklmnopqrst end", f"key {MASK} end"),
        ("key rk-abcdefghijklmnopqrst end", f"key {MASK} end"),  # any one of the pieces
        ("caf\u00e9 password=hunter22", f"caf\u00e9 password={MASK}"),  # not ASCII
        ("caf\u00e9 PASSWORD=hunter22", f"caf\u00e9 PASSWORD={MASK}"),
        ('x password="hunter22" y', f'x password="{MASK}" y'),  # the quotes are kept
        ("x password='hunter22' y", f"x password='{MASK}' y"),
        ("x password=hunter22 y", f"x password={MASK} y"),
        (f"id {AWS_ID} secret {AWS_SECRET}", f"id {MASK} secret {MASK}"),
        # 40 characters alone are no secret: only beside an AWS key id.
        (f"a commit {AWS_SECRET}", f"a commit {AWS_SECRET}"),
        (f"AKIA is a prefix {AWS_SECRET}", f"AKIA is a prefix {AWS_SECRET}"),
        ("nothing to hide here", "nothing to hide here"),
        ("", ""),
    ],
)
def test_what_is_masked(text: str, expected: str) -> None:
    assert redact_text(text) == expected


def test_two_secrets_of_different_kinds_are_both_masked() -> None:
    text = "token: abcdefgh and ghp_" + "a" * 24 + " and Basic QWxhZGRpbjpvcGVu"
    assert redact_text(text) == f"token: {MASK} and {MASK} and {MASK}"


class Compiled:
    """Records the patterns redaction compiles."""

    def __init__(self) -> None:
        self.sources: list[str] = []
        self.real = redact_module._compiled

    def __call__(self, source: str) -> Any:
        self.sources.append(source)
        return self.real(source)


@pytest.fixture(autouse=True)
def fresh_key_judgements(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test judges its keys itself: a judgement kept from an earlier test (or, in
    mutation testing, from the clean run the test process was forked from) would hide it."""
    monkeypatch.setattr(redact_module, "_KEYS", {})


@pytest.fixture
def compiled(monkeypatch: pytest.MonkeyPatch) -> Compiled:
    recorder = Compiled()
    monkeypatch.setattr(redact_module, "_compiled", recorder)
    return recorder


@pytest.mark.parametrize("text", ["an ordinary command: ls -la /tmp", "", "Sk_ not a key", "aki"])
def test_a_text_without_any_piece_compiles_nothing(compiled: Compiled, text: str) -> None:
    assert redact_text(text) == text
    assert redact({text: text}) == {text: text}  # nor as a key, which may name a secret
    assert compiled.sources == []


NAMED_SECRET_RULES = [source for source, pieces in redact_module._NAMED if "token" in pieces]


def test_a_text_compiles_only_the_rules_whose_pieces_it_holds(compiled: Compiled) -> None:
    assert len(NAMED_SECRET_RULES) == 3  # --flag=value, key=value, --flag value
    assert redact_text("the token is here") == "the token is here"
    assert compiled.sources == NAMED_SECRET_RULES


def test_pieces_inside_a_masked_secret_call_for_no_more_rules(compiled: Compiled) -> None:
    """Once `sk-tokentoken…` is masked, the `token` inside it is gone: the rules for named
    secrets are not compiled for it."""
    assert redact_text("sk-tokentokentoken12345 x") == f"{MASK} x"
    assert len(compiled.sources) == 1 and compiled.sources[0].startswith(r"\b(?:sk|pk|rk)-")


def test_a_non_ascii_text_is_matched_against_every_case_insensitive_rule(
    compiled: Compiled,
) -> None:
    # `re` matches the long s as an s: the piece "pass" is not in the text, the secret is.
    assert redact_text("pa\u017f\u017fword=hunter22 \u00e9") == f"pa\u017f\u017fword={MASK} \u00e9"
    every = [
        source
        for source, _pieces in (*redact_module._RULES, *redact_module._NAMED)
        if source.startswith("(?i)")
    ]
    # bearer/basic, URLs, three named-secret forms, Authorization headers, Azure account keys,
    # keytool's passwords, `configure set`
    assert len(every) == 9
    assert [source for source in compiled.sources if source.startswith("(?i)")] == every


# --- redact: JSON-like data ---------------------------------------------------------------------


def test_values_under_a_secret_key_are_masked_whole() -> None:
    data = {
        "password": "anything",
        "PASSWORD": "anything",
        "my_api_key": ["a", 1, {"x": "y"}],
        "\u017fecret": "x",  # long s, a secret to `re`'s case folding
        "token": {3: "x", "k": None},
        "note": "fine",
        "password hint": "use the usual",  # a secret's name is one word
    }
    assert redact(data) == {
        "password": MASK,
        "PASSWORD": MASK,
        "my_api_key": [MASK, 1, {"x": MASK}],
        "\u017fecret": MASK,
        "token": {3: MASK, "k": None},
        "note": "fine",
        "password hint": "use the usual",
    }


def test_keys_are_redacted_and_kept_apart() -> None:
    keys = ["ghp_" + letter * 24 for letter in "abc"]
    assert redact({key: n for n, key in enumerate(keys)} | {"plain": 3}) == {
        MASK: 0,
        MASK + "'": 1,
        MASK + "''": 2,
        "plain": 3,
    }


def test_other_keys_and_values_pass_through() -> None:
    assert redact(
        {1: "password=hunter22", None: 2.5, "n": [True, None, ("a", "token=abcdef")]}
    ) == {
        1: f"password={MASK}",
        None: 2.5,
        "n": [True, None, ["a", f"token={MASK}"]],
    }
    assert redact(("a", "b")) == ["a", "b"]
    assert redact(7) == 7 and redact(None) is None
    assert redact("secret: abcdefgh") == f"secret: {MASK}"
    assert redact("plain", whole=True) == MASK


def test_a_key_judged_once_is_judged_alike_every_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys repeat once per sub-hook in a record, so their judgement is kept: a kept judgement
    masks as the first one did, for the key and for what is under it."""
    monkeypatch.setattr(redact_module, "_KEYS", {})
    record = {"password": "hunter2", "sk-abcdefghijklmnopqrstuv": "x", "name": "plain"}
    first, again = redact(record), redact(record)
    assert first == again == {"password": MASK, MASK: "x", "name": "plain"}
    assert set(redact_module._KEYS) == set(record)


def test_the_kept_key_judgements_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact_module, "_KEYS", {})
    monkeypatch.setattr(redact_module, "_KEYS_KEPT", 3)
    masked = redact({f"key{n}": "v" for n in range(5)} | {"token": "t"})
    assert len(redact_module._KEYS) == 3
    assert masked == {**{f"key{n}": "v" for n in range(5)}, "token": MASK}  # judged all the same


def test_a_kept_key_judgement_is_used_not_made_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact_module, "_KEYS", {})
    calls: list[str] = []
    judge = redact_module._names_secret

    def counted(key: str) -> bool:
        calls.append(key)
        return judge(key)

    monkeypatch.setattr(redact_module, "_names_secret", counted)
    records = [{"name": "a", "password": "b"}, {"name": "c", "password": "d"}]
    assert redact(records) == [{"name": "a", "password": MASK}, {"name": "c", "password": MASK}]
    # Once, for two records; `name` holds no rule's piece, so it is judged without the pattern.
    assert calls == ["password"]


@pytest.mark.parametrize(
    ("key", "secret"),
    [
        ("PASSWORD", True),  # names are judged whatever their case
        ("Api-Key", True),
        ("GITHUB_TOKEN", True),
        ("passenger", False),  # holds `pass`, but as part of another word
        ("the token count", False),  # a name with spaces is no variable name
    ],
)
def test_what_a_key_name_says_decides_whether_its_value_is_masked(key: str, secret: bool) -> None:
    assert redact({key: "value"}) == {key: MASK if secret else "value"}


@given(st.text(max_size=40) | st.sampled_from(["PassWord", "api-KEY", "name", "x_token_y", "İd"]))
def test_a_key_is_judged_as_the_patterns_would(key: str) -> None:
    """The shortcut for a key holding no rule's piece gives what the patterns give."""
    redact_module._KEYS.pop(key, None)
    assert redact_module._judged_key(key) == (
        redact_module.redact_text(key),
        redact_module._names_secret(key),
    )
