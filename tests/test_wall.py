"""bridge.wall: what the wall keeps, how it is read from the settings layers, and that
uninstalling takes out exactly what installing added, for any settings file."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge import wall
from bridge.subhooks.spec import HookSpec
from tests.support import REPO

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
    # and the directory the scripts load from, but not the project's own (see below)
    assert found == ["/p/hooks/check.sh", "/p/hooks/guard.py", "/p/run.sh", "/h/log", "/p/hooks"]
    assert wall.hook_trees(hooks, ENV, "/p") == ["/p/hooks"]


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
    user, local = tmp_path / "user.json", tmp_path / "p" / ".claude" / "settings.local.json"
    local.parent.mkdir(parents=True)
    project = str(tmp_path / "p")
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
    merged = wall.in_force([str(user), str(local), str(tmp_path / "missing.json")], "/h", project)
    # a relative entry of the project's own files is taken from the project root
    assert merged.enabled is False and merged.deny_write == ["/h/a", f"{project}/b"]
    assert merged.edit_denied == ["/q"] and merged.read_denied == ["/k"]
    assert merged.files == [str(user), str(local)]


def test_the_shells_spelling_of_the_project_variable_is_kept() -> None:
    # CC's documented form: the shell expands it, so the script is the project's file
    hooks = {"PreToolUse": (spec('"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh'),)}
    assert wall.hook_scripts(hooks, ENV, "/p") == ["/p/.claude/hooks/check.sh", "/p/.claude/hooks"]
    assert list(wall.hook_gaps(hooks, ENV, "/p")) == []


def judged_with(tmp_path: Path, command: str, args: tuple[str, ...] | None = None) -> list[str]:
    """What the wall misses for a project walled by install's settings with this one hook."""
    env = {**ENV, "HOME": str(tmp_path / "h")}
    project = tmp_path / "p"
    (project / "hooks").mkdir(parents=True, exist_ok=True)
    (project / "check.py").write_text("print()\n")
    (project / "hooks" / "check.py").write_text("print()\n")
    hooks = {"PreToolUse": (spec(command, args),)}
    after, _ = wall.put_up({}, wall.protected(env, str(project), hooks), env)
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps(after))
    level, missing = wall.judge(env, str(project), hooks)
    missing = [gap for gap in missing if "not installed" not in gap]
    assert (level == wall.WALL) is (missing == [] and not wall.missing_programs())
    return missing


def test_a_hook_script_named_from_the_project_is_walled(tmp_path: Path) -> None:
    assert judged_with(tmp_path, "${CLAUDE_PROJECT_DIR}/hooks/check.sh --strict") == []
    assert judged_with(tmp_path, '"$CLAUDE_PROJECT_DIR"/hooks/check.sh') == []
    assert judged_with(tmp_path, "python3", (str(tmp_path / "p" / "hooks" / "check.py"),)) == []


@pytest.mark.parametrize(
    ("command", "args"),
    [
        # a sub-hook runs in the call's cwd: after `cd src`, these name src/hooks/check.sh ...
        ("./hooks/check.sh", None),
        ("hooks/check.sh --strict", None),
        ("python3 check.py", None),
        ("python3", ("check.py",)),
        ("python3", ("hooks/guard.py",)),
        # a path only the hook's shell knows
        ("$HOOKS/check.sh", None),
        ("python3 ${HOME}/hooks/x.py", None),
    ],
)
def test_a_hook_script_the_agent_can_swap_is_no_wall(
    tmp_path: Path, command: str, args: tuple[str, ...] | None
) -> None:
    missing = judged_with(tmp_path, command, args)
    # a script in the project's own directory: also named for the modules beside it (below)
    swappable = [gap for gap in missing if "beside it" not in gap]
    assert len(swappable) == 1 and "${CLAUDE_PROJECT_DIR}" in swappable[0], missing
    assert (len(missing) == 2) is ("check.py" in (command, *(args or ()))[-1]), missing


