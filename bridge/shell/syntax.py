"""Bash command lines as simple commands (argv and redirections), read the way bash reads them.

A small hand-written lexer rather than `shlex`: shlex forgets which characters were quoted (so
`";"` and `;` look alike), splits `2>` and `$(` into pieces and knows no here-documents, and
those are exactly what a guard must get right. `parse` never raises: input it cannot read is an
`Unparseable` value, so callers can fail closed.

Words are expanded as far as that can be done without running anything, the way bash does it:
quotes removed, `$'\x2f'`/`$'\057'` decoded, unquoted braces expanded (`{rm,-rf,/}` is three
words, `/{etc,usr}` two, `{1..3}` three; more than 1024 words from one word is `Unparseable`),
and a leading unquoted `~` or `~user` (also after `=` in `a=~/x`) replaced by that home directory.

What cannot be known before the command runs is marked, never guessed:

- `SimpleCommand.dynamic`: the indexes in `argv` of words whose value is not static: a
  parameter expansion (`$x`, `"${X:?}"`, `${IFS}`, `$HOME` too), a command or process
  substitution (`$(...)`, backquotes, `<(...)`), `~+`/`~-`, or an unquoted glob character
  (`*`, `?`, `[` with a `]` after it). Such a word's text is its source with quotes removed
  (`"$(command -v ccbridge)"` reads `$(command -v ccbridge)`). `0 in dynamic` means the
  command name itself is unknown (`x=rm; $x -rf /`).
- `SimpleCommand.more_args`: a wrapper (`xargs`) appends arguments read at run time.
- `Redirect.dynamic`: the same for a redirection's target; for a here-document, a body bash
  expands before the command reads it (an unquoted delimiter, a `$` or backquote in the body).
"""

import os
import posixpath

from bridge.pipeline.valueclass import Record
from bridge.shell import NAME_START, Lazy, is_assignment, name_end, pairs
from bridge.shell.runners import APPENDERS, inline_scripts, parallel_arguments, unwrap

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    import re
    from collections.abc import Iterator, Mapping
    from typing import TypeVar

    T = TypeVar("T")

MAX_NESTING = 32
WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})

_META = frozenset(" \t\n;&|()<>")
_OPERATORS = (";;&", ";;", ";&", "&&", "||", "|&", ";", "&", "|", "(", ")", "\n")
_REDIRECTS = ("&>>", "<<<", "<<-", "&>", ">>", ">|", "<<", "<>", ">&", "<&", ">", "<")
# Their first characters: a token starting otherwise is neither (most are words).
_OPERATOR_STARTS = frozenset(op[0] for op in _OPERATORS)
_REDIRECT_STARTS = frozenset(op[0] for op in _REDIRECTS)
_KEYWORDS = frozenset({"!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until"})


class Redirect(Record, frozen=True, slots=True):
    op: str  # ">", ">>", ">|", "&>", "&>>", "<>", "<", "<<", "<<-", "<<<", ">&", "<&"
    target: str  # a file, a descriptor (`2>&1`), or a here-document's delimiter
    fd: str = ""  # the descriptor written before the operator, as in `2>`
    body: "str | None" = None  # a here-document's text
    dynamic: bool = False  # the target is not known before the command runs (see above)

    @property
    def writes(self) -> bool:
        """Whether the shell opens `target` as a file for writing."""
        if self.op == ">&":  # `>&file` is `&>file`; `>&2` and `>&-` only touch descriptors
            return not (self.target.isdigit() or self.target == "-")
        return self.op in WRITE_OPS


class SimpleCommand(Record, frozen=True, slots=True):
    argv: "tuple[str, ...]"  # after leading assignments and wrappers such as sudo, env, timeout N
    redirects: "tuple[Redirect, ...]" = ()
    words: "tuple[str, ...]" = ()  # every word as written, quotes removed
    nested: "tuple[Script, ...]" = ()  # also run: substitutions, `sh -c`/`eval` strings
    dynamic: "frozenset[int]" = frozenset()  # indexes in argv of words not known statically
    more_args: bool = False  # a wrapper such as xargs adds arguments read at run time

    @property
    def name(self) -> str:
        return self.argv[0].rpartition("/")[2] if self.argv else ""  # posixpath.basename


