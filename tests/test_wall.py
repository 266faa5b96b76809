"""bridge.wall: what the wall keeps, how it is read from the settings layers, and that
uninstalling takes out exactly what installing added, for any settings file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bridge import wall
from bridge.subhooks.spec import HookSpec

ENV = {"HOME": "/h", "CCBRIDGE_STATE_DIR": "/s", "CCBRIDGE_CACHE_DIR": "/c"}


def spec(command: str, args: tuple[str, ...] | None = None) -> HookSpec:
    return HookSpec(
        event="PreToolUse", name=command, where="f:1", order=0, command=command, args=args
    )


def test_the_scripts_a_hook_runs_are_kept() -> None:
    hooks = {
        "PreToolUse": (
            spec("${CLAUDE_PROJECT_DIR}/hooks/check.sh --strict"),
            spec("python3", ("hooks/guard.py", "-v")),
            spec("X=1 ./run.sh | tee ~/log"),
            spec("/usr/bin/true"),
        )
    }
    found = wall.hook_scripts(hooks, ENV, "/p")
    assert found == ["/p/hooks/check.sh", "/p/hooks/guard.py", "/p/run.sh", "/h/log"]


def test_every_layer_state_cache_and_mod_directory_is_kept() -> None:
    keep = wall.protected(ENV, "/p")
    for path in (
        "/h/.claude/ccbridge.yaml",
        "/p/.claude/ccbridge.yaml",
        "/p/.claude/ccbridge.local.yaml",
        "/h/.claude/settings.json",
        "/p/.claude/settings.local.json",
        "/s",
        "/c",
        "/h/.claude/plugins",
        "/h/.claude/dev-mods",
    ):
        assert path in keep.write
    assert "/s/cache.key" in keep.read and "/s/audit.jsonl" in keep.read


def put_up(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    return wall.put_up(data, wall.protected(ENV, "/p"), ENV)


def test_put_up_is_what_judge_calls_the_wall(tmp_path: Path) -> None:
    env = {**ENV, "HOME": str(tmp_path / "h")}
    project = str(tmp_path / "p")
    keep = wall.protected(env, project)
    after, _ = wall.put_up({}, keep, env)
    settings_file = Path(project) / ".claude" / "settings.json"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(json.dumps(after))
    level, missing = wall.judge(env, project)
    assert [gap for gap in missing if "not installed" not in gap] == []
    assert level == (wall.WALL if not missing else wall.TRIPWIRE)
    settings_file.write_text(
        json.dumps({**after, "sandbox": {**after["sandbox"], "enabled": False}})
    )
    assert wall.judge(env, project)[0] == wall.TRIPWIRE


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
settings_files = st.fixed_dictionaries(
    {},
    optional={
        "model": st.text(max_size=5),
        "sandbox": st.fixed_dictionaries(
            {},
            optional={
                "enabled": st.booleans(),
                "failIfUnavailable": st.booleans(),
                "allowUnsandboxedCommands": st.booleans(),
                "network": json_values,
                "filesystem": st.fixed_dictionaries(
                    {},
                    optional={
                        "denyWrite": st.lists(
                            st.sampled_from(["/x", "/s", "/p/.claude/ccbridge.yaml"])
                        ),
                        "denyRead": st.lists(st.sampled_from(["/y", "/s/cache.key"])),
                        "allowWrite": st.lists(st.text(max_size=4)),
                    },
                ),
            },
        ),
        "permissions": st.fixed_dictionaries(
            {},
            optional={
                "allow": st.lists(st.sampled_from(["Bash", "Read"])),
                "deny": st.lists(st.sampled_from(["Bash(rm *)", "Edit(//s/**)"])),
            },
        ),
    },
)


@settings(max_examples=300)
@given(settings_files)
def test_take_down_undoes_put_up_exactly(data: dict[str, Any]) -> None:
    after, added = put_up(data)
    assert after["sandbox"]["enabled"] is True and after["sandbox"]["failIfUnavailable"] is True
    assert wall.take_down(after, added) == data


@given(settings_files)
def test_put_up_twice_changes_nothing_more(data: dict[str, Any]) -> None:
    after, _ = put_up(data)
    again, added = put_up(after)
    assert again == after and not added["scalars"] and not any(added["lists"].values())


def test_a_users_edit_after_install_stays() -> None:
    after, added = put_up({"sandbox": {"enabled": False}})
    after["sandbox"]["filesystem"]["denyWrite"].append("/mine")
    after["sandbox"]["allowUnsandboxedCommands"] = True  # the user changed it back on purpose
    down = wall.take_down(after, added)
    assert down["sandbox"]["filesystem"]["denyWrite"] == ["/mine"]
    assert down["sandbox"]["allowUnsandboxedCommands"] is True
    assert down["sandbox"]["enabled"] is False


def test_settings_layers_merge_as_cc_merges_them(tmp_path: Path) -> None:
    user, local = tmp_path / "user.json", tmp_path / "local.json"
    user.write_text(
        json.dumps({"sandbox": {"enabled": True, "filesystem": {"denyWrite": ["~/a"]}}})
    )
    local.write_text(
        json.dumps(
            {
                "sandbox": {"enabled": False, "filesystem": {"denyWrite": ["b"]}},
                "permissions": {"deny": ["Edit(//q/**)", "Read(//k)", "Bash(x)"]},
            }
        )
    )
    merged = wall.in_force([str(user), str(local), str(tmp_path / "missing.json")], "/h", "/p")
    assert merged.enabled is False and merged.deny_write == ["/h/a", "/p/b"]
    assert merged.edit_denied == ["/q"] and merged.read_denied == ["/k"]
    assert merged.files == [str(user), str(local)]