def test_ccbridge_s_own_code_inside_the_project_is_no_wall(tmp_path: Path) -> None:
    # A venv (or a checkout installed with -e) in the project: a sandboxed command may rewrite
    # the package or drop a `.pth` file, and the next hook call runs it outside the sandbox.
    project = tmp_path / "p"
    inside = [str(project / ".venv"), str(project / "src" / "bridge")]
    assert len(list(wall.code_gaps(str(project), inside))) == 2
    assert list(wall.code_gaps(str(project), ["/opt/venv", str(tmp_path / "p2")])) == []
    assert any("own code" in gap for gap in wall.judge(ENV, str(REPO))[1])
    assert not any("own code" in gap for gap in wall.judge(ENV, str(project))[1])


def test_the_modules_beside_a_hook_script_are_kept_or_named(tmp_path: Path) -> None:
    env = {**ENV, "HOME": str(tmp_path / "h")}
    project = str(tmp_path / "p")
    hooks = {"PreToolUse": (spec("python3 ${CLAUDE_PROJECT_DIR}/hooks/guard.py"),)}
    keep = wall.protected(env, project, hooks)
    named = [gap for gap in wall.hook_gaps(hooks, env, project) if "beside" in gap]
    assert f"{project}/hooks" in keep.write or named


def test_the_plugin_folders_every_settings_layer_names_are_kept(tmp_path: Path) -> None:
    home, project = tmp_path / "h", tmp_path / "p"
    managed = tmp_path / "etc" / "managed-settings.d"
    env = {**ENV, "HOME": str(home), "CCBRIDGE_MANAGED_DIR": str(managed)}
    env["CLAUDE_CODE_PLUGIN_DIRS"] = "/from/env:"

    def market(kind: str, path: str, **more: str) -> dict[str, Any]:
        return {"source": {"source": kind, "path": path}, **more}

    layers = {
        home / ".claude" / "settings.json": {
            "extraKnownMarketplaces": {"a": market("directory", "~/markets/a")},
            "env": {"CLAUDE_CODE_PLUGIN_DIRS": "/x/one:/x/two"},
        },
        project / ".claude" / "settings.json": {
            "extraKnownMarketplaces": {
                "b": market("directory", "./tools/b"),
                "gh": {"source": {"source": "github", "repo": "o/r", "path": "not/a/folder"}},
            }
        },
        project / ".claude" / "settings.local.json": {
            "additionalMarketplaces": {"c": market("file", "/m/c/.claude-plugin/marketplace.json")}
        },
        managed.parent / "managed-settings.json": {
            "extraKnownMarketplaces": {"d": market("file", "/m/d.json", installLocation="/cache/d")}
        },
        managed / "20-org.json": {"extraKnownMarketplaces": {"e": market("directory", "/org/e")}},
        managed / ".hidden.json": {"extraKnownMarketplaces": {"f": market("directory", "/no")}},
        home / ".claude" / "plugins" / "known_marketplaces.json": {"g": market("directory", "/g")},
    }
    for path, data in layers.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data))
    found = wall.plugin_dirs(env, str(project))
    assert found == [
        "/from/env",
        "/x/one",
        "/x/two",
        f"{home}/markets/a",
        f"{project}/tools/b",
        "/m/c/.claude-plugin/marketplace.json",
        "/m/c",
        "/cache/d",
        "/m/d.json",
        "/org/e",
        "/g",
    ]
    keep = wall.protected(env, str(project))
    assert set(found) <= set(keep.write)
    assert "/m/d.json" not in keep.trees and "/org/e" in keep.trees


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=8)
    | st.sampled_from(
        ["directory", "file", "~", "./x", "/abs/y", "a:b", ".claude-plugin/marketplace.json"]
    ),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["source", "path", "installLocation", "CLAUDE_CODE_PLUGIN_DIRS", "m"]),
            inner,
            max_size=3,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["extraKnownMarketplaces", "additionalMarketplaces", "env", "hooks"]),
        JSON,
        max_size=3,
    )
)
def test_any_settings_content_gives_absolute_folders_and_no_error(data: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        home, project = Path(scratch) / "h", Path(scratch) / "p"
        (home / ".claude").mkdir(parents=True)
        (home / ".claude" / "settings.json").write_text(json.dumps(data))
        env = {**ENV, "HOME": str(home), "CCBRIDGE_MANAGED_DIR": f"{scratch}/m.d"}
        found = wall.plugin_dirs(env, str(project))
    assert all(path.startswith("/") and "//" not in path for path in found), found
    assert len(set(found)) == len(found)


def code_world(tmp_path: Path) -> tuple[dict[str, str], str]:
    """A home and a project with hook scripts of several kinds in place."""
    home, project = tmp_path / "h", tmp_path / "p"
    files = {
        "p/hooks/guard.py": "import json\n",
        "p/hooks/check.sh": "#!/bin/sh\nexit 0\n",
        "p/hooks/run": "#!/usr/bin/env python3\nimport json\n",
        "p/hooks/hook.js": "require('fs')\n",
        "p/root_guard.py": "import json, helper as h\nfrom yaml import safe_load\n",
        "h/.claude/hooks/user.py": "import json\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return {**ENV, "HOME": str(home)}, str(project)


@pytest.mark.parametrize(
    ("command", "args", "tree"),
    [
        ("python3 ${CLAUDE_PROJECT_DIR}/hooks/guard.py", None, "p/hooks"),
        ("python3.12 -u -W ignore ${CLAUDE_PROJECT_DIR}/hooks/guard.py --strict", None, "p/hooks"),
        ('"$CLAUDE_PROJECT_DIR"/hooks/check.sh', None, "p/hooks"),
        ("bash -e ${CLAUDE_PROJECT_DIR}/hooks/check.sh", None, "p/hooks"),
        ("env X=1 timeout 5 sh ${CLAUDE_PROJECT_DIR}/hooks/check.sh", None, "p/hooks"),
        ("${CLAUDE_PROJECT_DIR}/hooks/run", None, "p/hooks"),  # a `#!` script run directly
        ("node --require r ${CLAUDE_PROJECT_DIR}/hooks/hook.js", None, "p/hooks"),
        ("uv run ${CLAUDE_PROJECT_DIR}/hooks/guard.py", None, "p/hooks"),  # by its suffix
        ("cat | python3 ${CLAUDE_PROJECT_DIR}/hooks/guard.py", None, "p/hooks"),
        ("python3 ~/.claude/hooks/user.py", None, "h/.claude/hooks"),
        ("python3", ("{tmp}/p/hooks/guard.py",), "p/hooks"),
        ("{tmp}/p/hooks/check.sh", ("--strict",), "p/hooks"),
    ],
)
def test_the_directory_a_hook_script_loads_from_is_walled(
    tmp_path: Path, command: str, args: tuple[str, ...] | None, tree: str
) -> None:
    env, project = code_world(tmp_path)
    args = None if args is None else tuple(a.replace("{tmp}", str(tmp_path)) for a in args)
    command = command.replace("{tmp}", str(tmp_path))
    hooks = {"PreToolUse": (spec(command, args),)}
    keep = wall.protected(env, project, hooks)
    kept = str(tmp_path / tree)
    assert kept in keep.write and kept in keep.trees
    assert f"Edit(/{kept}/**)" in wall.additions(keep, env)["deny"]
    assert list(wall.hook_gaps(hooks, env, project)) == []
    assert judged_with(tmp_path, command, args) == []


def test_a_script_in_the_project_s_own_directory_keeps_what_it_imports_and_is_named(
    tmp_path: Path,
) -> None:
    # Keeping the project's directory would forbid every edit: the gap is named instead, and
    # the module files its imports would find beside it are kept.
    env, project = code_world(tmp_path)
    hooks = {"PreToolUse": (spec("python3 ${CLAUDE_PROJECT_DIR}/root_guard.py"),)}
    keep = wall.protected(env, project, hooks)
    assert project not in keep.write
    for module in ("json", "helper", "yaml"):
        assert f"{project}/{module}.py" in keep.write and f"{project}/{module}" in keep.trees
        assert f"{project}/{module}.pyc" in keep.write
    assert f"{project}/other.py" not in keep.write
    (gap,) = wall.hook_gaps(hooks, env, project)
    assert "root_guard.py" in gap and "beside it" in gap and "directory of its own" in gap


@pytest.mark.parametrize(
    ("command", "said"),
    [
        ("python3 -m hookpkg", "current directory on its module path"),
        ("python3 -c 'import hookpkg'", "current directory on its module path"),
        ("node -e \"require('./x')\"", "current directory on its module path"),
        ("python3 ${CLAUDE_PROJECT_DIR}/hooks/*.py", "a pattern"),
        ("${CLAUDE_PROJECT_DIR}/.venv/bin/python ${CLAUDE_PROJECT_DIR}/hooks/guard.py", "venv"),
        ("python3 ~/guard.py", "the home directory"),
        ("python3 'unclosed", "cannot be read"),
        ("python3 $SCRIPT", "'$SCRIPT', a path only known when it runs"),
        ("$RUNNER --check", "'$RUNNER', a path only known when it runs"),
    ],
)
def test_hook_code_the_wall_cannot_keep_is_named(tmp_path: Path, command: str, said: str) -> None:
    env, project = code_world(tmp_path)
    hooks = {"PreToolUse": (spec(command),)}
    gaps = list(wall.hook_gaps(hooks, env, project))
    assert any(said in gap.replace("virtual environment", "venv") for gap in gaps), gaps


def test_safe_path_python_code_and_system_scripts_name_nothing(tmp_path: Path) -> None:
    env, project = code_world(tmp_path)
    for command in ("python3 -I -c 'import json'", "python3 -P -m json.tool", "/usr/bin/true"):
        hooks = {"PreToolUse": (spec(command),)}
        assert list(wall.hook_gaps(hooks, env, project)) == [], command
        assert wall.hook_trees(hooks, env, project) == [], command


def test_what_a_shell_hook_sources_is_kept_or_named(tmp_path: Path) -> None:
    env, project = code_world(tmp_path)
    script = Path(project) / "tools" / "hook.sh"
    script.parent.mkdir()
    script.write_text(
        "#!/bin/bash\n"
        '. "$(dirname "$0")/lib.sh"\n'  # beside it: in the kept directory
        'source "${0%/*}/../lib/common.sh"\n'  # outside it: kept by name
        'DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"\n'
        'if true; then source "$DIR/../shared/env.sh"; fi\n'
        'source "$CLAUDE_PROJECT_DIR/conf/vars.sh"\n'
        '. "${BASH_SOURCE[0]%/*}/../more/a.sh"; source $HOME/.hookrc\n'
        f"source {project}/abs/b.sh\n"
        "source ./local.sh\n"  # from the current directory: named
        ". lib.sh\n"  # (searched on PATH, then in the current directory): named
        'source "$OTHER/x.sh"\n'  # only known when it runs: named
    )
    hooks = {"PreToolUse": (spec('"$CLAUDE_PROJECT_DIR"/tools/hook.sh'),)}
    kept = wall.hook_scripts(hooks, env, project)
    for name in ("tools", "lib/common.sh", "shared/env.sh", "conf/vars.sh", "more/a.sh"):
        assert f"{project}/{name}" in kept, name
    assert f"{env['HOME']}/.hookrc" in kept and f"{project}/abs/b.sh" in kept
    assert f"{project}/tools/lib.sh" not in kept  # (inside the kept directory)
    gaps = list(wall.hook_gaps(hooks, env, project))
    assert len(gaps) == 3 and "'./local.sh' from the current directory" in gaps[0]
    assert "'lib.sh' from the current directory" in gaps[1]
    assert "'$OTHER/x.sh', a path only known when it runs" in gaps[2]


def test_what_a_node_hook_requires_is_kept_or_named(tmp_path: Path) -> None:
    env, project = code_world(tmp_path)
    (Path(project) / "js").mkdir()
    (Path(project) / "js" / "hook.mjs").write_text(
        "import fs from 'node:fs';\nimport { x } from '../shared/util.js';\n"
        "const path = require('path');\nconst _ = require('lodash');\n"
        "export const name = 'not-a-module';\n"
    )
    hooks = {"PreToolUse": (spec("node ${CLAUDE_PROJECT_DIR}/js/hook.mjs"),)}
    kept = wall.hook_scripts(hooks, env, project)
    assert f"{project}/js" in kept and f"{project}/shared/util.js" in kept
    (gap,) = wall.hook_gaps(hooks, env, project)
    assert "'lodash'" in gap and "node_modules" in gap and "not-a-module" not in gap


def test_a_symlinked_hook_script_keeps_the_directory_it_points_into(tmp_path: Path) -> None:
    env, project = code_world(tmp_path)
    (Path(project) / ".claude" / "hooks").mkdir(parents=True)
    (Path(project) / ".claude" / "hooks" / "g.py").symlink_to(Path(project) / "hooks" / "guard.py")
    hooks = {"PreToolUse": (spec("python3 ${CLAUDE_PROJECT_DIR}/.claude/hooks/g.py"),)}
    trees = wall.hook_trees(hooks, env, project)
    assert trees == [f"{project}/.claude/hooks", f"{project}/hooks"]


def test_a_fifo_in_a_hook_script_s_place_is_named_not_waited_for(tmp_path: Path) -> None:
    # Reading a FIFO waits for a writer: the compile (on a hook call's cache miss) would hang.
    import os
    import signal

    env, project = code_world(tmp_path)
    os.mkfifo(Path(project) / "hooks" / "fifo.sh")
    hooks = {"PreToolUse": (spec("bash ${CLAUDE_PROJECT_DIR}/hooks/fifo.sh"),)}
    signal.signal(signal.SIGALRM, signal.default_int_handler)
    signal.alarm(10)
    try:
        gaps = list(wall.hook_gaps(hooks, env, project))
    finally:
        signal.alarm(0)
    assert len(gaps) == 1 and "fifo.sh cannot be read (not a regular file" in gaps[0], gaps
    assert f"{project}/hooks" in wall.hook_trees(hooks, env, project)


def test_what_the_named_files_name_in_turn_is_kept_or_named(tmp_path: Path) -> None:
    env, project = code_world(tmp_path)
    files = {
        "hooks/g.sh": '. "$(dirname "$0")/lib.sh"\n',
        # sourced: `$0` is still hooks/g.sh, BASH_SOURCE is this file
        "hooks/lib.sh": 'source "${BASH_SOURCE[0]%/*}/../shared/deep.sh"\nsource ./cwd.sh\n',
        "shared/deep.sh": 'source "$(dirname "$0")/../tools/zero.sh"\n',
        "js/hook.js": "require('../shared/util')\n",
        "shared/util.js": "require('./more'); require('left-pad')\n",
        "shared/more.js": "",
    }
    for name, text in files.items():
        (Path(project) / name).parent.mkdir(parents=True, exist_ok=True)
        (Path(project) / name).write_text(text)
    hooks = {
        "PreToolUse": (
            spec("bash ${CLAUDE_PROJECT_DIR}/hooks/g.sh"),
            spec("node ${CLAUDE_PROJECT_DIR}/js/hook.js"),
        )
    }
    kept = wall.hook_scripts(hooks, env, project)
    for name in ("shared/deep.sh", "tools/zero.sh", "shared/util.js", "shared/more.js"):
        assert f"{project}/{name}" in kept, name
    gaps = list(wall.hook_gaps(hooks, env, project))
    assert len(gaps) == 2, gaps
    assert "lib.sh loads './cwd.sh' from the current directory" in gaps[0]
    assert "'left-pad'" in gaps[1]


def test_a_chain_of_named_files_is_read_to_a_bound(tmp_path: Path) -> None:
    env, project = code_world(tmp_path)
    chain = Path(project) / "chain"
    chain.mkdir()
    for n in range(wall.MAX_NAMED_FILES + 5):
        (chain / f"{n}.sh").write_text(f'. "$CLAUDE_PROJECT_DIR/lib{n + 1}/{n + 1}.sh"\n')
        (Path(project) / f"lib{n}").mkdir()
        (Path(project) / f"lib{n}" / f"{n}.sh").write_text(
            f'. "$CLAUDE_PROJECT_DIR/lib{n + 1}/{n + 1}.sh"\n'
        )
    hooks = {"PreToolUse": (spec("bash ${CLAUDE_PROJECT_DIR}/chain/0.sh"),)}
    gaps = list(wall.hook_gaps(hooks, env, project))
    assert gaps == [
        f"the hook script {chain}/0.sh loads more than {wall.MAX_NAMED_FILES} files, "
        "more than ccbridge reads"
    ]
