"""Config: validation with file and line, layering, and the compiled cache."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from bridge.config import cache as cache_module
from bridge.config.cache import KEY_BYTES, KEY_NAME, Cache, load
from bridge.config.compiled import MAX_CONFIG_BYTES, AuditConfig, CompiledConfig, GoalConfig
from bridge.paths import find_config, wide_layers
from bridge.wire.digest import hmac_sha256_hex, sha256_hex


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


HOOK = """
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: {command}
"""


def test_valid_config_compiles_with_where(tmp_path: Path) -> None:
    config = load([write(tmp_path / "c.yaml", HOOK.format(command="./check.sh"))], None)
    assert config.error is None
    (spec,) = config.hooks["PreToolUse"]
    assert spec.command == "./check.sh" and spec.matcher == "Bash"
    assert spec.where == f"{tmp_path / 'c.yaml'}:6 hooks.PreToolUse[0].hooks[0]"
    assert spec.timeout == 20.0 and spec.on_failure == "block"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("hooks: []\n", ":1: hooks: Input should be a valid dictionary"),
        (
            "defaults:\n  approval: maybe\n",
            ":2: defaults.approval: Input should be 'prompt' or 'none'",
        ),
        (
            "defaults:\n  timeout: 99\n",
            ":2: defaults.timeout: Input should be less than or equal to 50",
        ),
        ("policies:\n  guards: [nocolon]\n", ":2: policies.guards: 'nocolon' must look like"),
        (
            "hooks:\n  PreToolUse:\n    - hooks:\n        - type: command\n",
            ":4: hooks.PreToolUse[0].hooks[0]: a command hook needs",
        ),
        (
            "hooks:\n  PreToolUse:\n    - hooks:\n"
            "        - {type: command, command: x, async: 1}\n",
            "async hooks cannot gate",
        ),
        ("- just a list\n", "expected a mapping at the top"),
        ("version: 2\n", ":1: version: Input should be 1"),
    ],
)
def test_errors_name_file_line_and_problem(tmp_path: Path, text: str, fragment: str) -> None:
    path = write(tmp_path / "bad.yaml", text)
    config = load([path], None)
    assert config.error is not None
    assert str(path) in config.error
    assert fragment in config.error


def test_settings_json_uses_only_hooks_key(tmp_path: Path) -> None:
    settings = {
        "permissions": {"allow": ["Bash(ls)"]},
        "model": "x",
        "hooks": {
            "PostToolUse": [
                {
                    "matcher": "Write",
                    "hooks": [{"type": "command", "command": "fmt.sh", "statusMessage": "fmt"}],
                }
            ]
        },
    }
    path = tmp_path / "settings.json"
    path.write_bytes(orjson.dumps(settings))
    config = load([path], None)
    assert config.error is None
    assert [spec.command for spec in config.hooks["PostToolUse"]] == ["fmt.sh"]


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    config = load([tmp_path / "nope.yaml"], None)
    assert config.error is not None and "not found" in config.error


def test_layers_add_hooks_and_override_defaults(tmp_path: Path) -> None:
    """The user layer sets what it likes; the project and local layers add hooks and may only
    tighten: a shorter timeout applies to their own hooks (never to a wider layer's), a longer
    one and switching self-protection off are refused, said as warnings, and the stricter value
    holds."""
    home, project = tmp_path / "home", tmp_path / "project"
    write(
        home / ".claude/ccbridge.yaml",
        HOOK.format(command="user.sh") + "defaults:\n  timeout: 5\n  approval: none\n",
    )
    write(
        project / ".claude/ccbridge.yaml",
        HOOK.format(command="project.sh") + "defaults:\n  timeout: 3\n",
    )
    write(
        project / ".claude/ccbridge.local.yaml", "self_protection: false\ndefaults: {timeout: 7}\n"
    )
    env = {"HOME": str(home)}
    paths, how = find_config(None, env, project)
    assert how == "layers" and len(paths) == 3
    config = load(paths, None, wide=wide_layers(paths, env, None))
    assert config.error is None
    assert [(s.command, s.timeout) for s in config.hooks["PreToolUse"]] == [
        ("user.sh", 5.0),
        ("project.sh", 3.0),
    ]  # the local layer's 7 s would loosen the project's 3 s
    assert [s.order for s in config.hooks["PreToolUse"]] == [0, 1]
    assert config.approval == "none"  # set by the user layer, not overridden
    assert config.self_protection and config.self_protection_off_in is None
    local = str(project / ".claude/ccbridge.local.yaml")
    assert [warning.split(": ")[:2] for warning in config.warnings] == [
        [f"{local}:2", "defaults.timeout"],
        [f"{local}:1", "self_protection"],
    ]


def test_lookup_order(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "CCBRIDGE_CONFIG": "/etc/x.yaml"}
    assert find_config("given.yaml", env, tmp_path) == (["given.yaml"], "--config")
    assert find_config(None, env, tmp_path) == (["/etc/x.yaml"], "CCBRIDGE_CONFIG")
    assert find_config(None, {"HOME": str(tmp_path)}, tmp_path) == ([], "layers")


def test_policy_file_paths_resolve_against_the_config(tmp_path: Path) -> None:
    path = write(tmp_path / "conf/c.yaml", "policies:\n  guards: [../p.py:guard, os.path:isdir]\n")
    refs = load([path], None).policies["guards"]
    assert [ref.ref for ref in refs] == [f"{tmp_path / 'p.py'}:guard", "os.path:isdir"]


def cache_in(tmp_path: Path) -> Cache:
    return Cache(tmp_path / "cache", tmp_path / "state" / KEY_NAME)


def entry_of(cache: Cache) -> tuple[Path, bytes, dict[str, Any]]:
    """The one cache entry: its path, seal and payload."""
    (entry,) = Path(cache.directory).iterdir()
    seal, _, payload = entry.read_bytes().partition(b"\n")
    return entry, seal, orjson.loads(payload)


def test_cache_hit_and_rebuild_on_change(tmp_path: Path) -> None:
    cache = cache_in(tmp_path)
    path = write(tmp_path / "c.yaml", HOOK.format(command="one.sh"))
    first = load([path], cache)
    _entry, _seal, payload = entry_of(cache)
    assert CompiledConfig.from_json(payload["config"]) == first
    assert load([path], cache) == first  # served from the cache
    write(path, HOOK.format(command="two.sh"))
    assert load([path], cache).hooks["PreToolUse"][0].command == "two.sh"
    assert entry_of(cache)[2]["config"]["hooks"]["PreToolUse"][0]["command"] == "two.sh"


def test_cache_files_are_private(tmp_path: Path) -> None:
    cache = cache_in(tmp_path)
    load([write(tmp_path / "c.yaml", HOOK.format(command="x.sh"))], cache)
    entry, _seal, _payload = entry_of(cache)
    assert stat.S_IMODE(Path(cache.key_file).stat().st_mode) == 0o600
    assert len(Path(cache.key_file).read_bytes()) == KEY_BYTES
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600


def forge(cache: Cache, change: Callable[[dict[str, Any]], None], reseal: bytes | None) -> Path:
    """Edit the cached compiled config as an attacker who can write the file would."""
    entry, seal, payload = entry_of(cache)
    change(payload["config"])
    body = orjson.dumps(payload)
    entry.write_bytes((reseal or seal) + b"\n" + body)
    return entry


def switch_everything_off(config: dict[str, Any]) -> None:
    config["self_protection_off_in"] = config["files"][0]
    config["policies"]["guards"] = []
    config["hooks"] = {}


@pytest.mark.parametrize(
    "reseal",
    [None, b"0" * 64, b"digest-of-payload"],
    ids=["old-seal", "made-up-seal", "payload-digest"],
)
def test_a_cache_entry_not_written_by_ccbridge_is_refused_and_rebuilt(
    tmp_path: Path, reseal: bytes | None
) -> None:
    cache = cache_in(tmp_path)
    path = write(
        tmp_path / "c.yaml",
        HOOK.format(command="real.sh") + "policies:\n  guards: [os.path:isdir]\n",
    )
    honest = load([path], cache)
    if reseal == b"digest-of-payload":  # a digest anyone can recompute proves nothing
        entry, _seal, payload = entry_of(cache)
        switch_everything_off(payload["config"])
        body = orjson.dumps(payload)
        entry.write_bytes(sha256_hex(body).encode() + b"\n" + body)
    else:
        entry = forge(cache, switch_everything_off, reseal)
    found = load([path], cache)
    assert found.error is not None and str(entry) in found.error
    assert "written by something other than ccbridge" in found.error
    assert found.self_protection and found.policies == honest.policies
    assert found.hooks == honest.hooks
    assert load([path], cache) == honest  # rebuilt and sealed again


def test_the_seal_is_rfc_2104_hmac() -> None:
    import hashlib
    import hmac

    for key in (b"k" * 32, b"", b"x" * 100):
        for data in (b"", b"payload", b"y" * 5000):
            expected = hmac.new(key, data, hashlib.sha256).hexdigest()
            assert hmac_sha256_hex(key, data) == expected


def test_the_seal_is_compared_in_constant_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `!=` on the seal returns at the first differing byte, which times how much of a forged
    seal is right; the cache compares with hmac.compare_digest's constant-time implementation."""
    import hmac
    from _operator import _compare_digest

    real = vars(cache_module)["compare_digest"]  # a private import of the module
    assert real in (hmac.compare_digest, _compare_digest)
    compared: list[tuple[bytes, bytes]] = []

    def recording(seal: bytes, expected: bytes) -> bool:
        compared.append((seal, expected))
        return bool(real(seal, expected))

    cache = cache_in(tmp_path)
    path = write(tmp_path / "c.yaml", HOOK.format(command="x.sh"))
    first = load([path], cache)
    _entry, seal, payload = entry_of(cache)
    monkeypatch.setattr(cache_module, "compare_digest", recording)
    assert load([path], cache) == first  # served from the cache, through the comparison
    body = orjson.dumps({"key": payload["key"], "config": payload["config"]})
    assert compared == [(seal, hmac_sha256_hex(Path(cache.key_file).read_bytes(), body).encode())]


def test_without_a_key_nothing_is_cached(tmp_path: Path) -> None:
    blocker = write(tmp_path / "file", "")
    cache = Cache(tmp_path / "cache", blocker / "sub" / KEY_NAME)  # the key cannot be made
    path = write(tmp_path / "c.yaml", HOOK.format(command="x.sh"))
    assert load([path], cache).error is None
    assert not Path(cache.directory).exists()


def test_a_damaged_key_is_replaced(tmp_path: Path) -> None:
    cache = cache_in(tmp_path)
    path = write(tmp_path / "c.yaml", HOOK.format(command="x.sh"))
    Path(cache.key_file).parent.mkdir(parents=True)
    Path(cache.key_file).write_bytes(b"short")
    assert load([path], cache).error is None
    assert len(Path(cache.key_file).read_bytes()) == KEY_BYTES
    assert load([path], cache).error is None


def test_cache_is_not_trusted_for_another_key(tmp_path: Path) -> None:
    cache = cache_in(tmp_path)
    path = write(tmp_path / "c.yaml", HOOK.format(command="real.sh"))
    load([path], cache)
    write(path, HOOK.format(command="new.sh"))
    assert load([path], cache).hooks["PreToolUse"][0].command == "new.sh"


def test_unwritable_cache_only_costs_speed(tmp_path: Path) -> None:
    blocker = write(tmp_path / "file", "")
    path = write(tmp_path / "c.yaml", HOOK.format(command="x.sh"))
    assert load([path], Cache(blocker / "sub", tmp_path / "state" / KEY_NAME)).error is None
    assert os.path.isfile(blocker)


def test_self_protection_is_off_only_as_a_loaded_file_says() -> None:
    assert CompiledConfig().self_protection
    assert CompiledConfig(self_protection_off_in=None, files=("/a.yaml",)).self_protection
    assert CompiledConfig(self_protection_off_in="/b.yaml", files=("/a.yaml",)).self_protection
    assert not CompiledConfig(self_protection_off_in="/a.yaml", files=("/a.yaml",)).self_protection


def test_audit_and_goal_defaults_are_the_schemas() -> None:
    from bridge.config.schema import BridgeConfig

    schema = BridgeConfig()
    assert schema.audit.model_dump() == AuditConfig().to_json()
    assert schema.goals.model_dump() == GoalConfig().to_json()
    assert CompiledConfig().audit == AuditConfig() and CompiledConfig().goals == GoalConfig()
    compiled = CompiledConfig()
    assert (compiled.approval, compiled.max_hooks, compiled.output_cap) == (
        schema.defaults.approval,
        schema.defaults.max_hooks,
        schema.defaults.output_cap,
    )


def test_audit_and_goals_compile_to_typed_settings(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.yaml",
        "audit: {keep: 2, path: log/a.jsonl}\ngoals: {enabled: true, default_max_rounds: 4}\n",
    )
    config = load([path], None)
    assert config.audit == AuditConfig(path=str(tmp_path / "log/a.jsonl"), keep=2)
    assert config.goals == GoalConfig(enabled=True, default_max_rounds=4)
    assert CompiledConfig.from_json(config.to_json()) == config


def test_a_config_over_the_size_cap_is_refused_with_its_size(tmp_path: Path) -> None:
    path = write(tmp_path / "big.yaml", "# padding\n" * (MAX_CONFIG_BYTES // 10 + 1))
    started = time.monotonic()
    config = load([path], None)
    assert time.monotonic() - started < 5
    size = path.stat().st_size
    assert config.error == (
        f"{path}: {size} bytes, over the {MAX_CONFIG_BYTES}-byte limit for a config file "
        "(keep hooks and policies in it; move data to files the hooks read)"
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("[" * 100_000, 1),
        ("hooks:\n" + "".join("  " * i + "- \n" for i in range(1, 400)), 65),
        ("a: " + "[" * 70 + "]" * 70 + "\n", 1),
    ],
    ids=["100k-flow", "400-block", "70-flow"],
)
def test_a_deep_config_is_a_config_error_with_file_and_line(
    tmp_path: Path, text: str, line: int
) -> None:
    path = write(tmp_path / "deep.yaml", text)
    config = load([path], None)
    assert config.error is not None
    assert config.error.startswith(f"{path}:{line}: nested deeper than 64 levels")


def test_problems_of_keeps_the_line_of_a_yaml_syntax_error(tmp_path: Path) -> None:
    from bridge.config.build import problems_of

    path = write(tmp_path / "c.yaml", "hooks:\n  PreToolUse: [\n")
    (problem,) = problems_of(path, path.read_bytes())
    assert (problem.file, problem.line) == (str(path), 3)
    assert problem.message.startswith("not valid YAML")


def test_no_sources_compile_to_the_defaults() -> None:
    from bridge.config.build import compile_sources

    assert compile_sources([], "key") == CompiledConfig(digest="key")


CCBRIDGE = str(Path(sysconfig.get_path("scripts")) / "ccbridge")
RM_ROOT = {
    "hook_event_name": "PreToolUse",
    "session_id": "s",
    "cwd": "/tmp",
    "tool_name": "Bash",
    "tool_input": {"command": "rm -rf /"},
    "tool_use_id": "t",
}
# A reported attack, word for word: the agent's Bash edits the cached compiled config.
ATTACK = (
    "import json,glob; p=glob.glob('{cache}/config-*.json')[0]; d=json.load(open(p)); "
    "d['config']['self_protection']=False; d['config']['policies']['guards']=[]; "
    "json.dump(d,open(p,'w'))"
)
# The same attack, aware of the seal line: keeps it and rewrites the payload after it.
SEAL_AWARE_ATTACK = (
    "import json,glob; p=[q for q in glob.glob('{cache}/config-*') if '.tmp' not in q][0]; "
    "raw=open(p,'rb').read(); head,sep,body=raw.partition(b'\\n'); "
    "head,body=(b'',raw) if raw[:1]==b'{{' else (head+sep,body); d=json.loads(body); "
    "d['config']['self_protection']=False; d['config']['self_protection_off_in']=None; "
    "d['config']['policies']['guards']=[]; open(p,'wb').write(head+json.dumps(d).encode())"
)


def run_bridge(env: dict[str, str], config: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [CCBRIDGE, "run", "--config", str(config)],
        input=orjson.dumps(RM_ROOT),
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("attack", [ATTACK, SEAL_AWARE_ATTACK], ids=["reported", "seal-aware"])
def test_editing_the_cache_switches_no_guard_off(tmp_path: Path, attack: str) -> None:
    cache = tmp_path / "cache"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "CCBRIDGE_CACHE_DIR": str(cache),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
    }
    config = write(
        tmp_path / "ccbridge.yaml",
        "policies:\n  guards: [bridge.guards.dangerous.dangerous_shell:dangerous_shell]\n",
    )
    first = run_bridge(env, config)
    assert first.returncode == 2, first.stderr  # compiled, cached, denied by the guard
    subprocess.run(
        [sys.executable, "-c", attack.format(cache=cache)], capture_output=True, check=False
    )
    for _ in range(2):  # the call that finds the edit, and the one after
        done = run_bridge(env, config)
        assert done.returncode == 2, done.stdout
        answer = orjson.loads(done.stdout)["hookSpecificOutput"]
        assert answer["permissionDecision"] == "deny"
        assert b"Traceback" not in done.stderr
    records = [
        orjson.loads(line)
        for line in (tmp_path / "state/audit.jsonl").read_bytes().split(b"\n")
        if line
    ]
    assert not any("self-protection is off" in str(record) for record in records)


def test_the_audit_names_the_file_that_switched_self_protection_off(tmp_path: Path) -> None:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "CCBRIDGE_CACHE_DIR": str(tmp_path / "cache"),
        "CCBRIDGE_STATE_DIR": str(tmp_path / "state"),
    }
    config = write(tmp_path / "ccbridge.yaml", "self_protection: false\n")
    for _ in range(2):  # compiled, then from the cache
        assert run_bridge(env, config).returncode == 0  # no guard: `rm -rf /` is CC's to judge
    audit = (tmp_path / "state/audit.jsonl").read_bytes().splitlines()
    notes = [orjson.loads(line).get("notes") for line in audit]
    assert notes == [[f"self-protection is off (set in {config})"]] * 2


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 100_000, ":1: nested deeper than 64 levels"),
        ("#" * (MAX_CONFIG_BYTES + 1), f"over the {MAX_CONFIG_BYTES}-byte limit"),
    ],
    ids=["100k-deep", "oversized"],
)
def test_run_denies_an_unloadable_config_naming_file_and_line(
    tmp_path: Path, text: str, problem: str
) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    env["CCBRIDGE_CACHE_DIR"], env["CCBRIDGE_STATE_DIR"] = str(tmp_path / "c"), str(tmp_path / "s")
    config = write(tmp_path / "ccbridge.yaml", text)
    done = run_bridge(env, config)
    assert done.returncode == 2
    reason = orjson.loads(done.stdout)["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith(f"ccbridge config error: {config}")
    assert problem in reason and "internal error" not in reason
