"""Code handed to an interpreter as text (`python -c`, `perl -e`, `node -e`, a here-document).

Not a parser for five languages: it finds the calls that run shell commands or delete whole
trees (`os.system("...")`, `subprocess.run([...])`, perl's `system` and backquotes, node's
`execSync`, `shutil.rmtree(...)`, `fs.rmSync(...)`, `FileUtils.rm_rf(...)`) and hands what
they are given to the shell judge and the target judge. The code itself is also read as shell,
since `perl -e "rm -rf /"`-style confusions are cheap to catch.
"""

from __future__ import annotations

import re
from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Iterator

_STRING = r"""(?P<prefix>[rbuf]?)(?P<q>['"])(?P<text>(?:\\.|(?!(?P=q)).)*)(?P=q)"""
_ARGUMENT_END = re.compile(r"\s*[),]")  # else the string is built on: `"rm -rf " + path`
_FIELD = re.compile(r"\{[^}]*\}")
_SHELL_CALL = re.compile(
    r"\b(?:system|popen|exec[A-Za-z]*|spawn[A-Za-z]*|call|run|check_output|check_call|Popen"
    r"|getoutput|getstatusoutput|qx)\s*\(?\s*" + _STRING,
    re.DOTALL,
)
_COMPUTED_CALL = re.compile(
    r"\b(?P<call>system|popen|execSync)\s*\(\s*(?![rbuf]?['\"])(?P<arg>[^)]*)"
)
_BACKTICKS = re.compile(r"`([^`]+)`|\bqx\s*[{(]([^})]*)[})]|%x\(([^)]*)\)")
_LIST = re.compile(r"\[([^\[\]]*)\]")
_LITERAL = re.compile(_STRING, re.DOTALL)
_TREE_DELETE = re.compile(
    r"\b(?P<call>rmtree|remove_tree|rm_rf|rm_r|remove_dir|remove_entry_secure|rmSync"
    r"|(?:fs|promises|fsp)\.rm|rmdirSync|rimraf(?:\.sync)?|Deno\.remove)\s*\(?\s*(?P<arg>[^,)\n;]*)",
)

ShellJudge = Callable[[str], str | None]
TargetJudge = Callable[[str], str | None]


def code_objection(code: str, shell: ShellJudge, target: TargetJudge) -> str | None:
    """The first harm found in `code`: a shell command it runs, or a tree it deletes."""
    for command in _shell_commands(code):
        if reason := shell(command):
            return reason
    if found := _COMPUTED_CALL.search(code):
        return (
            f"cannot tell what this runs: {found['call']}({found['arg'].strip()}) runs a "
            "command only known when the code runs"
        )
    for found in _TREE_DELETE.finditer(code):
        call, arg = found["call"], found["arg"].strip()
        if call.endswith((".rm", "rmdirSync")) and not _recursive_rm(code, found.end()):
            continue
        literal = _LITERAL.fullmatch(arg)
        if literal is None:
            return (
                f"cannot tell what this deletes: {call}({arg}) removes a whole tree "
                "whose path is only known when the code runs"
            )
        if what := target(literal["text"]):
            return f"{call} recursively deletes {what}"
    return None


def _shell_commands(code: str) -> Iterator[str]:
    yield code
    for found in _SHELL_CALL.finditer(code):
        text = found["text"]  # what is only known at run time becomes a `$X` the judge sees
        text = _FIELD.sub("$X", text) if "f" in found["prefix"] else text
        yield text if _ARGUMENT_END.match(code, found.end()) else text + "$X"
    for found in _BACKTICKS.finditer(code):
        yield next(group for group in found.groups() if group is not None)
    for found in _LIST.finditer(code):
        words = [m["text"] for m in _LITERAL.finditer(found[1])]
        if words and not _LITERAL.sub("", found[1]).replace(",", "").strip():
            yield " ".join(_quote(word) for word in words)


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\\''") + "'"


def _recursive_rm(code: str, end: int) -> bool:
    """Node's `fs.rm(path, {recursive: true})`: only the recursive form deletes trees."""
    return "recursive" in code[end : end + 200]