class Pipeline(Record, frozen=True, slots=True):
    commands: "tuple[SimpleCommand, ...]"


class Script(Record, frozen=True, slots=True):
    pipelines: "tuple[Pipeline, ...]"
    functions: "tuple[str, ...]" = ()  # names defined with `f() {...}` or `function f {...}`
    # A nested script's own text (`sh -c` strings, substitutions): the variables it sets itself
    # are put in from it (bridge.shell.variables). "" for the top-level script.
    source: str = ""

    def walk(self) -> "Iterator[Script]":
        """This script and every script nested in its commands, depth first."""
        yield self
        for pipeline in self.pipelines:
            for command in pipeline.commands:
                for inner in command.nested:
                    yield from inner.walk()

    def commands(self) -> "Iterator[SimpleCommand]":
        for script in self.walk():
            for pipeline in script.pipelines:
                yield from pipeline.commands


class Unparseable(Record, frozen=True, slots=True):
    reason: str


def expand_home(word: str) -> str:
    """`~`, `~/x`, `$HOME/x` or `${HOME}/x` with the home directory put in; anything else as is."""
    for alias in ("~", "$HOME", "${HOME}"):
        if word == alias or word.startswith(alias + "/"):
            return os.path.expanduser("~") + word[len(alias) :]
    return word


# The longest command the reader reads. Its time grows with the text (some 10 µs a character,
# more for dense ones); a longer command is denied by its size alone, so that every call is
# answered within the deadline. Content that long belongs in a file (the Write tool).
MAX_COMMAND_CHARS = 64 << 10


def bash_script(tool_input: "Mapping[str, object]") -> "Script | str":
    """The parsed command of a Bash call, or the reason a guard should deny it."""
    command = tool_input.get("command")
    if not isinstance(command, str):
        return "cannot parse command safely: the Bash call has no command string"
    if len(command) > MAX_COMMAND_CHARS:
        return (
            f"cannot judge command safely: it is {len(command)} characters long, over the "
            f"{MAX_COMMAND_CHARS} that ccbridge's shell reader reads (write long content to a "
            "file with the Write tool, or split the command)"
        )
    script = parse(command)
    if isinstance(script, Unparseable):
        return f"cannot parse command safely: {script.reason}"
    return script


def parse(command: str) -> "Script | Unparseable":
    """The command line as a `Script`, or why it cannot be read safely."""
    _expanded[0] = 0
    try:
        return _parse(command, 0)
    except _CannotParse as error:
        return Unparseable(str(error))
    except RecursionError:
        return Unparseable("nested too deeply")


class _CannotParse(Exception):
    pass


# What a piece of a word is: plain text the shell still expands (braces, `~`, globs), quoted
# text it takes literally, or an expansion whose value is only known when the command runs.
_PLAIN, _QUOTED, _EXPANDED = 0, 1, 2
_Piece = tuple[str, int]


class _Word(Record, frozen=True, slots=True):
    text: str
    raw: str
    subs: "tuple[str, ...]"  # sources of $(...), `...`, <(...) and >(...) inside the word
    quoted: bool
    pieces: "tuple[_Piece, ...]" = ()


class _Op(Record, frozen=True, slots=True):
    text: str


class _Redir(Record, frozen=True, slots=True):
    op: str
    fd: str
    body: "str | None" = None
    subs: "tuple[str, ...]" = ()
    expands: bool = False  # a here-document's body holds an expansion bash makes


_Token = _Word | _Op | _Redir
_NOT_PLAIN = frozenset(" \t\n;&|()<>\\'\"$`")
_SPECIAL_PARAMETERS = frozenset("0123456789@*#?$!-")
_ANSI_ESCAPE = Lazy(
    r"(?s)\\(?:x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|([0-7]{1,3})|c(.)|(.))"
)
_BACKQUOTE_ESCAPE = Lazy(r"\\([$`\\])")
_ANSI_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


def _ansi_escape(found: "re.Match[str]") -> str:
    """One backslash escape of `$'...'`, decoded as bash does (unknown ones stay as written)."""
    hex_, short, long, octal, control, other = found.groups()
    if hex_ or octal:
        return chr(int(hex_, 16) if hex_ else int(octal, 8) & 0xFF)
    if short or long:
        code = int(short or long, 16)
        return chr(code) if code <= 0x10FFFF else found.group(0)
    if control is not None:
        return chr(ord(control) & 0x1F)
    return _ANSI_SIMPLE.get(other, found.group(0))


