"""Config: validation with file and line, layering, and the compiled cache."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from bridge.config.compiled import CompiledConfig, load
from bridge.paths import find_config


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
    home, project = tmp_path / "home", tmp_path / "project"
    write(
        home / ".claude/ccbridge.yaml",
        HOOK.format(command="user.sh") + "defaults:\n  timeout: 5\n  approval: none\n",
    )
    write(
        project / ".claude/ccbridge.yaml",
        HOOK.format(command="project.sh") + "defaults:\n  timeout: 7\n",
    )
    write(project / ".claude/ccbridge.local.yaml", "self_protection: false\n")
    paths, how = find_config(None, {"HOME": str(home)}, project)
    assert how == "layers" and len(paths) == 3
    config = load(paths, None)
    assert config.error is None
    assert [(s.command, s.timeout) for s in config.hooks["PreToolUse"]] == [
        ("user.sh", 7.0),
        ("project.sh", 7.0),
    ]  # merged defaults apply to all
    assert [s.order for s in config.hooks["PreToolUse"]] == [0, 1]
    assert config.approval == "none"  # set by the user layer, not overridden
    assert not config.self_protection
    assert config.self_protection_off_in == str(project / ".claude/ccbridge.local.yaml")


def test_lookup_order(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "CCBRIDGE_CONFIG": "/etc/x.yaml"}
    assert find_config("given.yaml", env, tmp_path) == ([Path("given.yaml")], "--config")
    assert find_config(None, env, tmp_path) == ([Path("/etc/x.yaml")], "CCBRIDGE_CONFIG")
    assert find_config(None, {"HOME": str(tmp_path)}, tmp_path) == ([], "layers")


def test_policy_file_paths_resolve_against_the_config(tmp_path: Path) -> None:
    path = write(tmp_path / "conf/c.yaml", "policies:\n  guards: [../p.py:guard, os.path:isdir]\n")
    refs = load([path], None).policies["guards"]
    assert [ref.ref for ref in refs] == [f"{tmp_path / 'p.py'}:guard", "os.path:isdir"]


def test_cache_hit_rebuild_on_change_and_on_corruption(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = write(tmp_path / "c.yaml", HOOK.format(command="one.sh"))
    first = load([path], cache)
    (entry,) = cache.iterdir()
    assert CompiledConfig.from_json(orjson.loads(entry.read_bytes())["config"]) == first
    assert load([path], cache) == first  # served from the cache
    write(path, HOOK.format(command="two.sh"))
    assert load([path], cache).hooks["PreToolUse"][0].command == "two.sh"
    entry.write_bytes(b"{torn")
    assert load([path], cache).hooks["PreToolUse"][0].command == "two.sh"
    rebuilt = orjson.loads(entry.read_bytes())["config"]
    assert rebuilt["hooks"]["PreToolUse"][0]["command"] == "two.sh"


def test_cache_is_not_trusted_for_another_key(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    path = write(tmp_path / "c.yaml", HOOK.format(command="real.sh"))
    load([path], cache)
    (entry,) = cache.iterdir()
    data = orjson.loads(entry.read_bytes())
    data["config"]["hooks"]["PreToolUse"][0]["command"] = "forged.sh"
    data["key"] = "0" * 64
    entry.write_bytes(orjson.dumps(data))
    assert load([path], cache).hooks["PreToolUse"][0].command == "real.sh"


def test_unwritable_cache_only_costs_speed(tmp_path: Path) -> None:
    blocker = write(tmp_path / "file", "")
    path = write(tmp_path / "c.yaml", HOOK.format(command="x.sh"))
    assert load([path], blocker / "sub").error is None
    assert os.path.isfile(blocker)


def test_problems_of_keeps_the_line_of_a_yaml_syntax_error(tmp_path: Path) -> None:
    from bridge.config.build import problems_of

    path = write(tmp_path / "c.yaml", "hooks:\n  PreToolUse: [\n")
    (problem,) = problems_of(path, path.read_bytes())
    assert (problem.file, problem.line) == (str(path), 3)
    assert problem.message.startswith("not valid YAML")


def test_no_sources_compile_to_the_defaults() -> None:
    from bridge.config.build import compile_sources

    assert compile_sources([], "key") == CompiledConfig(digest="key")
