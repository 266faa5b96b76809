"""Spellings of the tripwire's causes the main corpus (test_self_protection_corpus.py) lacked,
each with look-alikes that must still pass: Python's glued `-m` (`-mbridge`, `-Im bridge`),
git config handed in through `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, and an awk program that
writes to a file it computes (a `-v` value, `ARGV[1]`, `FILENAME`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.guards.protect.test_self_protection_corpus import World, ccbridge_run, judge, world

__all__ = ["judge", "world"]  # the corpus's fixtures, used here by name

REFUSED = [
    "python3 -mbridge uninstall --user",
    "python3 -Im bridge uninstall",
    "python3 -Imbridge run < ev.json",
    "python3 -Bmrunpy bridge uninstall",
    "python3 -X dev -sm bridge.main uninstall",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -rf .claude' "
    "git status",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.st GIT_CONFIG_VALUE_0='!rm -rf ~/.claude' git st",
    "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager "
    "GIT_CONFIG_VALUE_0='cp x .claude/settings.json' git log",
    "awk -v f=.claude/settings.json 'BEGIN{print \"{}\" > f}'",
    "awk 'BEGIN{print \"{}\" > ARGV[1]}' .claude/settings.json",
    "awk '{print > FILENAME}' .claude/settings.json",
    "gawk 'BEGIN { printf \"{}\" >> t }' t=.claude/settings.local.json",
]

BENIGN = [
    "python3 -m pytest -q",
    "python3 -Im venv .venv",
    "python3 -mjson.tool data.json",
    "git commit -m 'bridge the gap'",
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=me git log",
    "awk -v f=out.txt '{print > f}' data.csv",
    "awk '{print $1}' .claude/settings.json",
]


@pytest.mark.parametrize("command", REFUSED)
def test_a_new_spelling_is_refused(judge: Callable[[str], str | None], command: str) -> None:
    reason = judge(command)
    assert reason is not None and reason.startswith("ccbridge self-protection"), reason


@pytest.mark.parametrize("command", BENIGN)
def test_its_look_alikes_pass(judge: Callable[[str], str | None], command: str) -> None:
    assert judge(command) is None


@pytest.mark.parametrize("command", REFUSED[::4])
def test_the_real_executable_refuses_them(world: World, command: str) -> None:
    done = ccbridge_run(world, command)
    assert done.returncode == 2 and "self-protection" in done.stderr, done


def test_a_variable_of_many_words_is_judged_in_bounded_time(
    judge: Callable[[str], str | None],
) -> None:
    # Under the reader's cap, split three times: 126 s before the parser was linear (the call's
    # deadline cut it at 54 s, a deny); about 8 s now on a shared core.
    import time

    started = time.monotonic()
    assert judge("x='" + "a " * 30000 + "'; true $x $x $x") is None
    assert time.monotonic() - started < 30
