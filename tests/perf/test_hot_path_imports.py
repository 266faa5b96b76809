"""`ccbridge run` with a warm config cache imports only what the event needs.

Deterministic, not timed: the real console script runs under `-X importtime` and the test
looks at which modules it imported beyond what the bare interpreter imports on its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
from collections.abc import Iterable
from fnmatch import fnmatchcase
from functools import partial
from pathlib import Path

import pytest

from tests.support.events import tool_call

SCRIPT = Path(sysconfig.get_path("scripts")) / "ccbridge"
HOOKS = Path(__file__).resolve().parents[2] / "hooks"

# Never on the hot path: the slow config path, the CLI, and big stdlib packages.
FORBIDDEN = (
    "click*",
    "pydantic*",
    "yaml*",
    "_yaml",
    "bridge.cli*",
    "bridge.config.build",
    "bridge.config.schema",
    "asyncio*",
    "concurrent*",
    "multiprocessing*",
    "email*",
    "http*",
    "xml*",
    "logging*",
    "sqlite3*",
    "ssl",
    "socket",
    "unittest*",
    "decimal",
    "typing_extensions",
    "importlib.metadata*",
    "argparse",
    "bridge.goal*",
    # The other agents' adapters: a CC event never needs them.
    "bridge.wire.hosts*",
    # Each costs a hook call milliseconds: `typing` (type checkers only), `json` (`_json` does
    # the work, see bridge.wire.jsonio), `hashlib` (OpenSSL; see bridge.wire.digest).
    "typing",
    "_typing",
    "json",
    "json.*",
    "hashlib",
    "_hashlib",
)

# Small standard modules that a bare interpreter may or may not have imported already (site,
# .pth files): pathlib, re and what they import.
STDLIB_BASICS = (
    "__future__",
    "_collections",
    "_collections_abc",
    "_functools",
    "_operator",
    "_sre",
    "_stat",
    "_winapi",
    "collections",
    "collections.abc",
    "contextlib",
    "copyreg",
    "enum",
    "errno",
    "fnmatch",
    "functools",
    "gc",  # built into the interpreter: the launcher turns collection off for a hook call
    "genericpath",
    "ipaddress",
    "itertools",
    "keyword",
    "nt",
    "ntpath",
    "operator",
    "os",
    "pathlib",
    "posixpath",
    "re",
    "re.*",
    "reprlib",
    "stat",
    "types",
    "urllib",
    "urllib.parse",
    "warnings",
)

# Everything a Read event with an empty config may import beyond that: no orjson (it imports
# dataclasses, inspect, uuid, datetime), no dataclasses, no hashlib (OpenSSL).
EMPTY_CONFIG_ALLOWED = (
    *STDLIB_BASICS,
    "bridge",
    "bridge.main",
    "bridge.hookcall",
    "bridge.deadline",
    "bridge.paths",
    "bridge.engine",
    "bridge.wire",
    "bridge.wire.answer",
    "bridge.wire.digest",
    "bridge.wire.event",
    "bridge.wire.jsonio",
    "bridge.pipeline",
    "bridge.pipeline.decisions",
    "bridge.pipeline.execution",
    "bridge.pipeline.valueclass",
    "bridge.pipeline.stations",
    "bridge.config",
    "bridge.config.compiled",
    "bridge.config.cache",
    "bridge.audit",
    "bridge.audit.log",
    "bridge.audit.record",
    "bridge.audit.redact",
    "_json",
    "_sha256",
    "_sha2",
    "fcntl",
)

# A sub-hook additionally needs the matchers and the process machinery: posix_spawn, poll and
# prctl through ctypes' C half (to hold in what a hook starts). Not subprocess, selectors,
# signal, threading or ctypes' Python half: with what they import (enum, re, locale,
# collections) they cost more than starting 16 hooks.
SUBHOOK_ALLOWED = (
    *EMPTY_CONFIG_ALLOWED,
    "bridge.subhooks",
    "bridge.subhooks.spec",  # loaded with the config only when it has sub-hooks
    "bridge.wire.hook_output",
    "bridge.wire.duplicate_keys",  # a sub-hook's answer, read keeping a key named twice
    "bridge.subhooks.fold",
    "bridge.subhooks.verdict",
    "bridge.subhooks.contain",
    "bridge.subhooks.matcher",
    "bridge.subhooks.runner",
    "bridge.subhooks.selection",
    "bridge.subhooks.spawn",
    "_ctypes",
    "errno",
    "select",
)


# The guards' path: a Bash event judged by the shell parser and the two example guards, loaded
# from their files. Any policy module may load; nothing past the parser's own needs.
GUARDS_ALLOWED = (
    *EMPTY_CONFIG_ALLOWED,
    "bridge.policies",
    "bridge.policies.*",
    "bridge.shell",
    "bridge.shell.*",
    "bridge.guards",
    "bridge.guards.*",
    "glob",
    "shlex",
    "importlib",  # not importlib.util, see bridge.policies.loader
    "ccbridge_policy_*",
)


def imported(*args: str, env: dict[str, str], stdin: bytes = b"") -> set[str]:
    """Every module a run of `args` imported, read from its `-X importtime` report."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        input=stdin,
        capture_output=True,
        env=env,
        check=False,
    )
    names = set()
    for line in done.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "package":  # the report's header line
                names.add(name)
    assert names, f"no importtime report: {done.stderr!r}"
    return names


