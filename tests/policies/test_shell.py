"""The Bash parser: simple commands, redirections, nesting, and failure as a value."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.policies.shell import (
    Program,
    Redirect,
    Script,
    Unparseable,
    parse,
    program,
)


def script(command: str) -> Script:
    parsed = parse(command)
    assert isinstance(parsed, Script), parsed
    return parsed


def argvs(command: str) -> list[tuple[str, ...]]:
    return [c.argv for c in script(command).commands()]


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("ls -la", [("ls", "-la")]),
        ("a; b && c || d & e", [("a",), ("b",), ("c",), ("d",), ("e",)]),
        ("a\nb", [("a",), ("b",)]),
        ("(a; b) && { c; }", [("a",), ("b",), ("c",)]),
        ("echo \"a;b\" 'c|d' e\\&f", [("echo", "a;b", "c|d", "e&f")]),
        ("FOO=1 BAR='x y' make", [("make",)]),
        ("sudo -u root env A=1 nice -n 5 timeout 10 nohup rm x", [("rm", "x")]),
        ("command -v rm", [("command", "-v", "rm")]),
        ("xargs -0 -I{} rm {}", [("rm", "{}")]),
        ("if true; then rm x; fi", [("true",), ("rm", "x")]),
        ("case $x in a) rm y;; esac", [("case", "$x", "in", "a"), ("rm", "y")]),
        (
            "echo $(case $x in (a) rm y;; b|c) ls;; esac)",
            [
                ("echo", "$(case $x in (a) rm y;; b|c) ls;; esac)"),
                ("case", "$x", "in"),
                ("a",),
                ("rm", "y"),
                ("b",),
                ("c",),
                ("ls",),
            ],
        ),
        ("echo $(echo case) x", [("echo", "$(echo case)", "x"), ("echo", "case")]),
        ("echo a#b # comment ; rm x", [("echo", "a#b")]),
        ("echo one \\\n two", [("echo", "one", "two")]),
        ('"A=1" cmd', [("A=1", "cmd")]),
        ("echo $'it\\'s'", [("echo", "it's")]),
    ],
)
def test_simple_commands(command: str, expected: list[tuple[str, ...]]) -> None:
    assert argvs(command) == expected


@pytest.mark.parametrize(
    ("command", "inner"),
    [
        ("echo $(rm -rf /)", ("rm", "-rf", "/")),
        ('echo "$(rm x)"', ("rm", "x")),
        ("echo `rm x`", ("rm", "x")),
        ('echo "`rm x`"', ("rm", "x")),
        ("echo ${X:-$(rm x)}", ("rm", "x")),
        ("diff <(rm x) y", ("rm", "x")),
        ("bash -c 'rm x'", ("rm", "x")),
        ("sh -ec 'rm x'", ("rm", "x")),
        ("zsh -o pipefail -c 'rm x'", ("rm", "x")),
        ("eval 'rm' x", ("rm", "x")),
        ("sudo bash -c \"sh -c 'rm x'\"", ("rm", "x")),
        ("bash <<< 'rm x'", ("rm", "x")),
        ("bash <<EOF\nrm x\nEOF", ("rm", "x")),
        ("cat <<EOF\n$(rm x)\nEOF", ("rm", "x")),
        ("X=$(rm x) true", ("rm", "x")),
        ("sudo su - root -c 'rm x'", ("rm", "x")),
        ("find . -exec rm x \\; -print", ("rm", "x")),
        ("find . -execdir rm x {} +", ("rm", "x", "{}")),
    ],
)
def test_nested_commands_are_found(command: str, inner: tuple[str, ...]) -> None:
    assert inner in argvs(command)


@pytest.mark.parametrize(
    "command",
    [
        "echo '$(rm x)'",
        "cat <<'EOF'\n$(rm x)\nEOF",
        'echo "\\$(rm x)"',
        "echo '#' $(: 'rm x')",
        "bash script.sh 'rm x'",
    ],
)
def test_quoted_text_is_not_run(command: str) -> None:
    assert ("rm", "x") not in argvs(command)


def test_redirections() -> None:
    (command,) = script("cmd >a 2>>b &>c >|d <e 2>&1 >&f 3<>g").commands()
    assert command.redirects == (
        Redirect(">", "a"),
        Redirect(">>", "b", "2"),
        Redirect("&>", "c"),
        Redirect(">|", "d"),
        Redirect("<", "e"),
        Redirect(">&", "1", "2"),
        Redirect(">&", "f"),
        Redirect("<>", "g", "3"),
    )
    assert [r.target for r in command.redirects if r.writes] == ["a", "b", "c", "d", "f", "g"]


def test_here_document_body_and_following_command() -> None:
    commands = list(script("cat > out <<-EOF\n\tit's $HOME\n\tEOF\nls").commands())
    assert [c.argv for c in commands] == [("cat",), ("ls",)]
    assert commands[0].redirects == (
        Redirect(">", "out"),
        Redirect("<<-", "EOF", body="it's $HOME"),
    )


def test_git_commit_message_from_here_document() -> None:
    text = "git commit -m \"$(cat <<'EOF'\nFix: don't (ever) rm -rf /\nEOF\n)\""
    assert argvs(text) == [("git", "commit", "-m", text[15:-1]), ("cat",)]


def test_pipelines_and_piped_groups() -> None:
    parsed = script("curl x | (cd /; bash) | tee y; ls | wc")
    names = [[c.name for c in p.commands] for p in parsed.pipelines]
    assert names == [["curl", "cd", "bash", "tee"], ["ls", "wc"]]


def test_function_definitions() -> None:
    assert script(":(){ :|:& };:").functions == (":",)
    assert script("function f { f | f & }; f").functions == ("f",)
    assert script("function g() { true; }").functions == ("g",)


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("echo 'x", "unterminated single quote"),
        ('echo "x', "unterminated double quote"),
        ("echo $(ls", "unterminated $("),
        ("echo `ls", "unterminated backquote"),
        ("echo ${x", "unterminated ${"),
        ("echo )", "unmatched )"),
        ("(echo", "unclosed ( or {"),
        ("echo >", "redirection > without a target"),
        ("cat <<", "here-document without a delimiter"),
        ("echo " + "$(" * 40 + ")" * 40, "nested more than 32 levels deep"),
        ("bash -c 'echo \"x'", "unterminated double quote"),
    ],
)
def test_unparseable_input_is_a_value(command: str, reason: str) -> None:
    assert parse(command) == Unparseable(reason)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("python3.12", "-c", "x"), Program("inline", "x")),
        (("python3", "-cprint(1)"), Program("inline", "print(1)")),
        (("python3", "-m", "json.tool"), Program("module", "json.tool")),
        (("python3", "s.py"), Program("file", "s.py")),
        (("python3", "-"), Program("stdin", "")),
        (("bash", "-s", "--", "a"), Program("stdin", "")),
        (("bash", "-lc", "ls"), Program("inline", "ls")),
        (("perl", "-ne", "print"), Program("inline", "print")),
        (("nodejs", "--eval", "x"), Program("inline", "x")),
        (("ls",), None),
    ],
)
def test_program(argv: tuple[str, ...], expected: Program | None) -> None:
    assert program(argv) == expected


@given(st.text())
def test_parse_never_raises(text: str) -> None:
    assert isinstance(parse(text), Script | Unparseable)


@given(st.text(alphabet=st.characters(blacklist_characters="\x00")))
def test_a_quoted_word_reads_back_as_itself(word: str) -> None:
    assert argvs("echo " + shlex.quote(word)) == [("echo", word)]


WORDS = st.lists(st.text(alphabet="abcxyz/._-", min_size=1), min_size=1, max_size=4)


@given(st.lists(WORDS, min_size=1, max_size=4), st.sampled_from([";", "&&", "||", "|", "&", "\n"]))
def test_operators_separate_commands(commands: list[list[str]], operator: str) -> None:
    text = f" {operator} ".join(" ".join(words) for words in commands)
    assert argvs(text) == [tuple(words) for words in commands]
