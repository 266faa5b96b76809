"""The Bash parser: simple commands, redirections, nesting, and failure as a value."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.shell.runners import Program, program
from bridge.shell.syntax import Redirect, Script, SimpleCommand, Unparseable, parse


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
        Redirect("<<-", "EOF", body="it's $HOME", dynamic=True),  # bash expands the body
    )


@pytest.mark.parametrize(
    ("delimiter", "body", "expands"),
    [
        ("EOF", "$HOME/x", True),
        ("EOF", "`pwd`/x", True),
        ("EOF", "plain/x", False),
        ("'EOF'", "$HOME/x", False),
        ('"EOF"', "$HOME/x", False),
        ("\\EOF", "$HOME/x", False),
        ("E'O'F", "$HOME/x", False),
    ],
)
def test_a_here_document_body_expands_unless_its_delimiter_is_quoted(
    delimiter: str, body: str, expands: bool
) -> None:
    command = next(script(f"cat <<{delimiter}\n{body}\nEOF").commands())
    assert command.redirects == (Redirect("<<", "EOF", body=body, dynamic=expands),)


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


def command(text: str) -> SimpleCommand:
    return next(script(text).commands())


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("$'\\x2f'bin/rm -rf $'\\057'", ("/bin/rm", "-rf", "/")),
        (
            "echo $'\\x72\\155' $'a\\tb' $'\\e' $'\\u00e9' $'\\cA' $'\\q'",
            ("echo", "rm", "a\tb", "\x1b", "é", "\x01", "\\q"),
        ),
        ("echo $'a\\0b'c", ("echo", "ac")),  # bash strings end at a NUL
        ("{rm,-rf,/}", ("rm", "-rf", "/")),
        ("ls /{etc,usr}", ("ls", "/etc", "/usr")),
        ("echo a{b,c{d,e}}f x{a,b,}y", ("echo", "abf", "acdf", "acef", "xay", "xby", "xy")),
        (
            "echo {1..3} {01..3} {a..e..2} {3..1}",
            ("echo", "1", "2", "3", "01", "02", "03", "a", "c", "e", "3", "2", "1"),
        ),
        ("echo {x} {} a{b}c {a,b", ("echo", "{x}", "{}", "a{b}c", "{a,b")),
        ("echo '{a,b}' \\{a,b} \"{\"a,b}", ("echo", "{a,b}", "{a,b}", "{a,b}")),
        ("echo {a,'b c'}", ("echo", "a", "b c")),
        (
            "cat ~ ~/x ~root/y ~nosuchuser/z a=~/w",
            ("cat", "/home/dev", "/home/dev/x", "/root/y", "~nosuchuser/z", "a=/home/dev/w"),
        ),
        ("cat '~'/x ~'root' \"~\"", ("cat", "~/x", "~root", "~")),
        ("find . -exec rm {} \\;", ("find", ".", "-exec", "rm", "{}", ";")),
    ],
)
def test_words_are_expanded_as_bash_does(
    text: str, argv: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/dev")
    assert command(text).argv == argv


@pytest.mark.parametrize(
    ("text", "dynamic"),
    [
        ("ls -la", set()),
        ("x=rm; $x -rf /", {0}),
        ('"$(command -v ccbridge)" run', {0}),
        ("`which rm` -rf x", {0}),
        ("cat${IFS}/etc/passwd", {0}),
        ('rm -rf ${X:?}/ "$HOME" $1 $@', {2, 3, 4, 5}),
        ("ls $(pwd) <(true)", {1, 2}),
        ("rm *.py 'a*' a\\* x? [ab] '[' [ ] a[1]", {1, 4, 5, 9}),
        ("cd ~+ ~- ~", {1, 2}),
        ("echo {$a,b}", {1}),
        ("sudo $CMD x", {0}),
        ("echo $ '$' \"$\"", set()),  # a lone `$` is a plain dollar sign
        ("echo a=$x", {1}),
    ],
)
def test_words_not_known_statically_are_marked(text: str, dynamic: set[int]) -> None:
    found = next(c for c in script(text).commands() if c.argv)
    assert found.dynamic == frozenset(dynamic), found.argv


@pytest.mark.parametrize(
    ("text", "target", "dynamic"),
    [
        ("echo x > out", "out", False),
        ("echo x > $F", "$F", True),
        ('echo x > "$D/f"', "$D/f", True),
        ("echo x > ~/f", "/home/dev/f", False),
        ("echo x > {a,b}", "{a,b}", True),  # bash: ambiguous redirect
        ("echo x > *.txt", "*.txt", True),
        ("cat <<$EOF\nx\n$EOF", "$EOF", False),  # a here-document delimiter is not expanded
    ],
)
def test_redirect_targets_not_known_statically_are_marked(
    text: str, target: str, dynamic: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/dev")
    (redirect,) = command(text).redirects
    assert (redirect.target, redirect.dynamic) == (target, dynamic)


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("flock /tmp/l rm x", ("rm", "x")),
        ("flock -w 3 /tmp/l -c 'rm x'", ("sh", "-c", "rm x")),
        ("taskset -c 0 rm x", ("rm", "x")),
        ("setpriv --reuid 0 rm x", ("rm", "x")),
        ("prlimit --nofile=10 rm x", ("rm", "x")),
        ("strace -f -o log rm x", ("rm", "x")),
        ("unshare -r rm x", ("rm", "x")),
        ("chroot / rm x", ("rm", "x")),
        ("nsenter -t 1 -m rm x", ("rm", "x")),
        ("busybox rm x", ("rm", "x")),
        ("script -qc 'rm x' /dev/null", ("sh", "-c", "rm x")),
        ("flock -n /tmp/l -c 'rm x'", ("sh", "-c", "rm x")),
        ("script -c 'rm x' /dev/null", ("sh", "-c", "rm x")),
    ],
)
def test_wrappers_are_seen_through(text: str, argv: tuple[str, ...]) -> None:
    assert command(text).argv == argv
    assert ("rm", "x") in argvs(text)


def test_a_c_option_of_the_wrapped_command_is_its_own() -> None:
    assert command("flock /tmp/l python3 -c 'rm x'").argv == ("python3", "-c", "rm x")
    assert command("script out.txt").argv == ("script", "out.txt")


def test_xargs_adds_arguments_not_known_statically() -> None:
    assert command("xargs -0 rm -f").more_args
    assert command("find . | parallel rm").argv == ("find", ".")
    assert not command("rm -f x").more_args


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("echo " + "{a,b}" * 11, "brace expansion makes more than 1024 words"),
        ("echo {1..5000}", "brace expansion makes more than 1024 words"),
        ("echo " + "{a,b}" * 200, "more than 128 braces in one word"),
    ],
)
def test_brace_expansion_is_capped(text: str, reason: str) -> None:
    assert parse(text) == Unparseable(reason)


@given(
    st.lists(st.sampled_from(["a", "{", "}", ",", "'q'", "$x", "~", "*", "\\{", ".."]), max_size=12)
)
def test_brace_words_never_raise_and_mark_expansions(pieces: list[str]) -> None:
    parsed = parse("echo " + "".join(pieces))
    if isinstance(parsed, Script):
        for found in parsed.commands():
            for i, word in enumerate(found.argv):
                if "$x" in word or "*" in word:
                    assert i in found.dynamic


@pytest.mark.parametrize(
    ("rule", "command", "runs"),
    [
        ("Bash(cat ~/x*)", "cat ~/xy", True),  # argv holds the home directory; so does the rule
        ("Bash(rm *)", "{rm,-rf,/}", True),
        ("Bash(rm *)", "$x -rf /", True),  # an unknown command name could be rm
        ("Bash(rm *)", "ls -la", False),
    ],
)
def test_if_rules_match_the_expanded_words(
    rule: str, command: str, runs: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bridge.subhooks.if_rule import if_matches

    monkeypatch.setenv("HOME", "/home/dev")
    assert if_matches(rule, "Bash", {"command": command}) is runs


def test_a_line_of_many_words_is_parsed_in_linear_time() -> None:
    # Each word used to copy the command's words so far: 32,000 words (under the reader's
    # 65,536-character cap) took 13 s, where they now take a fraction of a second.
    import time

    from bridge.shell.syntax import parse

    started = time.monotonic()
    parse("echo " + "a " * 32000)
    assert time.monotonic() - started < 5
