"""An unnamed sub-hook is named by its command: whole when short, else its words with their
directories dropped, cut at a word, so the program and what it runs lead the name."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bridge.config.build import hook_name
from bridge.config.schema import Handler


def name_of(command: str) -> str:
    return hook_name(Handler(type="command", command=command))


def test_a_long_command_is_named_by_its_program_and_script() -> None:
    command = "/opt/venvs/tools/bin/python /srv/team/hooks/check_format.py --strict --all --x"
    assert name_of(command) == "python check_format.py --strict --all --x"
    flags = " ".join(f"--allow tool{i}" for i in range(20))
    assert name_of(f"npx -y cc-safety-net {flags}").startswith("npx -y cc-safety-net --allow")


WORDS = st.text("abcdef/-._", min_size=1, max_size=25)


@given(st.lists(WORDS, min_size=1, max_size=12))
def test_a_name_is_short_and_begins_where_the_command_begins(words: list[str]) -> None:
    command = " ".join(words)
    name = name_of(command)
    assert len(name) <= 60
    if len(command) <= 60:
        assert name == command
    else:
        first = words[0].rsplit("/", 1)[-1] if "/" in words[0][1:] else words[0]
        assert name.startswith(first[:58])