def _add(pieces: "list[_Piece]", text: str, kind: int) -> None:
    """Append to a word's pieces, merging with the last one of the same kind."""
    if pieces and pieces[-1][1] == kind:
        pieces[-1] = (pieces[-1][0] + text, kind)
    elif text or kind == _QUOTED:  # `""` is an empty word, not no word
        pieces.append((text, kind))


def _parse(source: str, depth: int) -> "Script":
    lexer = _Lexer(source, 0, depth)
    script = _Parser(lexer.tokens(closer=False), depth).script()
    return script if depth == 0 else Script(script.pipelines, script.functions, source)


def _starts_command(tokens: "list[_Token]") -> bool:
    previous = tokens[-1] if tokens else None
    return not isinstance(previous, _Redir) and (
        not isinstance(previous, _Word) or previous.text in _KEYWORDS
    )


class _Lexer:
    def __init__(self, source: str, start: int, depth: int) -> None:
        if depth > MAX_NESTING:
            raise _CannotParse(f"nested more than {MAX_NESTING} levels deep")
        self.s = source
        self.i = start
        self.depth = depth

    def tokens(self, closer: bool) -> "list[_Token]":
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
            elif c in _OPERATOR_STARTS and (
                op := next((o for o in _OPERATORS if s.startswith(o, self.i)), None)
            ):
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

    def _redirect(self) -> "_Redir | None":
        s, j = self.s, self.i
        while j < len(s) and s[j].isdigit():
            j += 1
        if j == len(s) or s[j] not in _REDIRECT_STARTS:  # the common case: a word
            return None
        op = next((o for o in _REDIRECTS if s.startswith(o, j)), None)
        if op is None or (j > self.i and op.startswith("&")):
            return None
        if op in ("<", ">") and s.startswith("(", j + 1):
            return None  # process substitution
        fd, self.i = s[self.i : j], j + len(op)
        return _Redir(op, fd)

    def _next_word(self) -> "_Word":
        while self.s.startswith((" ", "\t"), self.i):
            self.i += 1
        if self.i >= len(self.s) or self.s[self.i] in _META:
            raise _CannotParse("here-document without a delimiter")
        return self._word()

    def _heredoc(self, token: "_Token", delimiter: str, quoted: bool, strip: bool) -> "_Redir":
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
        expands = not quoted and ("$" in body or "`" in body)
        return _Redir(token.op, token.fd, body, tuple(subs), expands)

    def _word(self) -> "_Word":
        s, start = self.s, self.i
        pieces: list[_Piece] = []
        subs: list[str] = []
        quoted = False
        while self.i < len(s):
            c = s[self.i]
            if c in "<>" and self.i == start:  # process substitution <(...) / >(...)
                self.i += 1
                _add(pieces, c + self._expansion(subs), _EXPANDED)
            elif c == "(" and pieces and pieces[-1][1] == _PLAIN and pieces[-1][0][-1:] in _EXTGLOB:
                _add(pieces, self._extglob(), _PLAIN)  # `.@(claude)`, `!(*.py)`: a pattern
            elif c in _META:
                break
            elif c == "\\":
                quoted = True
                _add(pieces, s[self.i + 1 : self.i + 2].replace("\n", "") or "\\", _QUOTED)
                self.i += 2
            elif c == "'":
                quoted = True
                end = s.find("'", self.i + 1)
                if end < 0:
                    raise _CannotParse("unterminated single quote")
                _add(pieces, s[self.i + 1 : end], _QUOTED)
                self.i = end + 1
            elif c == '"':
                quoted = True
                self.i += 1
                self._quoted(subs, '"', pieces)
            elif s.startswith("$'", self.i):
                quoted = True
                _add(pieces, self._ansi_c(), _QUOTED)
            elif s.startswith('$"', self.i):
                self.i += 1
            elif c in "$`":
                text = self._expansion(subs)
                _add(pieces, text, _PLAIN if text == "$" else _EXPANDED)
            else:
                end = self.i
                while end < len(s) and s[end] not in _NOT_PLAIN:
                    end += 1
                end += end == self.i  # a lone character the cases above did not take
                _add(pieces, s[self.i : end], _PLAIN)
                self.i = end
        text = "".join(piece for piece, _ in pieces)
        return _Word(text, s[start : self.i], tuple(subs), quoted, tuple(pieces))

    def _extglob(self) -> str:
        """The parenthesised part of an extended glob, as written (bash reads it as part of
        the word when extglob is on; off, the line is a syntax error, so reading it so is safe)."""
        s, depth, j = self.s, 0, self.i
        while j < len(s):
            depth += (s[j] == "(") - (s[j] == ")")
            j += 1 + (s[j] == "\\")
            if depth == 0:
                break
        if depth:
            raise _CannotParse("unterminated extended glob")
        text, self.i = s[self.i : j], j
        return text

    def _ansi_c(self) -> str:
        s, j = self.s, self.i + 2
        while j < len(s) and s[j] != "'":
            j += 2 if s[j] == "\\" else 1
        if j >= len(s):
            raise _CannotParse("unterminated $'...' quote")
        text = _ANSI_ESCAPE.sub(_ansi_escape, s[self.i + 2 : j])
        self.i = j + 1
        return text.split("\0", 1)[0]  # bash strings end at a NUL

    def _quoted(
        self, subs: "list[str]", terminator: "str | None", pieces: "list[_Piece] | None" = None
    ) -> str:
        """Double-quoted text (or an expanded here-document body) up to `terminator`."""
        s, text = self.s, list[str]()
        pieces = [] if pieces is None else pieces
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
                _add(pieces, text[-1], _QUOTED)
                self.i += 2
            elif c in "$`":
                text.append(self._expansion(subs))
                _add(pieces, text[-1], _QUOTED if text[-1] == "$" else _EXPANDED)
            else:
                text.append(c)
                _add(pieces, c, _QUOTED)
                self.i += 1
        if terminator is not None:
            raise _CannotParse("unterminated double quote")
        return "".join(text)

    def _expansion(self, subs: "list[str]") -> str:
        """`$(...)`, `` `...` ``, `${...}`, `(...)` after `<`/`>`, or a plain `$`: its source."""
        s, start = self.s, self.i
        if s.startswith("`", start):
            end = start + 1
            while end < len(s) and s[end] != "`":
                end += 2 if s[end] == "\\" else 1
            if end >= len(s):
                raise _CannotParse("unterminated backquote")
            subs.append(_BACKQUOTE_ESCAPE.sub(r"\1", s[start + 1 : end]))
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
        else:  # `$name`, `$1`, `$?` ...; a `$` before anything else is a plain `$`
            after = s[start + 1 : start + 2]
            if after and after in NAME_START:
                self.i = name_end(s, start + 2)
            else:
                self.i = start + 1 + (after != "" and after in _SPECIAL_PARAMETERS)
        return s[start : self.i]

    def _braced(self, subs: "list[str]") -> None:
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
    def __init__(self, tokens: "list[_Token]", depth: int) -> None:
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

    def script(self) -> "Script":
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
                redirect = _redirect(token.op, token.fd, target, token.body, token.expands)
                self.redirects.append(redirect)
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

    def _word(self, word: "_Word", previous: "_Token | None") -> None:
        if word.quoted or word.text not in ("{", "}", "case", "esac", *_KEYWORDS):
            self.words.append(word)  # the common case, without copying the words (linear)
            return
        words = [w.text for w in self.words]
        if word.text == "{" and len(words) == 2 and words[0] == "function":
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

    def _open(self, previous: "_Token | None") -> None:
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
    words: "list[_Word]", redirects: "list[Redirect]", subs: "list[str]", depth: int
) -> "SimpleCommand":
    start = 0
    while start < len(words) and is_assignment(words[start].raw):
        start += 1
    fields = [field for word in words[start:] for field in _fields(word)]
    texts = tuple(text for text, _ in fields)
    argv = unwrap(texts)
    offset = len(texts) - len(argv)
    dynamic = frozenset(i - offset for i, (_, unknown) in enumerate(fields) if unknown)
    more_args = any(posixpath.basename(t) in APPENDERS for t in texts[:offset])
    sources = [*subs, *(sub for word in words for sub in word.subs)]
    if more_args and ":::" in argv:
        kept, more_args, runs = parallel_arguments(argv, texts[:offset])
        argv, dynamic = (
            tuple(argv[k] for k in kept),
            frozenset(new for new, k in enumerate(kept) if k in dynamic),
        )
        sources += [code for run in runs for code in inline_scripts(run, ())]
    sources += inline_scripts(argv, tuple(redirects))
    nested = tuple(_parse(source, depth + 1) for source in sources)
    assignments = tuple(_fields(word, assignment=True)[0][0] for word in words[:start])
    return SimpleCommand(
        argv,
        tuple(redirects),
        (*assignments, *texts),
        nested,
        frozenset(i for i in dynamic if i >= 0),
        more_args,
    )


