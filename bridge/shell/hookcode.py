"""What a hook command runs, and what the code it runs loads from the files around it.

A sub-hook runs outside any sandbox, so the files that decide what it does must be kept from
the agent: the script itself, and what the script loads. `runs` tells the scripts of a command
apart from its other words, the way bash and the interpreters read them (bridge.shell.syntax):
the file an interpreter is given (`python3 x.py`, `bash -e x.sh`, `node --require r x.js`),
a program named by path (`./check.sh`, `${CLAUDE_PROJECT_DIR}/hooks/guard`), and, after a
program ccbridge does not know (`uv run x.py`), a word that names a script by its suffix. A
script's language is its interpreter's, its suffix's or its `#!` line's. `loads` reads a
script's text for what it names from elsewhere: a shell script's `source`/`.` files, a Node
script's `require`/`import` specifiers, a Python script's imports. It is a reading of text,
not of the language: what it finds is kept or named, and what code computes at run time
stays beyond it (bridge.wall names the gaps).

Off the hot path: bridge.wall reads hook commands when a config is compiled.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import re
from collections import Counter
from collections.abc import Mapping
from typing import Literal

from bridge.paths import read_regular
from bridge.pipeline.valueclass import Record
from bridge.shell import is_assignment
from bridge.shell.runners import SHELLS, STDIN_FILES, interpreter, skip_options
from bridge.shell.syntax import Unparseable, parse
from bridge.shell.variables import put_in

# Suffixes that make a word a script whoever runs it, with the language that loads code.
SUFFIXES = {
    **dict.fromkeys((".py", ".pyw"), "python"),
    **dict.fromkeys((".sh", ".bash", ".zsh", ".ksh"), "bash"),
    **dict.fromkeys((".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"), "node"),
    ".rb": "ruby",
    ".pl": "perl",
    ".php": "php",
    ".lua": "lua",
}
# Interpreters whose code handed over as text (or a module) finds modules in the current
# directory: Python puts it first on sys.path for `-c`/`-m`/stdin, Node resolves `./x` there.
CWD_LOADERS = frozenset({"python", "node"})
# Python options that keep the current (and the script's) directory off sys.path.
_PYTHON_SAFE_PATH = frozenset("IP")
MAX_SCRIPT_BYTES = 1 << 20  # a longer script is not read (named as unread instead)


class Run(Record, frozen=True, slots=True):
    """A word of a hook command and what it is to the command."""

    word: str  # as bash reads it: quotes removed, `~` expanded
    role: Literal["script", "interpreter", "operand", "cwd"]
    language: str | None = None  # the language of a script (None: run directly, unknown)
    dynamic: bool = False  # only known when the command runs (`$X/x.sh`, a glob)


def runs(command: str, known: Mapping[str, str] | None = None) -> list[Run] | Unparseable:
    """The words of a shell command line that name what it runs (see the module's text), with
    the `known` variables put in as bash expands them (in `sh -c` strings too: the hook's
    environment holds them)."""
    script = parse(put_in(command, dict(known)) if known else command)
    if isinstance(script, Unparseable):
        return script
    found: list[Run] = []
    for pipeline in script.pipelines:
        for simple in pipeline.commands:
            # A program named by path is run, whatever its name: bash runs `./hooks/time x`,
            # which the reader takes for the `time` wrapper.
            named = [w for w in simple.words if not is_assignment(w)][:1]
            if named and simple.argv[:1] != tuple(named) and "/" in named[0]:
                found.append(Run(named[0], "script", _language_of(named[0])))
            found += _argv_runs(simple.argv, simple.dynamic)
            found += [
                Run(r.target, "operand", dynamic=r.dynamic)
                for r in simple.redirects
                if r.writes or r.op == "<"
            ]
            for inner in simple.nested:
                more = runs(inner.source, known)
                if isinstance(more, Unparseable):
                    return more
                found += more
    return found


def argv_runs(argv: tuple[str, ...]) -> list[Run]:
    """The same for a command given as its words (a hook's exec form: no shell reads them)."""
    return _argv_runs(argv, frozenset())


def _argv_runs(argv: tuple[str, ...], dynamic: frozenset[int]) -> list[Run]:
    if not argv:
        return []
    if 0 in dynamic:
        return [Run(argv[0], "script", dynamic=True)]
    language = interpreter(argv)
    if language is not None:
        return _interpreted(argv, dynamic, language)
    found = []
    if "/" in argv[0]:
        found.append(Run(argv[0], "script", _language_of(argv[0])))
    for k, word in enumerate(argv[1:], 1):
        if word.startswith("-") and "=" in word:  # `--config=x.py`
            word = word.partition("=")[2]
        elif word.startswith("-"):
            continue
        suffix = _language_of(word)
        role: Literal["script", "operand"] = "script" if suffix else "operand"
        found.append(Run(word, role, suffix, k in dynamic))
    return found


def _interpreted(argv: tuple[str, ...], dynamic: frozenset[int], language: str) -> list[Run]:
    found = [Run(argv[0], "interpreter")] if "/" in argv[0] else []
    kind, at = _program(argv, language)
    if kind == "none":  # `bash -n x.sh` reads and runs nothing
        return found
    if kind == "file":
        found.append(Run(argv[at], "script", language, at in dynamic))
        found += [Run(w, "operand", dynamic=k in dynamic) for k, w in enumerate(argv) if k > at]
        return found
    options = "".join(w[1:] for w in argv[1:at] if w[:1] == "-" and w[1:2] != "-")
    if language in CWD_LOADERS and not (language == "python" and _PYTHON_SAFE_PATH & set(options)):
        found.append(Run(argv[at] if at < len(argv) else "", "cwd", language))
    return found


# Per interpreter (bridge.shell.runners.interpreter's names): the options that take a value,
# and the letters that hand over the program as text (or, Python's `m`, a module). Each has
# its own: Python's `-O` takes none, bash's `-O extglob` does.
_WITH_VALUE = {
    "python": frozenset({"-W", "-X", "--check-hash-based-pycs"}),
    "node": frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader", "-C"})
    | frozenset({"--conditions", "--input-type", "--title", "--env-file", "--watch-path"}),
    "perl": frozenset(),
    "ruby": frozenset({"-I", "-r", "-C", "-E", "--encoding"}),
    "php": frozenset({"-c", "-d", "-z"}),
    "lua": frozenset({"-l"}),
    **dict.fromkeys(SHELLS, frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})),
}
_TEXT_LETTERS = {
    "python": "cm", "perl": "eE", "ruby": "e", "node": "ep", "php": "r", "lua": "e",
    **dict.fromkeys(SHELLS, "c"),
}  # fmt: skip
_TEXT_OPTIONS = frozenset({"--eval", "--print", "--command"})


