"""Whether a git verb that moves HEAD changes a protected file: asked of git itself, only for
those verbs in a work tree whose index lists a ccbridge or Claude Code settings file.

`git checkout T` / `switch T` rewrite what differs between HEAD and T; `merge T` brings the
commits of `HEAD..T`; `rebase U` (`--onto O`) resets to U (O) and replays `U..HEAD`;
`cherry-pick C` / `revert C` apply `C^!`. Each is one `git diff --quiet` or `git rev-list`
over the protected paths, with a short timeout. `pull` (and a target only the run names)
is a question; a target git cannot read, a timeout or any other failure is a change."""

from __future__ import annotations

import os

from bridge.guards.git_query import ask_git

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

CHANGES, SAME, UNKNOWN = "changes", "same", "unknown"
# The tracked files that count (the marks bridge.guards.protect.writes looks for in the index).
PATHSPECS = (":(glob)**/.claude/settings*", ":(glob)**/.claude/ccbridge*", ":(glob)**/ccbridge/**")


def moves(top: str, git_dir: str | None, verb: str, words: Sequence[str]) -> str:
    """CHANGES, SAME or UNKNOWN for `git VERB WORDS` run in the work tree at `top`."""
    if verb == "pull":
        return UNKNOWN  # what it merges is fetched when it runs
    options = [w for w in words if w.startswith("-") and w != "-"]
    operands = _operands(words)
    if any("$" in w or "`" in w for w in operands):
        return UNKNOWN
    answer = _moves(top, git_dir, verb, words, options, operands)
    if answer == SAME and _remote(top, git_dir, verb, operands):
        return UNKNOWN  # a fetch in the same line may move the remote ref first
    return answer


def _moves(
    top: str,
    git_dir: str | None,
    verb: str,
    words: Sequence[str],
    options: Sequence[str],
    operands: Sequence[str],
) -> str:
    if verb in ("checkout", "switch"):
        if any(o in ("--orphan",) for o in options):
            return CHANGES
        # (`-b NEW [START]`: NEW is -b's value; the operand, if any, is where it starts)
        target = operands[0] if operands else "HEAD"
        target = "@{-1}" if target == "-" else target
        same = _same_tree(top, git_dir, "HEAD", target)
        if same == CHANGES and verb == "checkout" and _a_path(top, git_dir, target):
            return SAME  # `git checkout FILE`: the paths given are judged, HEAD stays
        return same
    if verb == "merge":
        if any(o in ("--abort", "--quit", "--continue", "--skip") for o in options):
            return CHANGES
        targets = operands or ["@{upstream}"]
        results = [_no_commits(top, git_dir, f"HEAD..{t}") for t in targets]
        return _worst(results)
    if verb == "rebase":
        if any(o in ("--abort", "--quit", "--continue", "--skip", "--root") for o in options):
            return CHANGES
        onto = _value(words, "--onto")
        upstream = operands[0] if operands else "@{upstream}"
        if len(operands) > 1:
            return CHANGES  # `rebase U BRANCH` first checks out BRANCH
        base = onto or upstream
        return _worst(
            [
                _same_tree(top, git_dir, "HEAD", base),
                _no_commits(top, git_dir, f"{upstream}..HEAD"),
            ]
        )
    if verb in ("cherry-pick", "revert"):
        if not operands or any(o in ("--abort", "--quit", "--continue", "--skip") for o in options):
            return CHANGES
        return _worst([_no_commits(top, git_dir, o if ".." in o else f"{o}^!") for o in operands])
    return CHANGES


def _remote(top: str, git_dir: str | None, verb: str, operands: Sequence[str]) -> bool:
    """Whether a target is a remote's ref (`origin/main`, `FETCH_HEAD`, the upstream)."""
    if verb in ("merge", "rebase") and not operands:
        return True  # `@{upstream}`
    if any(o == "FETCH_HEAD" or "@{u" in o for o in operands):
        return True
    listed = ask_git(top, ["remote"], git_dir)
    remotes = set(listed.stdout.split()) if listed is not None else set()
    return any(o.split("/", 1)[0] in remotes for o in operands if "/" in o)


def _operands(words: Sequence[str]) -> list[str]:
    found, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word == "--":
            break  # paths follow
        elif word.startswith("-") and word != "-":  # (`-` is the previous branch)
            skip = word in _WITH_VALUE
        else:
            found.append(word)
    return found


_WITH_VALUE = frozenset(
    {"-b", "-B", "-c", "-C", "--orphan", "-s", "--strategy", "-X", "--strategy-option", "-m"}
    | {"--message", "--onto", "-x", "--exec", "-F", "--file", "--conflict", "--into-name"}
)


def _value(words: Sequence[str], option: str) -> str | None:
    for k, word in enumerate(words):
        if word == option and k + 1 < len(words):
            return words[k + 1]
        if word.startswith(option + "="):
            return word.split("=", 1)[1]
    return None


def _worst(results: Sequence[str]) -> str:
    return CHANGES if CHANGES in results else UNKNOWN if UNKNOWN in results else SAME


def _same_tree(top: str, git_dir: str | None, a: str, b: str) -> str:
    args = ["diff", "--quiet", "--no-ext-diff", "--no-textconv", a, b, "--", *PATHSPECS]
    code = _git(top, git_dir, args)
    return SAME if code == 0 else CHANGES


def _a_path(top: str, git_dir: str | None, word: str) -> bool:
    """A word git takes as a pathspec, not a commit: no such revision, and a file by that name."""
    done = ask_git(top, ["rev-parse", "--verify", "-q", f"{word}^{{commit}}"], git_dir)
    return done is not None and done.returncode == 1 and os.path.lexists(os.path.join(top, word))


def _no_commits(top: str, git_dir: str | None, spec: str) -> str:
    args = ["rev-list", "-n1", spec, "--", *PATHSPECS]
    done = ask_git(top, args, git_dir)
    if done is None or done.returncode != 0:
        return CHANGES
    return SAME if not done.stdout.strip() else CHANGES


def _git(top: str, git_dir: str | None, args: list[str]) -> int:
    done = ask_git(top, args, git_dir)
    return 2 if done is None else done.returncode
