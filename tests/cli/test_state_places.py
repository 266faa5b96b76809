"""Where ccbridge keeps its state and cache, as docs/setup.md says: $CCBRIDGE_STATE_DIR, else
$XDG_STATE_HOME/ccbridge, else ~/.local/state/ccbridge (the cache alike), seen through the
install record the real executable writes and the cache entry a hook call leaves."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.sandbox import Sandbox, encode, pre_tool_use

VARIABLES = ("CCBRIDGE_STATE_DIR", "CCBRIDGE_CACHE_DIR", "XDG_STATE_HOME", "XDG_CACHE_HOME")


@pytest.mark.parametrize("given", ["ccbridge", "xdg", "neither"])
def test_state_and_cache_places_in_their_order(sandbox: Sandbox, given: str) -> None:
    env = {k: v for k, v in sandbox.env.items() if k not in VARIABLES}
    places = {
        "ccbridge": (sandbox.root / "own-state", sandbox.root / "own-cache"),
        "xdg": (sandbox.root / "xdg-state" / "ccbridge", sandbox.root / "xdg-cache" / "ccbridge"),
        "neither": (sandbox.home / ".local/state/ccbridge", sandbox.home / ".cache/ccbridge"),
    }
    state, cache = places[given]
    if given == "ccbridge":
        env.update(CCBRIDGE_STATE_DIR=str(state), CCBRIDGE_CACHE_DIR=str(cache))
        env.update(XDG_STATE_HOME=str(sandbox.root / "no"), XDG_CACHE_HOME=str(sandbox.root / "no"))
    elif given == "xdg":
        env.update(XDG_STATE_HOME=str(state.parent), XDG_CACHE_HOME=str(cache.parent))
    sandbox.env = env
    assert sandbox.run("install", "--no-sandbox").returncode == 0
    assert list((state / "installs").glob("*.json"))
    sandbox.call_executable(
        None, encode(pre_tool_use("ls")), {"CLAUDE_PROJECT_DIR": str(sandbox.project)}
    )
    assert list(Path(cache).glob("config-*.sealed")), list(Path(cache).parent.rglob("*"))
    assert not (sandbox.root / "no").exists()
