"""Point 7: obvious secrets in tool input never reach the audit, wherever a sub-hook echoes them:
a deny or ask reason, a failure's stderr, or an updatedInput diff that is only recorded."""

from __future__ import annotations

import re
import sys
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bridge.audit.redact import MASK, redact, redact_text
from tests.support.sandbox import Sandbox, encode, examples, matching, pre_tool_use

ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def chars(alphabet: str, low: int, high: int) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=low, max_size=high)


def token(prefix: str, alphabet: str, low: int, high: int | None = None) -> st.SearchStrategy[str]:
    return chars(alphabet, low, high or low + 8).map(lambda body: prefix + body)


tokens = st.one_of(
    token("ghp_", ALNUM, 36),
    token("github_pat_", ALNUM + "_", 22, 60),
    token("AKIA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 16),
    token("sk-ant-api03-", ALNUM + "-_", 40, 90),
    token("sk-proj-", ALNUM, 40),
    token("sk_live_", ALNUM, 24),
    token("xoxb-", ALNUM + "-", 20),
    token("glpat-", ALNUM, 20),
    token("npm_", ALNUM, 36, 36),
    token("AIza", ALNUM + "-_", 35, 35),
    st.tuples(*[chars(ALNUM + "-_", 12, 40)] * 3).map(lambda p: "eyJ" + ".".join(p)),
)
values = chars(ALNUM + "!#%^*+~", 8, 24)
SCHEMES = ["postgres", "amqp", "amqps", "mongodb+srv", "mongodb", "redis", "rediss", "s3", "ldap"]
secret_names = st.sampled_from(
    [
        "password",
        "DB_PASSWORD",
        "PGPASSWORD",
        "db_pass",
        "api_key",
        "API-KEY",
        "SECRET",
        "client_secret",
        "GITHUB_TOKEN",
        "aws_secret_access_key",
        "passphrase",
        "credentials",
    ]
)


@st.composite
def secrets_in_context(draw: st.DrawFn) -> tuple[str, str]:
    """(the secret, a command or file content that holds it) in one of the obvious shapes."""
    kind = draw(
        st.sampled_from(
            [
                "token",
                "bearer",
                "url",
                "pem",
                "assign",
                "quoted",
                "json",
                "flag",
                "curl",
                "mysql",
                "sshpass",
                "aws",
            ]
        )
    )
    if kind == "token":
        secret = draw(tokens)
        shape = draw(
            st.sampled_from(
                [
                    "export KEY={}",
                    "curl -H 'X-Key: {}' https://x",
                    "{}",
                    "echo {} | login",
                    'key = "{}"',
                ]
            )
        )
        return secret, shape.format(secret)
    if kind == "pem":
        secret = draw(chars(ALNUM + "+/", 40, 120))
        label = draw(st.sampled_from(["RSA ", "EC ", "OPENSSH ", ""]))
        return secret, (
            f"-----BEGIN {label}PRIVATE KEY-----\n{secret}\n-----END {label}PRIVATE KEY-----\n"
        )
    if kind == "aws":  # a bare secret access key beside its key id, in either order
        key_id = draw(token("AKIA", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16, 16))
        secret = draw(chars(ALNUM + "/+", 40, 40))
        shape = draw(st.sampled_from(["{} {}", "{},{}", "{}\n{}", "--id {} --key {}"]))
        pair = (key_id, secret) if draw(st.booleans()) else (secret, key_id)
        return secret, f"aws configure import {shape.format(*pair)}"
    # Bearer tokens and URL passwords have their own alphabets; the rest may hold punctuation.
    secret = draw(chars(ALNUM, 8, 24) if kind in ("bearer", "url") else values)
    name = draw(secret_names)
    scheme = draw(st.sampled_from(SCHEMES))
    shapes = {
        "bearer": f"curl -H 'Authorization: Bearer {secret}xyzw' https://api",
        "url": f"connect {scheme}://admin:{secret}@db.internal:5432/app",
        "mysql": f"mysql -u root -p{secret} app",
        "sshpass": f"sshpass -p {secret} ssh deploy@host",
        "assign": f"{name}={secret} ./deploy.sh",
        "quoted": f'{name}="{secret} with spaces" ./run',
        "json": f'{{"user": "bob", "{name}": "{secret}"}}',
        "flag": f"mysql --{name.lower().replace('_', '-')} {secret} -h db",
        "curl": f"curl -u admin:{secret} https://x",
    }
    return secret, shapes[kind]


@examples(5.0)  # pure and fast: many more shapes than the other tests can afford
@given(found=secrets_in_context(), before=st.text(max_size=20), after=st.text(max_size=20))
def test_redaction_masks_every_obvious_secret(
    found: tuple[str, str], before: str, after: str
) -> None:
    secret, text = found
    assume(secret not in before + after)
    redacted = redact_text(f"{before}\n{text}\n{after}")
    assert secret not in redacted
    assert MASK in redacted


# Reported inputs, exactly, and their siblings: (text, the secret in it).
LEAKS = [
    ("amqp://guest:s3cretpw@rabbit:5672/", "s3cretpw"),
    ("mongodb+srv://app:Pa55word@cluster0.example.net/db", "Pa55word"),
    ("AMQPS://u:hunter22@q", "hunter22"),
    ("git clone git+ssh://me:hunter22@host/repo", "hunter22"),
    ("mongodb://app:p@ss@host/db", "p@ss"),
    ("mysql -u root -pSECRETPW app", "SECRETPW"),
    ("mysqldump -h db -pSECRETPW app > dump.sql", "SECRETPW"),
    ("mariadb -uroot -p'two words' app", "two words"),
    ("mysql --password=X app", "--password=X"),
    ("mysql --password=abc app", "abc"),
    ("sshpass -p SECRETPW ssh deploy@host", "SECRETPW"),
    ("sshpass -pSECRETPW scp f host:", "SECRETPW"),
    ("sshpass -e -p 'SECRET PW' ssh host", "SECRET PW"),
    (
        "aws configure import AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
    (
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY,ASIAIOSFODNN7EXAMPLE",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ),
]


@pytest.mark.parametrize(("text", "secret"), LEAKS)
def test_the_leaks_found_are_masked(text: str, secret: str) -> None:
    assert secret not in redact_text(text)


@pytest.mark.parametrize(
    "text",
    ["mkdir -p build", "ssh -p 2222 host", "git log -p", "https://example.com:8080/a@b", "x" * 40],
)
def test_ordinary_text_is_kept(text: str) -> None:
    assert redact_text(text) == text


def test_keys_are_redacted_and_a_secret_named_key_masks_its_value() -> None:
    token = "ghp_" + "a" * 36
    other = "ghp_" + "b" * 36
    redacted = redact({token: 1, other: 2, "db_password": {"from": "hunter2", "to": ["x"]}})
    assert token not in str(redacted) and other not in str(redacted)
    assert sorted(redacted.values(), key=str) == [1, 2, {"from": MASK, "to": [MASK]}]


ECHO_HOOK = """#!{python}
import json, sys
event = json.load(sys.stdin)
text = next(iter(event["tool_input"].values()))
mode = sys.argv[1]
if mode == "exit2":
    sys.stderr.write("refusing: " + text)
    sys.exit(2)
if mode == "crash":
    sys.stderr.write("cannot parse: " + text)
    sys.exit(1)
specific = {{"hookEventName": "PreToolUse"}}
if mode in ("deny", "ask"):
    specific.update(permissionDecision=mode, permissionDecisionReason="saw: " + text)
if mode == "rewrite":
    key = next(iter(event["tool_input"]))
    specific["updatedInput"] = {{key: text + " --dry-run", "note": "was: " + text}}
if mode == "rewrite-key":  # the secret becomes a key of the proposed input, so of the diff
    specific["updatedInput"] = {{text: "x", "was: " + text: {{text: text}}}}
print(json.dumps({{"hookSpecificOutput": specific, "systemMessage": "checked " + text}}))
"""


def strings(value: Any, keys: bool = False) -> list[str]:
    """Every string of an audit record that can come from the event or a hook: all values, and
    the keys of the rewrite diffs (a proposed input's keys). The record's other keys are its
    schema (`downgrades`, `steps`...): Hypothesis draws text from the code's own constants, so
    a drawn secret may well be `downgrad`."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [
            text
            for key, item in value.items()
            for text in [*([key] if keys else []), *strings(item, keys or key == "rewrites")]
        ]
    if isinstance(value, list):
        return [text for item in value for text in strings(item, keys)]
    return []


@examples(0.25)
@given(
    found=secrets_in_context(),
    mode=st.sampled_from(["deny", "ask", "exit2", "crash", "rewrite", "rewrite-key"]),
    tool=st.sampled_from(["Bash", "Write"]),
)
def test_the_audit_never_stores_an_obvious_secret(
    sandbox: Sandbox, found: tuple[str, str], mode: str, tool: str
) -> None:
    secret, text = found
    hook = sandbox.hooks / "echo.py"
    hook.write_text(ECHO_HOOK.format(python=sys.executable), encoding="utf-8")
    hook.chmod(0o755)
    config = sandbox.write_config(
        matching([{"type": "command", "command": f"{hook} {mode}"}], matcher="*")
    )
    outcome = sandbox.call(config, encode(pre_tool_use(text, tool=tool)))
    assert "Traceback" not in outcome.stderr
    if not mode.startswith(
        "rewrite"
    ):  # the hook did see the secret and said it back to Claude Code
        assert secret in outcome.reason or secret in outcome.payload.get("systemMessage", "")
    record = sandbox.audit()[-1]
    if mode.startswith("rewrite"):
        assert record["rewrites"], record
    assert not [text for text in strings(record) if secret in text]
    last_line = sandbox.audit_path.read_text(encoding="utf-8").splitlines()[-1]
    # nor escaped in any way in the written JSON (the schema's keys aside, as above; keys of
    # the rewrites are checked through `strings`)
    assert secret not in re.sub(r'"[a-z_]+":', "", last_line)
