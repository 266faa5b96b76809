"""How the config layers combine: read least specific first (user, project, project-local), a
later layer's `defaults`, `audit` and `goals` keys apply where they tighten what the wider layers
set (a loosening is refused with a warning: tests/robustness/test_config_layers.py), and a more
specific layer cannot undo the user layer's `self_protection: false`."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.config.cache import load
from bridge.config.compiled import CompiledConfig
from bridge.paths import find_config

HOOK = """
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - {{type: command, command: {command}}}
"""


def layers(tmp_path: Path) -> dict[str, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    return {
        "user": home / ".claude/ccbridge.yaml",
        "project": project / ".claude/ccbridge.yaml",
        "local": project / ".claude/ccbridge.local.yaml",
    }


def loaded(tmp_path: Path, texts: dict[str, str]) -> tuple[list[str], CompiledConfig]:
    files = layers(tmp_path)
    for layer, text in texts.items():
        files[layer].parent.mkdir(parents=True, exist_ok=True)
        files[layer].write_text(text)
    paths, how = find_config(None, {"HOME": str(tmp_path / "home")}, tmp_path / "project")
    assert how == "layers"
    return paths, load(paths, None)


def test_the_local_layer_is_read_after_the_project_layer(tmp_path: Path) -> None:
    paths, config = loaded(
        tmp_path,
        {
            "user": HOOK.format(command="user.sh") + "defaults: {timeout: 3}\n",
            "project": HOOK.format(command="project.sh")
            + "defaults: {timeout: 5, approval: none}\naudit: {keep: 2}\ngoals: {enabled: true}\n",
            "local": HOOK.format(command="local.sh")
            + "defaults: {timeout: 7, approval: prompt}\naudit: {keep: 4}\n"
            + "goals: {enabled: false}\n",
        },
    )
    files = layers(tmp_path)
    assert paths == [str(files["user"]), str(files["project"]), str(files["local"])]
    assert config.error is None
    assert [spec.command for spec in config.hooks["PreToolUse"]] == [
        "user.sh",
        "project.sh",
        "local.sh",
    ]
    # Each value is the strictest a layer set on the way down: the project's 5 s and the local
    # layer's 7 s would loosen the user's 3 s, as would the local layer's `approval: prompt`,
    # the smaller `keep`s and the local layer's `goals: {enabled: false}`.
    assert {spec.timeout for spec in config.hooks["PreToolUse"]} == {3.0}
    assert (config.approval, config.audit.keep, config.goals.enabled) == ("none", 5, True)
    refused = [warning.split(": ")[:2] for warning in config.warnings]
    assert [(file.rsplit(":", 1)[0], what) for file, what in refused] == [
        (str(files["project"]), "defaults.timeout"),
        (str(files["project"]), "audit.keep"),
        (str(files["local"]), "defaults.approval"),
        (str(files["local"]), "defaults.timeout"),
        (str(files["local"]), "audit.keep"),
        (str(files["local"]), "goals.enabled"),
    ]


@pytest.mark.parametrize(("wider", "specific"), [("user", "project"), ("user", "local")])
def test_a_more_specific_layer_cannot_undo_a_wider_layers_switch_off(
    tmp_path: Path, wider: str, specific: str
) -> None:
    _paths, config = loaded(
        tmp_path, {wider: "self_protection: false\n", specific: "self_protection: true\n"}
    )
    assert config.error is None
    assert not config.self_protection
    assert config.self_protection_off_in == str(layers(tmp_path)[wider])
