"""bridge.shell.hookcode: the script of a hook command told apart from its other words, for any
spelling of the interpreter, its options and what follows, and what a script's text names."""

from __future__ import annotations

import shlex
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from bridge.shell import runners
from bridge.shell.hookcode import Load, Run, argv_runs, language, loaded_by, runs
from bridge.shell.runners import SHELLS

NAMES = st.text("abcdefghijklmnopqrstuvwxyz0123456789_-", min_size=1, max_size=8)
DIRS = st.lists(NAMES, min_size=1, max_size=4).map(lambda parts: "/" + "/".join(parts))
# (interpreter spellings, options that take no value, options with their value, suffix)
LANGUAGES = {
    "python": (("python", "python3", "python3.12", "/usr/bin/python3"), ("-u", "-B", "-O", "-s"),
               (("-W", "ignore"), ("-X", "utf8")), ".py"),
    "bash": (("bash", "sh", "dash", "/bin/bash"), ("-e", "-x", "-eu", "--norc"),
             (("-o", "pipefail"), ("-O", "extglob")), ".sh"),
    "node": (("node", "nodejs", "/usr/local/bin/node"), ("--trace-warnings", "--no-warnings"),
             (("--require", "r"),), ".js"),
}  # fmt: skip
WRAPPERS = st.sampled_from(["", "env X=1 ", "exec ", "timeout 5 ", "nice -n 5 ", "cat | "])


@st.composite
def hook_commands(draw: st.DrawFn) -> tuple[str, str, str]:
    """(command line, its script, the script's language)."""
    lang = draw(st.sampled_from(sorted(LANGUAGES)))
    names, flags, valued, suffix = LANGUAGES[lang]
    units = [(flag,) for flag in draw(st.lists(st.sampled_from(flags), max_size=3))]
    units += draw(st.lists(st.sampled_from(valued), max_size=2))
    options = [word for unit in draw(st.permutations(units)) for word in unit]
    script = draw(DIRS) + "/" + draw(NAMES) + suffix
    rest = draw(st.lists(st.sampled_from(["--strict", "-v", "x.json", "/tmp/out"]), max_size=3))
    words = [draw(st.sampled_from(names)), *options, script, *rest]
    return draw(WRAPPERS) + shlex.join(words), script, lang


@given(hook_commands())
def test_the_script_is_told_apart_from_the_interpreter_its_options_and_arguments(
    case: tuple[str, str, str],
) -> None:
    command, script, lang = case
    found = runs(command)
    assert isinstance(found, list)
    scripts = [run for run in found if run.role == "script"]
    assert [(run.word, run.dynamic) for run in scripts] == [(script, False)], found
    assert scripts[0].language in (SHELLS if lang == "bash" else {lang})
    # what follows the script is its arguments, never a script of the hook
    assert all(run.role == "operand" for run in found[found.index(scripts[0]) + 1 :])


@given(DIRS, NAMES)
def test_a_program_named_by_path_is_a_script_and_its_words_are_its_arguments(
    directory: str, name: str
) -> None:
    program = f"{directory}/{name}"
    found = runs(shlex.join([program, "--flag", "data/x.json"]))
    exec_form = argv_runs((program, "x.txt"))
    if runners.interpreter((name,)):  # `.venv/bin/python`: the interpreter, run by path
        assert isinstance(found, list) and found[0] == Run(program, "interpreter")
        assert exec_form[0] == Run(program, "interpreter")
        return
    assert isinstance(found, list) and found[0] == Run(program, "script")
    if name not in runners.UNWRAPPED:  # (a wrapper's name: read as the wrapper's command)
        assert found[1:] == [Run("data/x.json", "operand")]
    assert exec_form == [Run(program, "script"), Run("x.txt", "operand")]


def test_the_code_of_a_nested_shell_has_the_known_variables_put_in() -> None:
    command = "sh -c 'exec python3 \"$CLAUDE_PROJECT_DIR/hooks/g.py\"'"
    found = runs(command, {"CLAUDE_PROJECT_DIR": "/p q"})
    assert isinstance(found, list) and Run("/p q/hooks/g.py", "script", "python") in found
    unknown = runs(command)
    assert isinstance(unknown, list) and [r.dynamic for r in unknown if r.role == "script"] == [
        True
    ]


def test_code_given_as_text_runs_with_the_current_directory_unless_isolated() -> None:
    for command in ("python3 -m tool", "python3 -c 'import x'", "node -e 'require(1)'"):
        found = runs(command)
        assert isinstance(found, list) and [r.role for r in found] == ["cwd"], command
    for command in ("python3 -I -c 'import x'", "python3 -P -m tool", "bash -c true"):
        found = runs(command)
        assert isinstance(found, list) and [r for r in found if r.role == "cwd"] == []


def test_a_script_s_language_is_its_interpreter_suffix_or_first_line(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("#!/usr/bin/env -S python3 -u\n")
    (tmp_path / "b").write_text("#!/bin/bash\n")
    (tmp_path / "c").write_bytes(b"\x7fELF")
    assert [language(str(tmp_path / n)) for n in "abc"] == ["python", "bash", None]
    assert language(str(tmp_path / "c"), "node") == "node"
    assert language(str(tmp_path / "x.mjs")) == "node"


def test_python_imports_are_read_by_their_top_level_names(tmp_path: Path) -> None:
    script = tmp_path / "g.py"
    script.write_text(
        "import os.path, json as j\nfrom yaml.loader import X\nfrom . import sibling\n"
        "    import lazy\nx = 'import not_code'\n"
    )
    found = loaded_by(str(script), "python", "/p", "/h")
    assert found == [Load(n, "module") for n in ("os", "json", "yaml", "lazy")]
