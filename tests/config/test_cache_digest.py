"""The compiled-config cache is keyed by the files' content digest, not only their size and
mtime: an edit that keeps both (an editor restoring the mtime, a checkout, a second edit in
the same clock tick) still runs the new config."""

from __future__ import annotations

import os
from pathlib import Path

from bridge.config.cache import KEY_NAME, Cache, load

from .test_config import HOOK


def test_an_edit_keeping_size_and_mtime_is_not_served_from_the_cache(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "cache", tmp_path / "state" / KEY_NAME)
    path = tmp_path / "ccbridge.yaml"
    path.write_text(HOOK.format(command="one.sh"))
    assert load([path], cache).hooks["PreToolUse"][0].command == "one.sh"
    assert len(list(Path(cache.directory).iterdir())) == 1  # compiled and cached
    before = path.stat()
    path.write_text(HOOK.format(command="two.sh"))  # as long as before
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert load([path], cache).hooks["PreToolUse"][0].command == "two.sh"