def _program(argv: tuple[str, ...], language: str) -> tuple[Literal["file", "text", "none"], int]:
    """Whether the interpreter runs a file (and its index in argv), code given as text or on
    the standard input (the index of the text), or nothing."""
    at = skip_options(argv, 1, _WITH_VALUE[language])
    letters = _TEXT_LETTERS[language]
    for option in argv[1:at]:
        if option in _TEXT_OPTIONS or option.split("=")[0] in _TEXT_OPTIONS:
            return "text", at
        if option[:1] != "-" or option[1:2] == "-":
            continue
        if language in SHELLS and ("n" in option[1:] or "s" in option[1:]):
            return ("none" if "n" in option[1:] else "text"), at
        if any(letter in letters for letter in option[1:]):
            return "text", at
    if any(pair == ("-o", "noexec") for pair in itertools.pairwise(argv[:at])):
        return "none", at
    if at < len(argv) and argv[at] != "-" and argv[at] not in STDIN_FILES:
        return "file", at
    return "text", at


def _language_of(word: str) -> str | None:
    return SUFFIXES.get(posixpath.splitext(word)[1].lower())


def language(path: str, given: str | None = None) -> str | None:
    """The language of a script file: the interpreter it was given to, its suffix, or its
    `#!` line (`#!/usr/bin/env python3`, `#!/bin/bash`)."""
    if given is not None:
        return given
    by_suffix = _language_of(path)
    if by_suffix is not None:
        return by_suffix
    try:
        first = read_regular(path, 256)[0].split(b"\n")[0]
    except (OSError, ValueError):  # missing, a FIFO (never waited for), a NUL in the path
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if words and posixpath.basename(words[0]) == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    return interpreter((words[0],)) if words else None