def _redirect(
    op: str, fd: str, target: "_Word", body: "str | None", expands: bool = False
) -> "Redirect":
    if body is not None or op in ("<<", "<<-"):  # a here-document's delimiter is not expanded
        return Redirect(op, target.text, fd, body, expands)
    fields = _fields(target)
    if len(fields) != 1:  # bash refuses it ("ambiguous redirect"); say we cannot tell
        return Redirect(op, target.text, fd, body, dynamic=True)
    return Redirect(op, fields[0][0], fd, body, fields[0][1])


_MAX_FIELDS = 1024
_MAX_BRACES = 128
_MAX_LINE_FIELDS = 2048
_expanded = [0]  # words brace expansion made in the line being parsed (parse resets it)


def _fields(word: "_Word", assignment: bool = False) -> "list[tuple[str, bool]]":
    """The words one source word becomes, as (text, not known statically): braces expanded
    (not in an assignment), `~` expanded, and expansions or unquoted globs marked."""
    if len(word.pieces) == 1:  # the common case, quickly: one plain, quoted or expanded run
        text, kind = word.pieces[0]
        if kind != _PLAIN or _SPECIAL.isdisjoint(text):
            return [(text, kind == _EXPANDED)]
    pieces = list(word.pieces) or [("", _QUOTED)]
    if assignment or not any(kind == _PLAIN and "{" in text for text, kind in pieces):
        return [_field(pieces, assignment)]
    atoms: list[_Piece] = []
    for text, kind in pieces:  # braces and commas become atoms of their own
        parts = _brace_parts(text) if kind == _PLAIN else [text]
        atoms += [(part, kind) for part in parts if part]
    if sum(atom == ("{", _PLAIN) for atom in atoms) > _MAX_BRACES:
        raise _CannotParse(f"more than {_MAX_BRACES} braces in one word")
    expanded = _braces(atoms)
    _expanded[0] += len(expanded)
    if _expanded[0] > _MAX_LINE_FIELDS:  # each word is judged: bound the line's work too
        raise _CannotParse(f"brace expansion makes more than {_MAX_LINE_FIELDS} words in one line")
    return [_field(pieces, assignment) for pieces in expanded]