def matching(names: Iterable[str], patterns: Iterable[str]) -> set[str]:
    return {name for name in names if any(fnmatchcase(name, pattern) for pattern in patterns)}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    for name in ("home", "project"):
        (tmp_path / name).mkdir()
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
        "CLAUDE_PROJECT_DIR": str(tmp_path / "project"),
    }


event = partial(tool_call, session_id="s", cwd="", tool_use_id="t")  # project from the env


READ = event("Read", {"file_path": "/etc/hostname"})
BASH = event("Bash", {"command": "ls -l"})


def config(tmp_path: Path, commands: Iterable[str] = ()) -> str:
    """A ccbridge config (JSON is YAML) running the given commands as PreToolUse sub-hooks."""
    handlers = [{"type": "command", "command": command} for command in commands]
    hooks = {"PreToolUse": [{"matcher": "*", "hooks": handlers}]} if handlers else {}
    path = tmp_path / "ccbridge.yaml"
    path.write_text(json.dumps({"hooks": hooks}))
    return str(path)


def warm_run(config_file: str, stdin: bytes, env: dict[str, str]) -> set[str]:
    """The imports of a run after a first run has compiled and cached the config."""
    argv = (str(SCRIPT), "run", "--config", config_file)
    first = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    return imported(*argv, env=env, stdin=stdin)


def guards_config(tmp_path: Path) -> str:
    guards = [f"{HOOKS / 'dangerous_shell.py'}:guard", f"{HOOKS / 'protect_paths.py'}:guard"]
    path = tmp_path / "guards.yaml"
    path.write_text(json.dumps({"policies": {"guards": guards}}))
    return str(path)


def interpreter_alone(env: dict[str, str]) -> set[str]:
    return imported("-c", "pass", env=env)


def test_the_console_script_exists() -> None:
    assert SCRIPT.is_file(), f"run `pip install -e .`: no console script at {SCRIPT}"


def test_a_cold_cache_compiles_with_yaml_and_pydantic(tmp_path: Path, env: dict[str, str]) -> None:
    """The control: the report does show the slow path when the cache is empty."""
    names = imported(str(SCRIPT), "run", "--config", config(tmp_path), env=env, stdin=READ)
    assert {"yaml", "pydantic", "bridge.config.build"} <= names


@pytest.mark.parametrize("stdin", [READ, BASH], ids=["Read", "Bash"])
def test_a_warm_run_imports_nothing_heavy(
    tmp_path: Path, env: dict[str, str], stdin: bytes
) -> None:
    extra = warm_run(config(tmp_path), stdin, env) - interpreter_alone(env)
    assert matching(extra, FORBIDDEN) == set()


def test_a_warm_run_with_sub_hooks_imports_nothing_heavy(
    tmp_path: Path, env: dict[str, str]
) -> None:
    extra = warm_run(config(tmp_path, ["exit 0"]), READ, env) - interpreter_alone(env)
    assert "bridge.subhooks.spawn" in extra  # the hook really ran
    assert "bridge.subhooks.if_rule" not in extra  # (and its shell parser) only for an `if`
    assert matching(extra, FORBIDDEN) == set()
    assert extra - matching(extra, SUBHOOK_ALLOWED) == set()