# --- what a script's text names ------------------------------------------------------------


class Load(Record, frozen=True, slots=True):
    """A file a script loads, as its text names it."""

    name: str  # as written: `./lib.sh`, `$(dirname "$0")/lib.sh`, `lodash`, `json`
    base: Literal["script", "cwd", "absolute", "module", "package", "unknown"]
    path: str | None = None  # where it is, when `base` fixes it (absolute)


_SOURCE = re.compile(
    r"""(?:^|[;&|({]|\bthen\b|\bdo\b|\belse\b)[ \t]*(?:source|\.)[ \t]+"""
    r"""("[^"\n]*"|'[^'\n]*'|[^\s;&|)]+)""",
    re.MULTILINE,
)
# The shell's spellings of the directory of the script bash runs (`$0`) and of the file being
# read (`BASH_SOURCE`, which differs in a sourced file).
_SCRIPT_DIR = re.compile(r"""\$\(\s*dirname\s+"?\$(?:0|\{0\})"?\s*\)|\$\{0%/\*\}""")
_SOURCE_DIR = re.compile(
    r"""\$\(\s*dirname\s+"?\$\{?BASH_SOURCE(?:\[0\])?\}?"?\s*\)"""
    r"""|\$\{BASH_SOURCE(?:\[0\])?%/\*\}"""
)
_PLAIN_PATH = re.compile(r"[\w./+@%,:=-]+")
_ASSIGNED = re.compile(
    r"^[ \t]*(?:(?:export|local|readonly|declare)[ \t]+)?([A-Za-z_]\w*)=(.*)$", re.MULTILINE
)
_CD_PWD = re.compile(r"""\$\(\s*cd\s+(?:-P\s+)?"?HERE"?[^)]*&&\s*pwd(?:\s+-P)?\s*\)""")
_REQUIRE = re.compile(
    r"""\b(?:require|import)\s*\(\s*(['"`])([^'"`\n]+)\1\s*\)"""
    r"""|^[ \t]*import[ \t]*(['"])([^'"\n]+)\3"""
    r"""|^[ \t]*(?:import|export)\b[^'"\n;]*\bfrom[ \t]*(['"])([^'"\n]+)\5""",
    re.MULTILINE,
)
_PY_IMPORT = re.compile(
    r"^[ \t]*(?:import[ \t]+([\w., \t]+)|from[ \t]+(\w+)[\w.]*[ \t]+import\b)", re.M
)
# Node's own modules: a bare `require('fs')` never reaches a file.
NODE_BUILTINS = frozenset(
    {
        *("assert", "async_hooks", "buffer", "child_process", "cluster", "console", "crypto"),
        *("constants", "dgram", "diagnostics_channel", "dns", "domain", "events", "fs", "http"),
        *("http2", "https", "inspector", "module", "net", "os", "path", "perf_hooks", "process"),
        *("punycode", "querystring", "readline", "repl", "stream", "string_decoder", "sys"),
        *("timers", "tls", "trace_events", "tty", "url", "util", "v8", "vm", "wasi", "test"),
        *("worker_threads", "zlib"),
    }
)