_SPECIAL = frozenset("~*?[{=(")  # what makes a plain word need more than its text
_EXTGLOB = frozenset("?*+@!")  # before `(`: an extended glob
_SEQUENCE = Lazy(r"(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?|([A-Za-z])\.\.([A-Za-z])(?:\.\.(-?\d+))?")


def _brace_parts(text: str) -> "list[str]":
    """`text` split around each `{`, `}` and `,`, which stay as parts of their own."""
    parts, start = [], 0
    for i, char in enumerate(text):
        if char in "{},":
            parts += [text[start:i], char]
            start = i + 1
    return [*parts, text[start:]]


def _braces(atoms: "list[_Piece]") -> "list[list[_Piece]]":
    """Bash's brace expansion: `a{b,c}d` -> abd acd, `{1..3}`, nested; `{x}` and `{}` stay."""
    start = 0
    while True:
        i = next((k for k in range(start, len(atoms)) if atoms[k] == ("{", _PLAIN)), None)
        if i is None:
            return [atoms]
        depth, commas, j = 0, [], i
        for j in range(i, len(atoms)):
            depth += (atoms[j] == ("{", _PLAIN)) - (atoms[j] == ("}", _PLAIN))
            if depth == 1 and atoms[j] == (",", _PLAIN):
                commas.append(j)
            if depth == 0:
                break
        if depth:  # no closing brace: bash leaves the text alone
            return [atoms]
        if commas:
            bounds = [i, *commas, j]
            choices = [atoms[a + 1 : b] for a, b in pairs(bounds)]
        elif (sequence := _sequence(atoms[i + 1 : j])) is not None:
            choices = [[(term, _PLAIN)] for term in sequence]
        else:
            start = i + 1
            continue
        after = _braces(atoms[j + 1 :])
        out = []
        for choice in choices:
            for middle in _braces(choice):
                out += [[*atoms[:i], *middle, *end] for end in after]
                if len(out) > _MAX_FIELDS:
                    raise _CannotParse(f"brace expansion makes more than {_MAX_FIELDS} words")
        return out