def test_an_empty_config_imports_only_the_hot_path(tmp_path: Path, env: dict[str, str]) -> None:
    extra = warm_run(config(tmp_path), READ, env) - interpreter_alone(env)
    assert "bridge.subhooks.spawn" not in extra  # no sub-hook, no process machinery
    assert "bridge.subhooks.fold" not in extra  # nor a fold of nothing
    assert "bridge.subhooks.spec" not in extra  # nor the class of a sub-hook
    assert "bridge.wire.duplicate_keys" not in extra  # nor the reading of its answer
    assert extra - matching(extra, EMPTY_CONFIG_ALLOWED) == set()


def test_the_guards_path_imports_only_what_the_guards_need(
    tmp_path: Path, env: dict[str, str]
) -> None:
    config_file = guards_config(tmp_path)
    denied = subprocess.run(
        [str(SCRIPT), "run", "--config", config_file],
        input=event("Bash", {"command": "rm -rf /"}),
        capture_output=True,
        env=env,
        check=False,
    )
    assert denied.returncode == 2, denied.stdout  # the guards really load and judge
    extra = warm_run(config_file, BASH, env) - interpreter_alone(env)
    assert "bridge.guards.dangerous.dangerous_shell" in extra
    assert "bridge.guards.protect.protect_paths" in extra
    assert matching(extra, FORBIDDEN) == set()
    assert "bridge.subhooks.spawn" not in extra  # no sub-hook, no process machinery
    assert "bridge.subhooks.fold" not in extra  # nor a fold of nothing
    assert extra - matching(extra, GUARDS_ALLOWED) == set()


# What a plain call (an ordinary command line, no secret in the record) must not import at all:
# `re` (with `enum`) and `pathlib` (with `re`, `urllib.parse`, `ipaddress`) were most of a hook
# call's own cost in a clean environment. The policies compile their patterns only
# for rare constructs (bridge.shell.Lazy); paths are plain strings (bridge.paths).
NEVER_ON_A_PLAIN_CALL = ("re", "re.*", "enum", "pathlib", "fnmatch", "urllib*", "ipaddress")


def without_site(args: list[str], env: dict[str, str], stdin: bytes = b"") -> set[str]:
    """The imports of `python -S args` with the checkout on the path: no site-packages, so no
    `.pth` file imports `re` or `pathlib` before ccbridge does (as in a clean environment)."""
    return imported("-S", *args, env={**env, "PYTHONPATH": str(HOOKS.parent)}, stdin=stdin)


# Out of a default call's path: the `__future__` module (hot-path modules quote their
# annotations instead), and the redaction rules, loaded only for a record whose JSON holds a
# piece of one (bridge.audit.record.redacted).
NOT_ON_A_DEFAULT_CALL = ("__future__", "bridge.audit.redact")


@pytest.mark.parametrize("stdin", [READ, BASH], ids=["Read", "Bash"])
def test_a_default_call_loads_no_future_and_no_redaction_rules(
    tmp_path: Path, env: dict[str, str], stdin: bytes
) -> None:
    argv = [str(SCRIPT), "run", "--config", config(tmp_path)]
    first = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    names = without_site(argv, env, stdin)  # no site: nothing else imports `__future__`
    assert "bridge.audit.record" in names  # the call was audited
    assert matching(names, NOT_ON_A_DEFAULT_CALL) == set()
    assert "__future__" in without_site(["-c", "from __future__ import annotations"], env)


def test_a_record_that_may_hold_a_secret_loads_the_rules_and_is_masked(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """The control: a secret that reaches the record (the session id here) loads the rules, and
    the record masks it."""
    secret = tool_call("Bash", {"command": "ls"}, session_id="password=hunter2222", cwd="")
    assert "bridge.audit.redact" in warm_run(config(tmp_path), secret, env)
    audit = (Path(env["CCBRIDGE_STATE_DIR"]) / "audit.jsonl").read_text()
    assert "hunter2222" not in audit
    assert audit.count('"session":"password=[REDACTED]"') == 2  # both runs of warm_run


@pytest.mark.parametrize(
    ("stdin", "guards"),
    [(READ, False), (BASH, False), (BASH, True)],
    ids=["Read", "Bash", "Bash-guards"],
)
def test_a_plain_call_imports_no_regex_and_no_pathlib(
    tmp_path: Path, env: dict[str, str], stdin: bytes, guards: bool
) -> None:
    config_file = guards_config(tmp_path) if guards else config(tmp_path)
    argv = [str(SCRIPT), "run", "--config", config_file]
    first = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=False)
    assert first.returncode == 0, first.stdout + first.stderr
    names = without_site(argv, env, stdin)
    assert "bridge.engine" in names  # the event really was judged
    assert not guards or "bridge.guards.dangerous.dangerous_shell" in names
    assert matching(names, NEVER_ON_A_PLAIN_CALL) == set()
    # Nor, with the default config, `itertools` (a third of a millisecond for two helpers).
    assert guards or "itertools" not in names
    assert matching(without_site(["-c", "import pathlib"], env), NEVER_ON_A_PLAIN_CALL)  # control


