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
                "cli",
                "cli",  # twice: the most shapes
                "service",
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
    if kind == "service":  # tokens of services without a name=value around them
        secret = draw(st.sampled_from(SERVICE_TOKENS))
        shape = draw(st.sampled_from(["{}", "export X={}", "curl -d key={} https://x", "'{}'"]))
        return secret, shape.format(secret)
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
    if kind == "cli":  # a password a command takes as an option or an argument
        return secret, draw(st.sampled_from(CLI_SHAPES)).format(s=secret)
    return secret, shapes[kind]


# Commands that take a password on their command line, each as its manual shows it.
CLI_SHAPES = [
    "docker login -u me -p {s} registry.example.com",
    "podman login -p '{s}' quay.io",
    "redis-cli -h cache -a {s} ping",
    "curl -uadmin:{s} https://x",
    "smbclient //srv/share -U alice%{s}",
    "rpcclient -U 'alice%{s}' srv",
    "curl -H 'Authorization: token {s}' https://api",
    'curl -H "authorization: {s}" https://api',
    "keytool -importkeystore -srcstorepass {s} -deststorepass {s} -srckeystore a.p12",
    "jarsigner -keystore ks.jks -keypass {s} app.jar me",
    "7z a -p{s} archive.7z dir",
    "zip -P {s} out.zip f",
    "unzip -P {s} out.zip",
    "ldapsearch -x -D cn=admin,dc=x -w {s} -b dc=x",
    "ldapmodify -D cn=admin -w '{s}' -f change.ldif",
    "htpasswd -b .htpasswd bob {s}",
    "htpasswd -nbB bob {s}",
    "DB_PW={s} ./run",
    "MYSQL_PWD='{s}' mysql app",
    "ssh-keygen -t ed25519 -N {s} -f key",
    "ssh-keygen -p -P {s} -N {s} -f key",
    "openssl enc -aes-256-cbc -k {s} -in a -out b",
    "aws configure set aws_secret_access_key {s}",
    "aws configure set profile.ci.aws_session_token {s}",
    "az login -u me@example.com -p {s}",
    "az ad sp create-for-rbac -n app -p {s}",
]
SERVICE_TOKENS = [
    "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",  # SendGrid
    "SK1234567890abcdef1234567890abcdef",  # Twilio API key
    "AC0123456789abcdef0123456789abcdef",  # Twilio account SID
    "pypi-AgEIcHlwaS5vcmcCJGE4ZmM0YTBmLTQ1ZTktNGRjNS1hYjE4LTk0NmU0MTExMDY2NgACJXsicGVybWlzc2lv"
    "bnMiOiAidXNlciIsICJ2ZXJzaW9uIjogMX0AAAYgd2VhcmUtYS1mYWtlLXRva2VuLWRvbnQtd29ycnkK",
    "MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",  # Discord bot
    "NzkyNzE1NDU0MTk2MDg4ODQy.X-hvzA.Ovy4MCQywSkoMRRclStW4xAYK7I",
]


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


# The leaks found by an attacker's corpus (one per shape of CLI_SHAPES and more), and Azure's
# connection strings.
LEAKS += [(shape.format(s="Qx83kdPzw"), "Qx83kdPzw") for shape in CLI_SHAPES]
LEAKS += [(f"export T={token}", token) for token in SERVICE_TOKENS]
LEAKS += [
    (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=lJzRc1YdHaAA2KCNJJ1tkYwF/+mKK6"
        "Ygw0NGe170Xu592euJv2wYUtBlV8z+qnlcNQSnIYVTkLWntUO1F8j8rQ==;EndpointSuffix=core.windows.net",
        "lJzRc1YdHaAA2KCNJJ1tkYwF",
    ),
    ("Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKey=c2VjcmV0c2VjcmV0c2VjcmV0", "c2Vj"),
    ("curl -uadmin:Qx83kdPzw https://x", "Qx83kdPzw"),
    ("smbclient //srv/share --user=alice%Qx83kdPzw", "Qx83kdPzw"),
]