def loaded_by(
    path: str, lang: str | None, project: str, home: str, script: str | None = None
) -> list[Load] | str:
    """What the file at `path` names to load, or why it cannot be read. `script`: the script
    bash runs when `path` is a file it sources (its `$0`); `path` itself by default."""
    if lang is None:
        return []
    try:
        data = read_regular(path, MAX_SCRIPT_BYTES + 1)[0]
    except FileNotFoundError:
        return []  # nothing there yet: the script itself is kept
    except OSError as error:
        return f"cannot be read ({error.strerror or error})"
    except ValueError as error:  # a NUL in the path
        return f"cannot be read ({error})"
    if len(data) > MAX_SCRIPT_BYTES:
        return f"is over {MAX_SCRIPT_BYTES} bytes, more than ccbridge reads"
    text = data.decode("utf-8", "replace")
    here = posixpath.dirname(path)
    if lang in SHELLS:
        text = _script_dir_put_in(text, posixpath.dirname(script or path), here)
        return [_shell_load(m.group(1), here, project, home) for m in _SOURCE.finditer(text)]
    if lang == "node":
        return [
            _node_load(next(g for g in m.groups()[1::2] if g), here)
            for m in _REQUIRE.finditer(text)
        ]
    if lang == "python":
        return [Load(name, "module") for name in _python_imports(text)]
    return []


def _script_dir_put_in(text: str, top: str, here: str) -> str:
    """The shell's spellings of the script's directory (`top`: `$(dirname "$0")`, `${0%/*}`) and
    of the file's (`here`: `${BASH_SOURCE[0]%/*}`), and a variable set once to one of them
    (`DIR="$(cd "$(dirname "$0")" && pwd)"`), replaced by them where they need no quoting."""
    if not (_PLAIN_PATH.fullmatch(here) and _PLAIN_PATH.fullmatch(top)):
        return text
    text = _SCRIPT_DIR.sub(lambda _m: top, _SOURCE_DIR.sub(lambda _m: here, text))
    assigned = _ASSIGNED.findall(text)
    times = Counter(name for name, _value in assigned)
    for name, value in assigned:
        if times[name] != 1:
            continue  # set more than once: which value a `source` sees is not known
        stripped = value.strip().strip('"')
        for directory in dict.fromkeys((top, here)):
            if stripped == directory or _CD_PWD.fullmatch(stripped.replace(directory, "HERE")):
                # (a plain path, no backslash: the replacement is taken as it is)
                text = re.sub(rf"\$(?:\{{{name}\}}|{name}\b)", directory, text)
                break
    return text


def _shell_load(word: str, here: str, project: str, home: str) -> Load:
    name = word[1:-1] if word[:1] in "\"'" and word[-1:] == word[:1] else word
    quoted = word[:1] == "'"
    text = name
    if not quoted:
        for variable in ("CLAUDE_PROJECT_DIR", "HOME"):
            value = project if variable == "CLAUDE_PROJECT_DIR" else home
            text = text.replace("${" + variable + "}", value).replace("$" + variable, value)
        if text == "~" or text.startswith("~/"):
            text = home + text[1:]
    if "$" in text or "`" in text:
        return Load(name, "unknown")
    if text.startswith("/"):
        base: Literal["script", "absolute"] = (
            "script" if text.startswith(here + "/") else "absolute"
        )
        return Load(name, base, posixpath.normpath(text))
    return Load(name, "cwd")  # `source lib.sh` searches PATH, then the current directory


def _node_load(specifier: str, here: str) -> Load:
    if specifier.startswith(("./", "../")) or specifier in (".", ".."):
        return Load(specifier, "script", posixpath.normpath(posixpath.join(here, specifier)))
    if specifier.startswith("/"):
        return Load(specifier, "absolute", posixpath.normpath(specifier))
    if specifier.startswith("node:") or specifier.split("/")[0] in NODE_BUILTINS:
        return Load(specifier, "module")
    return Load(specifier, "package")  # looked up in node_modules, from here upwards


def _python_imports(text: str) -> list[str]:
    names: list[str] = []
    for found in _PY_IMPORT.finditer(text):
        if found.group(2):
            listed = [found.group(2)]
        else:
            listed = [part.split()[0] for part in found.group(1).split(",") if part.split()]
        for name in listed:
            top = name.split(".")[0]
            if top.isidentifier() and top not in names:
                names.append(top)
    return names


def python_files(directory: str, module: str) -> list[str]:
    """The files by which `import module` finds code in `directory` (a sys.path entry): its
    source, bytecode and extension-module forms, and its package directory."""
    from importlib.machinery import all_suffixes

    return [
        os.path.join(directory, module),
        *(os.path.join(directory, module + suffix) for suffix in all_suffixes()),
    ]
