"""A key written twice in one mapping of ccbridge.yaml, at any level, is a config error naming
both lines: YAML itself keeps the last and drops the first without a word (a second `hooks:`
appended to a file switched every hook of the first block off)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from hypothesis import given
from hypothesis import strategies as st

from bridge.config.build import problems_of
from tests.support.sandbox import Sandbox, encode, pre_tool_use

KEYS = st.sampled_from(["hooks", "audit", "keep", "matcher", "name", "a", "b"])
TREE: st.SearchStrategy[Any] = st.recursive(
    st.integers(0, 9) | st.text("xyz", max_size=3),
    lambda inner: (
        st.lists(inner, min_size=1, max_size=3)
        | st.dictionaries(KEYS, inner, min_size=1, max_size=3)
    ),
    max_leaves=12,
)


def render(tree: Any, indent: int, lines: list[str], entries: list[tuple[int, int]]) -> None:
    """Block-style YAML, one key per line; `entries` gets each mapping entry's line range."""
    pad = " " * indent
    if isinstance(tree, dict):
        for key, value in tree.items():
            start = len(lines)
            if isinstance(value, dict | list):
                lines.append(f"{pad}{key}:")
                render(value, indent + 2, lines, entries)
            else:
                lines.append(f"{pad}{key}: {json.dumps(value)}")
            entries.append((start, len(lines)))
    else:
        for item in tree:
            if isinstance(item, dict | list):
                lines.append(f"{pad}-")
                render(item, indent + 2, lines, entries)
            else:
                lines.append(f"{pad}- {json.dumps(item)}")


@given(st.dictionaries(KEYS, TREE, min_size=1, max_size=3), st.data())
def test_a_duplicate_key_at_any_level_names_both_lines(top: dict[str, Any], data: Any) -> None:
    lines: list[str] = []
    entries: list[tuple[int, int]] = []
    render(top, 0, lines, entries)
    assert yaml.safe_load("\n".join(lines)) == top  # the rendering says what the tree says
    start, end = data.draw(st.sampled_from(entries))
    doubled = lines[:end] + lines[start:end] + lines[end:]  # the entry again, right after it
    problems = problems_of(Path("c.yaml"), ("\n".join(doubled) + "\n").encode())
    key = lines[start].split(":")[0].strip()
    said = [problem for problem in problems if "duplicate key" in problem.message]
    assert len(said) == 1, (doubled, problems)
    assert said[0].line == end + 1
    assert f"duplicate key `{key}` (first at line {start + 1})" in said[0].message


def test_the_same_keys_in_different_mappings_are_fine() -> None:
    group = "    - matcher: Bash\n      hooks: [{type: command, command: 'true'}]\n"
    text = "hooks:\n  PreToolUse:\n" + group + group + "audit:\n  keep: 3\n"
    assert problems_of(Path("c.yaml"), text.encode()) == []


def test_check_and_a_hook_call_refuse_a_second_hooks_block(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    first = "hooks:\n  PreToolUse:\n    - hooks:\n        - {type: command, command: 'true'}\n"
    config = sandbox.write(sandbox.root / "c.yaml", first + "hooks:\n  Stop: []\n")
    done = sandbox.run("check", "--config", str(config))
    assert done.returncode == 1
    assert f"{config}:5: duplicate key `hooks` (first at line 1)" in done.stdout
    outcome = sandbox.call_executable(config, encode(pre_tool_use("ls")))
    assert outcome.exit_code in (0, 2) and outcome.decision == "deny"
    assert "duplicate key `hooks` (first at line 1)" in outcome.reason
    assert ":5:" in outcome.reason