def test_a_broken_cache_is_rebuilt_not_trusted(tmp_path: Path, env: dict[str, str]) -> None:
    config_file = config(tmp_path, ["echo 'no' >&2; exit 2"])
    argv = [str(SCRIPT), "run", "--config", config_file]
    first = subprocess.run(argv, input=BASH, capture_output=True, env=env, check=False)
    assert first.returncode == 2, first.stdout
    for entry in (tmp_path / "cache").iterdir():
        entry.write_bytes(b'{"key": "torn')
    again = subprocess.run(argv, input=BASH, capture_output=True, env=env, check=False)
    assert again.returncode == 2
    assert json.loads(again.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_only_a_writing_command_loads_what_reads_writers(
    tmp_path: Path, env: dict[str, str]
) -> None:
    """Self-protection judges every Bash call; the module reading what copies, moves, finds,
    extractions and patches write is loaded only for a line holding one."""
    config_file = config(tmp_path)
    reading = warm_run(config_file, event("Bash", {"command": "git status --short"}), env)
    assert "bridge.guards.protect.protect_paths" in reading
    assert "bridge.guards.protect.writes" not in reading
    for command in ("cp a b", "git checkout -- x", "tar -xf a.tar", "sed 's/a/b/w out' f"):
        assert "bridge.guards.protect.writes" in warm_run(
            config_file, event("Bash", {"command": command}), env
        )


@pytest.mark.parametrize(
    ("host", "stdin"),
    [
        (
            "gemini",
            b'{"hook_event_name":"BeforeTool","session_id":"s","cwd":"",'
            b'"tool_name":"run_shell_command","tool_input":{"command":"ls"}}',
        ),
        (
            "grok",
            b'{"hookEventName":"pre_tool_use","sessionId":"s","cwd":"",'
            b'"toolName":"read_file","toolInput":{"file_path":"/etc/hostname"}}',
        ),
    ],
)
def test_another_agents_event_imports_its_own_adapter_only(
    tmp_path: Path, env: dict[str, str], host: str, stdin: bytes
) -> None:
    """An adapter loads for its own agent's envelope, and none of the others with it."""
    extra = warm_run(config(tmp_path), stdin, env) - interpreter_alone(env)
    adapters = matching(extra, ["bridge.wire.hosts.*"])
    assert adapters == {f"bridge.wire.hosts.{host}"}
    assert matching(extra, [p for p in FORBIDDEN if p != "bridge.wire.hosts*"]) == set()


@pytest.mark.parametrize("hook", ["dangerous_shell.py", "protect_paths.py"])
def test_a_plain_hook_without_options_starts_as_lean_as_ccbridge_run(
    env: dict[str, str], hook: str
) -> None:
    """No argparse (nor the re, enum, gettext and locale it imports) when there is no option to
    read; the hook still judges (it denies `rm -rf /` and a write to `.env`)."""
    script = str(HOOKS / hook)
    harmful = "rm -rf /" if hook == "dangerous_shell.py" else "echo x > .env"
    done = subprocess.run(
        [sys.executable, "-S", script],
        input=event("Bash", {"command": harmful}),
        capture_output=True,
        env={**env, "PYTHONPATH": str(HOOKS.parent)},
        check=False,
    )
    assert b'"permissionDecision":"deny"' in done.stdout.replace(b" ", b""), done
    names = without_site([script], env, BASH)
    assert "bridge.policies.hook" in names  # the event really was judged
    assert matching(names, ("argparse", "gettext", "locale", *NEVER_ON_A_PLAIN_CALL)) == set()
