from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.subhooks import matcher as matcher_module
from bridge.subhooks.if_rule import IfRuleError, if_matches
from bridge.subhooks.matcher import MatcherError, matches


@pytest.fixture(autouse=True)
def no_compiled_matchers() -> None:
    """Each test compiles its matchers anew: a cache filled by an earlier test (or, under
    mutation testing, by the unmutated run) would answer for the code under test."""
    matcher_module._compiled.clear()


@pytest.mark.parametrize(
    ("matcher", "tool", "hit"),
    [
        (None, "Bash", True),
        ("", "Write", True),
        ("*", "mcp__a__b", True),
        ("Bash", "Bash", True),
        ("Bash", "bash", False),
        ("Bash", "BashOutput", False),
        ("Write|Edit", "Edit", True),
        ("Write|Edit", "NotebookEdit", False),
        ("Write, Edit", "Write", True),
        ("Write , Bash", "Bash", True),
        ("Edit.*", "NotebookEdit", True),
        ("Edit.*", "Edit", True),
        ("^Edit$", "NotebookEdit", False),
        ("mcp__.*", "mcp__github__create_issue", True),
        ("mcp__.*", "Bash", False),
        ("Notebook.*|Write", "Write", True),
    ],
)
def test_cc_matcher_rules(matcher: str | None, tool: str, hit: bool) -> None:
    assert matches(matcher, tool) is hit


def test_bad_regex_is_an_error() -> None:
    with pytest.raises(MatcherError, match=r"matcher 'Edit\(\[' is not a valid regular exp"):
        matches("Edit([", "Edit")


@pytest.mark.parametrize(
    ("rule", "tool", "tool_input", "hit"),
    [
        (None, "Bash", {}, True),
        ("Bash", "Bash", {"command": "ls"}, True),
        ("Bash", "Write", {}, False),
        ("Bash(git *)", "Bash", {"command": "git push"}, True),
        ("Bash(git *)", "Bash", {"command": "echo hi"}, False),
        ("Bash(git *)", "Bash", {"command": "cd x && git status"}, True),
        ("Bash(git:*)", "Bash", {"command": "git log"}, True),
        ("Bash(rm *)", "Bash", {"command": "echo 'rm -rf x'"}, False),
        ("Edit(*.py)", "Edit", {"file_path": "/p/src/a.py"}, True),
        ("Edit(*.py)", "Edit", {"file_path": "/p/src/a.js"}, False),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com/x"}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://other.org/"}, False),
        # The host as a URL parser reads it: user and password, case, port, no scheme.
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://me@example.com/"}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://u:p@example.com:8/"}, True),
        ("WebFetch(domain:evil.org)", "WebFetch", {"url": "https://evil.org@example.com/"}, False),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "HTTPS://EXAMPLE.COM/x"}, True),
        ("WebFetch(domain:Example.com)", "WebFetch", {"url": "https://example.com/x"}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "example.com/x"}, True),
        ("WebFetch(domain:*.example.com)", "WebFetch", {"url": "http://a.example.com:80"}, True),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "https://example.com.evil/"}, False),
        ("WebFetch(domain:example.com)", "WebFetch", {"url": "http://[::1/"}, True),  # unreadable
        ("WebFetch(domain:other.org)", "WebFetch", {"url": "example.com/x"}, False),
        ("WebFetch(https://x/*)", "WebFetch", {"url": "https://other/"}, True),  # not a domain
        ("WebSearch(anything)", "WebSearch", {"query": "x"}, True),  # no field to narrow on
        ("Bash(git:*)", "Bash", {"command": "gix status"}, False),
        ("Bash(rm *)", "Bash", {"command": "echo 'unterminated"}, True),  # cannot tell: run
        ("Bash(*)", "Bash", {"command": ""}, True),
        ("Edit()", "Edit", {"file_path": "/a.py"}, True),
        ("Bash(?*)", "Bash", {}, False),  # no command: no subcommand matches
        ("Edit(src/*.py)", "Edit", {"file_path": "/p/src/a.py"}, True),
    ],
)
def test_if_rules(rule: str | None, tool: str, tool_input: dict[str, str], hit: bool) -> None:
    assert if_matches(rule, tool, tool_input) is hit


def test_bad_if_rule() -> None:
    with pytest.raises(IfRuleError, match=r"'Bash\(git' must look like Tool or Tool\(pattern\)"):
        if_matches("Bash(git", "Bash", {"command": "git"})


def reference_matches(matcher: str, tool: str) -> bool:
    """CC's rule, as its docs state it, with `re` throughout: the matcher now decides the usual
    forms without `re`, and must agree with this everywhere."""
    import re

    if matcher.strip() in ("", "*"):
        return True
    if re.fullmatch(r"[A-Za-z0-9_\-\s,|]+", matcher):
        return tool in {part.strip() for part in re.split(r"[|,]", matcher) if part.strip()}
    try:
        return re.search(matcher, tool) is not None
    except re.error:
        return False


MATCHER_TEXT = st.text(alphabet="Bash Edit|,_-.*\t\u00a0\u2003é(", max_size=14)
TOOLS = st.sampled_from(["Bash", "Edit", "NotebookEdit", "B", "ash", "Edit_", "a-b", "é"])


@given(MATCHER_TEXT, TOOLS)
def test_the_matcher_agrees_with_the_rule_written_with_re(matcher: str, tool: str) -> None:
    try:
        got = matches(matcher, tool)
    except MatcherError:
        got = False
    assert got == reference_matches(matcher, tool)