@pytest.mark.parametrize(("text", "secret"), LEAKS)
def test_the_leaks_found_are_masked(text: str, secret: str) -> None:
    assert secret not in redact_text(text)


@pytest.mark.parametrize(
    "text",
    [
        "mkdir -p build",
        "ssh -p 2222 host",
        "git log -p",
        "https://example.com:8080/a@b",
        "x" * 40,
        # look-alikes of the command-line passwords: the same programs and options, no secret
        "docker run -p 8080:80 -u 1000:1000 img",
        "docker login registry.example.com",
        "date -u +%H:%M:%S",
        "sort -u names.txt",
        "redis-cli -h cache ping",
        "7z x archive.7z -oout",
        "zip -r out.zip dir",
        "ldapsearch -x -b dc=example,dc=com uid=bob",
        "keytool -list -keystore ks.jks",
        "openssl req -new -key key.pem -out csr.pem",
        "ssh-keygen -t ed25519 -f key -C me",
        "htpasswd -c .htpasswd bob",
        "az group list -o table",
        "aws configure set region eu-west-1",
        "cd $PWD && PWD=/tmp ls",
        "echo ACCESS_DENIED SKIPPED NOTED",
        "printf '%s\\n' -U",
        "Authorization header missing",
        "git commit -m 'bump the version to 0.1.0'",
        "a3f5e9a0c1b2d4e6f8a7b9c0d1e2f3a4b5c6d7e8",  # a commit id
    ],
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


# detect-secrets (a test-only oracle) names secrets by its own detectors; its entropy scanners
# name every word of a command line, so they are left out.
NAMED_SAMPLE = [  # each line holds a secret that detect-secrets names
    *(f"export T={token}" for token in SERVICE_TOKENS),
    "AccountKey=lJzRc1YdHaAA2KCNJJ1tkYwF/+mKK6Ygw0NGe170Xu592euJv2wYUtBlV8z+qnlcNQSnIYVTkLWntUO1F8j8rQ==",
    "git push https://ghp_" + "a1B2c3D4e5" * 4 + "@github.com/o/r",
    "aws configure import AKIAIOSFODNN7EXAMPLE",
    "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
    "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'",
    "slack xoxb-1234567890-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "echo //registry.example/:_authToken=npm_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5 >> .npmrc",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAxyz\n-----END RSA PRIVATE KEY-----",
    "MYSQL_PWD='Qx83kdPzw' mysql app",
]
ORACLE_SAMPLE = [*NAMED_SAMPLE, *(shape.format(s="Qx83kdPzw") for shape in CLI_SHAPES)]


def oracle_findings(text: str) -> list[tuple[str, str]]:
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings

    found = []
    with default_settings():
        for line in text.splitlines():
            for secret in scan_line(line):
                if "High Entropy" not in secret.type and secret.secret_value:
                    found.append((secret.type, secret.secret_value))
    return found


def test_everything_detect_secrets_names_in_a_sample_is_masked_in_the_audit(
    sandbox: Sandbox,
) -> None:
    hook = sandbox.hooks / "echo.py"
    hook.write_text(ECHO_HOOK.format(python=sys.executable), encoding="utf-8")
    hook.chmod(0o755)
    config = sandbox.write_config(matching([{"type": "command", "command": f"{hook} deny"}]))
    for text in ORACLE_SAMPLE:
        findings = oracle_findings(text)
        assert findings or text not in NAMED_SAMPLE, text  # the oracle does see these
        outcome = sandbox.call(config, encode(pre_tool_use(text)))
        assert outcome.decision == "deny" and text.splitlines()[0] in outcome.reason
        written = sandbox.audit_path.read_text(encoding="utf-8").splitlines()[-1]
        for kind, value in findings:
            # a `name=value` finding (Azure's AccountKey) keeps its name: the value is masked
            secret = value.split("=", 1)[1] if kind.startswith("Azure") else value
            assert secret not in written, (kind, value, written)
            assert (oracle_findings(written) or [("", "")])[0][1] != value