def _sequence(body: "list[_Piece]") -> "list[str] | None":
    """The terms of `{1..5}`, `{01..10..2}`, `{a..e}`, or None if `body` is not one."""
    if any(kind != _PLAIN for _, kind in body):
        return None
    found = _SEQUENCE.fullmatch("".join(text for text, _ in body))
    if found is None:
        return None
    first, last, step, letter_first, letter_last, letter_step = found.groups()
    low, high = (int(first), int(last)) if first else (ord(letter_first), ord(letter_last))
    increment = abs(int(step or letter_step or 1)) or 1
    if abs(high - low) // increment >= _MAX_FIELDS:
        raise _CannotParse(f"brace expansion makes more than {_MAX_FIELDS} words")
    values = range(low, high + (1 if high >= low else -1), increment if high >= low else -increment)
    if not first:
        return [chr(value) for value in values]
    padded = any(len(n.lstrip("-")) > 1 and n.lstrip("-")[0] == "0" for n in (first, last))
    width = max(len(first), len(last)) if padded else 0
    return [f"{value:0{width}d}" for value in values]


def _field(pieces: "list[_Piece]", assignment: bool) -> "tuple[str, bool]":
    """One word's text after tilde expansion, and whether its value is known statically."""
    merged: list[_Piece] = []
    for text, kind in pieces:
        _add(merged, text, kind)
    unknown = False
    if merged and merged[0][1] == _PLAIN:
        head, whole = merged[0][0], len(merged) == 1
        name, equals, value = head.partition("=")
        if equals and (assignment or is_assignment(head)):  # bash: after `=` and each `:`
            parts = value.split(":")
            tildes = [_tilde(part, whole or k < len(parts) - 1) for k, part in enumerate(parts)]
            head = name + "=" + ":".join(text for text, _ in tildes)
            unknown = any(u for _, u in tildes)
        else:
            head, unknown = _tilde(head, whole)
        merged[0] = (head, _PLAIN)
    unknown = unknown or any(
        kind == _EXPANDED or (kind == _PLAIN and _is_glob(text, merged[index + 1 :]))
        for index, (text, kind) in enumerate(merged)
    )
    return "".join(text for text, _ in merged), unknown


def _tilde(text: str, ends: bool) -> "tuple[str, bool]":
    """`~`, `~/x`, `~user/x` with the home directory put in, and whether it is unknown.
    `ends`: the prefix ends where `text` does (else only a `/` ends it: bash expands no
    tilde-prefix holding quoted characters)."""
    if not text.startswith("~") or ("/" not in text and not ends):
        return text, False
    prefix, slash, rest = text.partition("/")
    if prefix[1:2] in ("+", "-") or prefix[1:].isdigit():  # $PWD, $OLDPWD, the dir stack
        return text, True
    try:
        home = os.path.expanduser(prefix)
    except ValueError:  # a NUL in the name: no such user, so bash leaves the word as it is
        home = prefix
    return (text if home == prefix else home + slash + rest), False


def _is_glob(text: str, following: "list[_Piece]") -> bool:
    """Whether unquoted `text` makes its word a pattern: `*`, `?`, or `[` with a `]` later."""
    if "*" in text or "?" in text or "(" in text:  # (an extended glob: `@(x)`, `+(x)`)
        return True
    bracket = text.find("[")
    return bracket >= 0 and "]" in (text + "".join(t for t, _ in following))[bracket + 2 :]
