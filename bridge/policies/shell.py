"""Bash command lines as simple commands (argv and redirections), read the way bash reads them.

A small hand-written lexer rather than `shlex`: shlex forgets which characters were quoted (so
`";"` and `;` look alike), splits `2>` and `$(` into pieces and knows no here-documents, and
those are exactly what a guard must get right. `parse` never raises: input it cannot read is an
`Unparseable` value, so callers can fail closed.
"""

from __future__ import annotations

import os
import posixpath
import re
import shlex
from collections.abc import Iterator, Mapping
from itertools import pairwise
from typing import Literal

from bridge.pipeline.record import record

MAX_DEPTH = 32
WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"})

_META = frozenset(" \t\n;&|()<>")
_OPERATORS = (";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "(", ")", "\n")
_REDIRECTS = ("&>>", "<<<", "<<-", "&>", ">>", ">|", "<<", "<>", ">&", "<&", ">", "<")
_KEYWORDS = frozenset({"!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")
# Wrappers that run the rest of their arguments as a command:
# name -> (its options that take a value, positional arguments before the command).
_WRAPPERS: dict[str, tuple[str, int]] = {
    "sudo": ("-u -g -h -p -C -D -r -t -T -U --user --group --host --prompt --chdir --role", 0),
    "doas": ("-u -C", 0),
    "env": ("-u -C -S --unset --chdir --split-string", 0),
    "command": ("", 0),
    "builtin": ("", 0),
    "nohup": ("", 0),
    "setsid": ("", 0),
    "exec": ("-a", 0),
    "nice": ("-n --adjustment", 0),
    "time": ("-f -o --format --output", 0),
    "timeout": ("-s -k --signal --kill-after", 1),
    "stdbuf": ("-i -o -e --input --output --error", 0),
    "ionice": ("-c -n -p -P -u --class --classdata", 0),
    "xargs": (
        "-a -d -E -I -L -n -P -s --arg-file --delimiter --eof --replace --max-lines --max-args"
        " --max-procs --max-chars",
        0,
    ),
}


@record(frozen=True, slots=True)
class Redirect:
    op: str  # ">", ">>", ">|", "&>", "&>>", "<>", "<", "<<", "<<-", "<<<", ">&", "<&"
    target: str  # a file, a descriptor (`2>&1`), or a here-document's delimiter
    fd: str = ""  # the descriptor written before the operator, as in `2>`
    body: str | None = None  # a here-document's text

    @property
    def writes(self) -> bool:
        """Whether the shell opens `target` as a file for writing."""
        if self.op == ">&":  # `>&file` is `&>file`; `>&2` and `>&-` only touch descriptors
            return not (self.target.isdigit() or self.target == "-")
        return self.op in WRITE_OPS


@record(frozen=True, slots=True)
class SimpleCommand:
    argv: tuple[str, ...]  # after leading assignments and wrappers such as sudo, env, timeout N
    redirects: tuple[Redirect, ...] = ()
    words: tuple[str, ...] = ()  # every word as written, quotes removed
    nested: tuple[Script, ...] = ()  # also run: substitutions, `sh -c`/`eval` strings

    @property
    def name(self) -> str:
        return posixpath.basename(self.argv[0]) if self.argv else ""


@record(frozen=True, slots=True)
class Pipeline:
    commands: tuple[SimpleCommand, ...]


@record(frozen=True, slots=True)
class Script:
    pipelines: tuple[Pipeline, ...]
    functions: tuple[str, ...] = ()  # names defined with `f() {...}` or `function f {...}`

    def walk(self) -> Iterator[Script]:
        """This script and every script nested in its commands, depth first."""
        yield self
        for pipeline in self.pipelines:
            for command in pipeline.commands:
                for inner in command.nested:
                    yield from inner.walk()

    def commands(self) -> Iterator[SimpleCommand]:
        for script in self.walk():
            for pipeline in script.pipelines:
                yield from pipeline.commands


@record(frozen=True, slots=True)
class Unparseable:
    reason: str


def expand_home(word: str) -> str:
    """`~`, `~/x`, `$HOME/x` or `${HOME}/x` with the home directory put in; anything else as is."""
    for alias in ("~", "$HOME", "${HOME}"):
        if word == alias or word.startswith(alias + "/"):
            return os.path.expanduser("~") + word[len(alias) :]
    return word


def bash_script(tool_input: Mapping[str, object]) -> Script | str:
    """The parsed command of a Bash call, or the reason a guard should deny it."""
    command = tool_input.get("command")
    if not isinstance(command, str):
        return "cannot parse command safely: the Bash call has no command string"
    script = parse(command)
    if isinstance(script, Unparseable):
        return f"cannot parse command safely: {script.reason}"
    return script


def parse(command: str) -> Script | Unparseable:
    """The command line as a `Script`, or why it cannot be read safely."""
    try:
        return _parse(command, 0)
    except _CannotParse as error:
        return Unparseable(str(error))
    except RecursionError:
        return Unparseable("nested too deeply")


class _CannotParse(Exception):
    pass


@record(frozen=True, slots=True)
class _Word:
    text: str
    raw: str
    subs: tuple[str, ...]  # sources of $(...), `...`, <(...) and >(...) inside the word
    quoted: bool


@record(frozen=True, slots=True)
class _Op:
    text: str


@record(frozen=True, slots=True)
class _Redir:
    op: str
    fd: str
    body: str | None = None
    subs: tuple[str, ...] = ()


_Token = _Word | _Op | _Redir


def _parse(source: str, depth: int) -> Script:
    lexer = _Lexer(source, 0, depth)
    return _Parser(lexer.tokens(closer=False), depth).script()


def _starts_command(tokens: list[_Token]) -> bool:
    previous = tokens[-1] if tokens else None
    return not isinstance(previous, _Redir) and (
        not isinstance(previous, _Word) or previous.text in _KEYWORDS
    )


class _Lexer:
    def __init__(self, source: str, start: int, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise _CannotParse(f"nested more than {MAX_DEPTH} levels deep")
        self.s = source
        self.i = start
        self.depth = depth

    def tokens(self, closer: bool) -> list[_Token]:
        """Tokens to the end, or (closer) to the `)` that ends a `$(`, leaving `i` past it."""
        s, parens, cases = self.s, 0, 0
        out: list[_Token] = []
        heredocs: list[tuple[int, str, bool, bool]] = []  # token index, delimiter, quoted, <<-
        while self.i < len(s):
            c = s[self.i]
            if c in " \t" or s.startswith("\\\n", self.i):
                self.i += 1 if c in " \t" else 2
            elif c == "#":
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
            elif c == "\n":
                out.append(_Op("\n"))
                self.i += 1
                for index, delimiter, quoted, strip in heredocs:
                    out[index] = self._heredoc(out[index], delimiter, quoted, strip)
                heredocs.clear()
            elif (redirect := self._redirect()) is not None:
                out.append(redirect)
                if redirect.op in ("<<", "<<-"):
                    word = self._next_word()
                    heredocs.append((len(out) - 1, word.text, word.quoted, redirect.op == "<<-"))
                    out.append(word)
            elif c in "<>" and s.startswith("(", self.i + 1):
                out.append(self._word())
            elif op := next((o for o in _OPERATORS if s.startswith(o, self.i)), None):
                self.i += len(op)
                if op == ")" and closer and parens == 0 and not cases:
                    return out
                if not (op == ")" and parens == 0 and cases):  # else a `case` pattern's end
                    parens += (op == "(") - (op == ")")
                out.append(_Op(op))
            else:
                word = self._word()
                if not word.quoted and word.text in ("case", "esac") and _starts_command(out):
                    cases = max(0, cases + (1 if word.text == "case" else -1))
                out.append(word)
        if closer:
            raise _CannotParse("unterminated $(")
        return out

    def _redirect(self) -> _Redir | None:
        s, j = self.s, self.i
        while j < len(s) and s[j].isdigit():
            j += 1
        op = next((o for o in _REDIRECTS if s.startswith(o, j)), None)
        if op is None or (j > self.i and op.startswith("&")):
            return None
        if op in ("<", ">") and s.startswith("(", j + 1):
            return None  # process substitution
        fd, self.i = s[self.i : j], j + len(op)
        return _Redir(op, fd)

    def _next_word(self) -> _Word:
        while self.s.startswith((" ", "\t"), self.i):
            self.i += 1
        if self.i >= len(self.s) or self.s[self.i] in _META:
            raise _CannotParse("here-document without a delimiter")
        return self._word()

    def _heredoc(self, token: _Token, delimiter: str, quoted: bool, strip: bool) -> _Redir:
        assert isinstance(token, _Redir)
        lines: list[str] = []
        while self.i < len(self.s):  # bash accepts end of input as the end of the document
            end = self.s.find("\n", self.i)
            end = len(self.s) if end < 0 else end
            line = self.s[self.i : end]
            self.i = end + 1
            line = line.lstrip("\t") if strip else line  # `<<-` drops leading tabs
            if line == delimiter:
                break
            lines.append(line)
        body = "\n".join(lines)
        subs: list[str] = []
        if not quoted:  # an unquoted delimiter means the body is expanded: $(...) runs
            _Lexer(body, 0, self.depth + 1)._quoted(subs, terminator=None)
        return _Redir(token.op, token.fd, body, tuple(subs))

    def _word(self) -> _Word:
        s, start = self.s, self.i
        text: list[str] = []
        subs: list[str] = []
        quoted = False
        while self.i < len(s):
            c = s[self.i]
            if c in "<>" and self.i == start:  # process substitution <(...) / >(...)
                self.i += 1
                text.append(c + self._expansion(subs))
            elif c in _META:
                break
            elif c == "\\":
                quoted = True
                text.append(s[self.i + 1 : self.i + 2].replace("\n", "") or "\\")
                self.i += 2
            elif c == "'":
                quoted = True
                end = s.find("'", self.i + 1)
                if end < 0:
                    raise _CannotParse("unterminated single quote")
                text.append(s[self.i + 1 : end])
                self.i = end + 1
            elif c == '"':
                quoted = True
                self.i += 1
                text.append(self._quoted(subs, terminator='"'))
            elif s.startswith("$'", self.i):
                quoted = True
                text.append(self._ansi_c())
            elif s.startswith('$"', self.i):
                self.i += 1
            elif c in "$`":
                text.append(self._expansion(subs))
            else:
                text.append(c)
                self.i += 1
        return _Word("".join(text), s[start : self.i], tuple(subs), quoted)

    def _ansi_c(self) -> str:
        s, j = self.s, self.i + 2
        while j < len(s) and s[j] != "'":
            j += 2 if s[j] == "\\" else 1
        if j >= len(s):
            raise _CannotParse("unterminated $'...' quote")
        text = re.sub(r"\\(.)", r"\1", s[self.i + 2 : j], flags=re.DOTALL)
        self.i = j + 1
        return text

    def _quoted(self, subs: list[str], terminator: str | None) -> str:
        """Double-quoted text (or an expanded here-document body) up to `terminator`."""
        s, text = self.s, list[str]()
        while self.i < len(s):
            c = s[self.i]
            if c == terminator:
                self.i += 1
                return "".join(text)
            if c == "\\" and self.i + 1 < len(s):
                following = s[self.i + 1]
                text.append(
                    following
                    if following in '$`"\\'
                    else ""
                    if following == "\n"
                    else c + following
                )
                self.i += 2
            elif c in "$`":
                text.append(self._expansion(subs))
            else:
                text.append(c)
                self.i += 1
        if terminator is not None:
            raise _CannotParse("unterminated double quote")
        return "".join(text)

    def _expansion(self, subs: list[str]) -> str:
        """`$(...)`, `` `...` ``, `${...}`, `(...)` after `<`/`>`, or a plain `$`: its source."""
        s, start = self.s, self.i
        if s.startswith("`", start):
            end = start + 1
            while end < len(s) and s[end] != "`":
                end += 2 if s[end] == "\\" else 1
            if end >= len(s):
                raise _CannotParse("unterminated backquote")
            subs.append(re.sub(r"\\([$`\\])", r"\1", s[start + 1 : end]))
            self.i = end + 1
        elif s.startswith(("$(", "("), start):
            inner = start + (2 if s[start] == "$" else 1)
            lexer = _Lexer(s, inner, self.depth + 1)
            lexer.tokens(closer=True)
            subs.append(s[inner : lexer.i - 1])
            self.i = lexer.i
        elif s.startswith("${", start):
            self.i += 2
            self._braced(subs)
        else:
            self.i += 1
        return s[start : self.i]

    def _braced(self, subs: list[str]) -> None:
        depth = 1
        while self.i < len(self.s):
            c = self.s[self.i]
            if c in "$`":
                self._expansion(subs)
                continue
            if c == '"':
                self.i += 1
                self._quoted(subs, terminator='"')
                continue
            depth += (c == "{") - (c == "}")
            self.i += 2 if c == "\\" else 1
            if depth == 0:
                return
        raise _CannotParse("unterminated ${")


class _Parser:
    def __init__(self, tokens: list[_Token], depth: int) -> None:
        self.tokens = tokens
        self.depth = depth
        self.pipelines: list[Pipeline] = []
        self.pipe: list[SimpleCommand] = []
        self.words: list[_Word] = []
        self.redirects: list[Redirect] = []
        self.subs: list[str] = []
        self.groups: list[bool] = []  # open ( or {; True when the group reads a pipe
        self.cases: list[int] = []  # group depth at each open `case`
        self.functions: list[str] = []

    def script(self) -> Script:
        tokens, i = self.tokens, 0
        while i < len(tokens):
            token = tokens[i]
            previous = tokens[i - 1] if i else None
            i += 1
            if isinstance(token, _Redir):
                target = tokens[i] if i < len(tokens) else None
                if not isinstance(target, _Word):
                    raise _CannotParse(f"redirection {token.op} without a target")
                i += 1
                self.redirects.append(Redirect(token.op, target.text, token.fd, token.body))
                self.subs.extend(token.subs + target.subs)
            elif isinstance(token, _Word):
                self._word(token, previous)
            elif token.text == "(":
                names = [w.text for w in self.words]
                if tokens[i : i + 1] == [_Op(")")] and names[:-1] in ([], ["function"]) and names:
                    self.functions.append(names[-1])  # `name() ...`, `function name() ...`
                    self.words.clear()
                    i += 1
                else:
                    self._open(previous)
            elif token.text == ")":
                if self.cases and self.cases[-1] == len(self.groups):
                    self._end_command()  # a `case` pattern, not a group
                else:
                    self._close(")")
            elif token.text in ("|", "|&"):
                self._end_command()
            elif not (
                token.text == "\n"
                and isinstance(previous, _Op)
                and previous.text in ("|", "|&", "&&", "||")
            ):
                self._end_pipeline()
        if self.groups:
            raise _CannotParse("unclosed ( or {")
        self._end_pipeline()
        return Script(tuple(self.pipelines), tuple(self.functions))

    def _word(self, word: _Word, previous: _Token | None) -> None:
        words = [w.text for w in self.words]
        if word.quoted or word.text not in ("{", "}", "case", "esac", *_KEYWORDS):
            self.words.append(word)
        elif word.text == "{" and len(words) == 2 and words[0] == "function":
            self.functions.append(words[1])
            self.words.clear()
            self._open(previous)
        elif words:
            self.words.append(word)
        elif word.text == "{":
            self._open(previous)
        elif word.text == "}":
            self._close("}")
        elif word.text == "case":
            self.cases.append(len(self.groups))
            self.words.append(word)
        elif word.text == "esac" and self.cases:
            self.cases.pop()

    def _open(self, previous: _Token | None) -> None:
        self._end_command()
        self.groups.append(isinstance(previous, _Op) and previous.text in ("|", "|&"))

    def _close(self, closer: str) -> None:
        self._end_command()
        if not self.groups:
            raise _CannotParse(f"unmatched {closer}")
        self.groups.pop()

    def _end_command(self) -> None:
        if self.words or self.redirects or self.subs:
            self.pipe.append(_command(self.words, self.redirects, self.subs, self.depth))
        self.words, self.redirects, self.subs = [], [], []

    def _end_pipeline(self) -> None:
        self._end_command()
        if self.pipe and not any(self.groups):  # inside `| ( ... )` the group stays piped
            self.pipelines.append(Pipeline(tuple(self.pipe)))
            self.pipe = []


def _command(
    words: list[_Word], redirects: list[Redirect], subs: list[str], depth: int
) -> SimpleCommand:
    start = 0
    while start < len(words) and _ASSIGNMENT.match(words[start].raw):
        start += 1
    argv = _unwrap(tuple(w.text for w in words[start:]))
    sources = [*subs, *(sub for word in words for sub in word.subs)]
    sources += _inline_scripts(argv, tuple(redirects))
    nested = tuple(_parse(source, depth + 1) for source in sources)
    return SimpleCommand(argv, tuple(redirects), tuple(w.text for w in words), nested)


def _unwrap(argv: tuple[str, ...]) -> tuple[str, ...]:
    """The command a chain of wrappers (`sudo env X=1 nice -n 5 rm ...`) finally runs."""
    while argv and posixpath.basename(argv[0]) in _WRAPPERS:
        name = posixpath.basename(argv[0])
        with_value, positionals = _WRAPPERS[name]
        i = skip_options(argv, 1, frozenset(with_value.split()))
        if name == "command" and any("v" in a.lower() for a in argv[1:i] if a[:2] != "--"):
            return argv  # `command -v x` looks x up, it does not run it
        while name == "env" and i < len(argv) and _ASSIGNMENT.match(argv[i]):
            i += 1
        argv = argv[i + positionals :]
    return argv


def skip_options(argv: tuple[str, ...], i: int, with_value: frozenset[str]) -> int:
    """Index of the first operand at or after `i`: past options, their values and `--`."""
    while i < len(argv) and argv[i].startswith(("-", "+")) and len(argv[i]) > 1:
        option = argv[i]
        i += 1
        if option == "--":
            break
        if option.startswith("--"):
            i += option in with_value
            continue
        for k in range(1, len(option)):  # a cluster such as `-Eu root`: a value ends it
            if option[0] + option[k] in with_value:
                i += k == len(option) - 1
                break
    return i


# Interpreters, by the short options that hand them their program as text (for shells a flag,
# the program being the first operand); `m` runs a module.
_PROGRAM_OPTIONS = {
    "python": "cm",
    "perl": "eE",
    "ruby": "e",
    "node": "ep",
    "php": "r",
    "lua": "e",
    **dict.fromkeys(SHELLS, "c"),
}
_LONG_PROGRAM_OPTIONS = frozenset({"--eval", "--print", "--command"})
_INTERPRETER_OPTIONS_WITH_VALUE = frozenset(
    {"-o", "+o", "-O", "+O", "--rcfile", "--init-file", "-W", "-X", "--require"}
)


@record(frozen=True, slots=True)
class Program:
    """Where an interpreter takes its program from."""

    kind: Literal["inline", "module", "file", "stdin"]
    text: str  # the code, module or file; for stdin a here-document's text or ""


def interpreter(argv: tuple[str, ...]) -> str | None:
    """`python3.12` -> `python`, `bash` -> `bash`; None for anything else."""
    name = re.sub(r"[\d.]+$", "", posixpath.basename(argv[0])) if argv else ""
    name = "node" if name == "nodejs" else name
    return name if name in _PROGRAM_OPTIONS else None


def program(argv: tuple[str, ...], redirects: tuple[Redirect, ...] = ()) -> Program | None:
    """The program an interpreter command runs, or None if `argv` runs no interpreter."""
    language = interpreter(argv)
    if language is None:
        return None
    letters = _PROGRAM_OPTIONS[language]
    i = skip_options(argv, 1, _INTERPRETER_OPTIONS_WITH_VALUE)
    operand = argv[i] if i < len(argv) else None
    for option in argv[1:i]:
        if option in _LONG_PROGRAM_OPTIONS:
            return Program("inline", operand or "")
        if option[:1] not in "-+" or option.startswith("--"):
            continue
        for k, letter in enumerate(option[1:], 1):
            if letter in letters:
                attached = language not in SHELLS and k < len(option) - 1
                text = option[k + 1 :] if attached else operand or ""
                return Program("module" if letter == "m" else "inline", text)
        if language in SHELLS and "s" in option[1:]:  # `bash -s -- ARGS` reads stdin
            return _stdin(redirects)
    if operand is not None and operand != "-":
        return Program("file", operand)
    return _stdin(redirects)


def _stdin(redirects: tuple[Redirect, ...]) -> Program:
    here = [r.target if r.op == "<<<" else r.body for r in redirects if r.op.startswith("<<")]
    return Program("stdin", (here[-1] or "") if here else "")


def _inline_scripts(argv: tuple[str, ...], redirects: tuple[Redirect, ...]) -> list[str]:
    """Shell code this command runs from its arguments: `sh -c CODE`, `eval ARGS`, `bash <<EOF`,
    `su -c CODE`, `find -exec CMD ;`."""
    name = posixpath.basename(argv[0]) if argv else ""
    if name == "eval":
        return [" ".join(argv[1:])]
    if name in ("su", "runuser"):
        return [code for flag, code in pairwise(argv) if flag in ("-c", "--command")]
    if name == "find":
        return [
            shlex.join(_exec_argv(argv[i + 1 :]))
            for i, word in enumerate(argv)
            if word in ("-exec", "-execdir", "-ok", "-okdir")
        ]
    source = program(argv, redirects) if interpreter(argv) in SHELLS else None
    return [source.text] if source is not None and source.kind in ("inline", "stdin") else []


def _exec_argv(words: tuple[str, ...]) -> tuple[str, ...]:
    """The command of a `find -exec`, which ends at `;` or at `{} +`."""
    for i, word in enumerate(words):
        if word == ";" or (word == "+" and i and words[i - 1] == "{}"):
            return words[:i]
    return words
