"""Git commands that destroy uncommitted work or shared history, each a rule a project can switch.

Every rule but `git-push-force-with-lease` is on by default: what they destroy has no copy
that git can restore. A lease only overwrites commits the pusher has fetched, so it is opt-in.
"""

from __future__ import annotations

from itertools import pairwise

from bridge.guards.dangerous.targets import Unknown
from bridge.shell.runners import skip_options
from bridge.shell.syntax import SimpleCommand

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Callable, Sequence

RULES = {
    "git-reset-hard": "git reset --hard",
    "git-clean": "git clean -f (without -n)",
    "git-push-force": "git push --force / -f / +refspec",
    "git-push-force-with-lease": "git push --force-with-lease (off by default)",
    "git-push-mirror": "git push --mirror",
    "git-push-delete": "git push --delete / -d / :branch / --prune",
    "git-discard-changes": "git checkout -- . / git restore . / checkout -f / switch -f",
    "git-stash-drop": "git stash drop / clear",
    "git-branch-force-delete": "git branch -D",
}
DEFAULT_ON = frozenset(RULES) - {"git-push-force-with-lease"}

_GIT_OPTIONS_WITH_VALUE = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
)
# Pathspecs that name the whole working tree (or more).
_EVERYTHING = frozenset({".", "./", "*", ":/", ":/*", ":(top)", ":(glob)**", "..", "../", "/"})

# The long options the rules look for, in the order an ambiguous prefix is read (`--forc`).
_LONG_OPTIONS = (
    "--hard", "--force", "--force-with-lease", "--mirror", "--delete", "--prune", "--dry-run",
    "--staged", "--worktree", "--discard-changes",
)  # fmt: skip
_Found = tuple[str, str] | None  # (rule, reason)


def git_objection(
    command: SimpleCommand, enabled: frozenset[str], cwd: str | None = None
) -> str | None:
    """Why the enabled rules forbid this git command, else None. `cwd`: where it runs, for
    an alias set in the repository's or the user's git config by an earlier command."""
    argv = command.argv
    if command.name != "git":
        return None
    i = skip_options(argv, 1, _GIT_OPTIONS_WITH_VALUE)
    if i >= len(argv):
        return None
    if i in command.dynamic:
        return Unknown(f"cannot tell which git subcommand `{argv[i]}` is before the command runs")
    env = command.words[: len(command.words) - len(command.argv)]
    args = aliased(argv[:i], argv[i:], env) or configured(argv[1:i], argv[i:], cwd) or argv[i:]
    if args[0].startswith("!"):
        return None  # a shell alias: its code is judged as shell code (`shell_alias`)
    check = _SUBCOMMANDS.get(args[0])
    found = check(args[1:]) if check else None
    if found and found[0] in enabled:
        return found[1]
    return None


# Subcommands git ships (an alias cannot replace them): no config is read for these.
_BUILTINS = frozenset(
    [
        "add",
        "am",
        "annotate",
        "apply",
        "archive",
        "bisect",
        "blame",
        "branch",
        "bundle",
        "cat-file",
        "check-ignore",
        "check-attr",
        "checkout",
        "checkout-index",
        "cherry",
        "cherry-pick",
        "citool",
        "clone",
        "commit",
        "commit-tree",
        "config",
        "count-objects",
        "describe",
        "diff",
        "diff-files",
        "diff-index",
        "diff-tree",
        "difftool",
        "fetch",
        "for-each-ref",
        "format-patch",
        "fsck",
        "gc",
        "grep",
        "gui",
        "hash-object",
        "help",
        "init",
        "instaweb",
        "log",
        "ls-files",
        "ls-remote",
        "ls-tree",
        "maintenance",
        "merge",
        "merge-base",
        "mergetool",
        "mv",
        "notes",
        "pull",
        "push",
        "range-diff",
        "read-tree",
        "rebase",
        "reflog",
        "remote",
        "repack",
        "replace",
        "request-pull",
        "rerere",
        "reset",
        "restore",
        "rev-list",
        "rev-parse",
        "revert",
        "rm",
        "send-email",
        "shortlog",
        "show",
        "show-branch",
        "show-ref",
        "sparse-checkout",
        "stash",
        "status",
        "submodule",
        "switch",
        "symbolic-ref",
        "tag",
        "update-index",
        "update-ref",
        "var",
        "verify-commit",
        "version",
        "whatchanged",
        "worktree",
        "write-tree",
    ]
)


def configured(
    options: Sequence[str], args: Sequence[str], cwd: str | None
) -> tuple[str, ...] | None:
    """The words `git ARGS` runs when ARGS[0] is an alias in git's configuration where it
    runs (set by an earlier call: `git config alias.x push`), as `aliased` gives them; None
    for a subcommand git ships (no config is read then) or no such alias."""
    if not args or not cwd or args[0] in _SUBCOMMANDS or args[0] in _BUILTINS:
        return None
    from bridge.guards.dangerous.git_config import configured_alias

    value = configured_alias(args[0], cwd, options)
    if value is None:
        return None
    return (value, *args[1:]) if value.startswith("!") else (*value.split(), *args[1:])


def aliased(
    options: Sequence[str], args: Sequence[str], env: Sequence[str] = ()
) -> tuple[str, ...] | None:
    """The words a `git -c alias.NAME=VALUE NAME ARGS` call runs: VALUE's words, then ARGS
    (a VALUE starting with `!` is shell code, kept whole); None when no alias is used. `env`:
    the command's assignments, where `GIT_CONFIG_PARAMETERS` and `GIT_CONFIG_COUNT` with
    `GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` set configuration too."""
    settings = [value for option, value in pairwise(options) if option == "-c"]
    settings += [option[2:] for option in options if option.startswith("-c") and option != "-c"]
    settings += _environment_settings(env)
    aliases = {
        value[6:].partition("=")[0]: value.partition("=")[2]
        for value in settings
        if value.startswith("alias.")
    }
    value = aliases.get(args[0]) if args else None
    if not value:
        return None
    if value.startswith("!"):
        return (value, *args[1:])
    return (*value.split(), *args[1:])


def _environment_settings(env: Sequence[str]) -> list[str]:
    """`KEY=VALUE` settings from `GIT_CONFIG_PARAMETERS="'k=v' 'k2=v2'"` and numbered pairs."""
    values = dict(word.partition("=")[::2] for word in env if "=" in word)
    found = [
        item.strip("'")
        for item in values.get("GIT_CONFIG_PARAMETERS", "").split("' '")
        if "=" in item
    ]
    count = values.get("GIT_CONFIG_COUNT", "0")
    for n in range(int(count) if count.isdigit() else 0):
        key, value = values.get(f"GIT_CONFIG_KEY_{n}"), values.get(f"GIT_CONFIG_VALUE_{n}")
        if key is not None and value is not None:
            found.append(f"{key}={value}")
    return found


def _flags(args: Sequence[str], no_value: str = "") -> set[str]:
    """Options before `--`: long ones whole (without `=value`), short clusters letter by letter.

    A short cluster stops at the first letter not in `no_value` when that is given: the rest is
    the option's value (`-oci.skip`).
    """
    found: set[str] = set()
    for word in args:
        if word == "--":
            break
        if word.startswith("--"):
            found.add(_unabbreviated(word.split("=", 1)[0]))
        elif word.startswith("-") and len(word) > 1:
            for letter in word[1:]:
                found.add("-" + letter)
                if no_value and letter not in no_value:
                    break
    return found


def _unabbreviated(option: str) -> str:
    """git takes any unambiguous prefix of a long option: `--ha` is `--hard`."""
    if option in _LONG_OPTIONS or len(option) < 4:
        return option
    return next((full for full in _LONG_OPTIONS if full.startswith(option)), option)


def _operands(args: Sequence[str]) -> tuple[list[str], list[str]]:
    """Non-option words before `--`, and the words after it."""
    if "--" in args:
        cut = list(args).index("--")
        return [w for w in args[:cut] if not w.startswith("-")], list(args[cut + 1 :])
    return [w for w in args if not w.startswith("-")], []


def _reset(args: Sequence[str]) -> _Found:
    if "--hard" in _flags(args):
        return "git-reset-hard", (
            "git reset --hard throws away every uncommitted change in the working tree and "
            "the index, and git keeps no copy of them (commit or `git stash` first)"
        )
    return None


def _clean(args: Sequence[str]) -> _Found:
    flags = _flags(args)
    if not flags & {"-f", "--force"} or flags & {"-n", "--dry-run"}:
        return None
    extra = " and ignored ones (-x)" if flags & {"-x", "-X"} else ""
    return "git-clean", (
        f"git clean -f deletes untracked files{extra}; they were never committed, so git "
        "cannot bring them back (list them first with `git clean -n`)"
    )


def _push(args: Sequence[str]) -> _Found:
    flags = _flags(args, no_value="46ufnqvd")  # -o takes a value: `-oci.skip` is not -f
    if "--mirror" in flags:
        return "git-push-mirror", (
            "git push --mirror makes the remote an exact copy of this repository: its "
            "branches and tags missing here are deleted, the others overwritten"
        )
    if flags & {"--force", "-f"}:
        word = "--force" if "--force" in flags else "-f"
        return "git-push-force", (
            f"{word} overwrites the remote branch and can destroy others' commits "
            "(use --force-with-lease)"
        )
    operands, after = _operands(args)
    refspecs = [*operands[1:], *after]
    if forced := next((r for r in refspecs if (r[:1] == "+" and len(r) > 1) or ":+" in r), None):
        return "git-push-force", f"the refspec {forced} force-pushes, overwriting the remote branch"
    deleted = [r.lstrip(":") for r in refspecs if r.startswith(":") and len(r) > 1]
    if flags & {"--delete", "-d"}:
        deleted = refspecs
    if deleted or "--prune" in flags:
        what = ", ".join(deleted) if deleted else "every branch that has no local counterpart"
        return "git-push-delete", (
            f"deletes the remote branch {what}: commits only it holds are lost for everyone "
            "who uses the remote"
        )
    if "--force-with-lease" in flags or any(f.startswith("--force-") for f in flags):
        return "git-push-force-with-lease", (
            "--force-with-lease still overwrites the remote branch: after any fetch "
            "(an editor's background fetch too) it drops commits others pushed"
        )
    return None


def _discard(pathspecs: Sequence[str], command: str) -> _Found:
    if everything := next((p for p in pathspecs if p in _EVERYTHING), None):
        return "git-discard-changes", (
            f"{command} {everything} throws away every uncommitted change in the working "
            "tree, and git keeps no copy of them (commit or `git stash` first)"
        )
    return None


def _checkout(args: Sequence[str]) -> _Found:
    if _flags(args, no_value="qfmlpt") & {"-f", "--force"}:  # `-bfeature`: -b's value
        return "git-discard-changes", (
            "git checkout -f throws away every uncommitted change in the working tree, "
            "and git keeps no copy of them"
        )
    operands, after = _operands(args)
    return _discard([*operands, *after], "git checkout")


def _restore(args: Sequence[str]) -> _Found:
    flags = _flags(args)
    if flags & {"-S", "--staged"} and not flags & {"-W", "--worktree"}:
        return None  # only unstages: the changes stay in the working tree
    operands, after = _operands(args)
    return _discard([*operands, *after], "git restore")


def _switch(args: Sequence[str]) -> _Found:
    # `-cfeature`, `-Cfixup`: -c and -C take the new branch's name
    if _flags(args, no_value="dfmqt") & {"-f", "--force", "--discard-changes"}:
        return "git-discard-changes", (
            "git switch --discard-changes throws away every uncommitted change in the "
            "working tree, and git keeps no copy of them"
        )
    return None


def _stash(args: Sequence[str]) -> _Found:
    if args and args[0] in ("drop", "clear"):
        return "git-stash-drop", (
            f"git stash {args[0]} deletes stashed changes; afterwards they survive only as "
            "unreachable objects until git's next garbage collection"
        )
    return None


def _branch(args: Sequence[str]) -> _Found:
    flags = _flags(args)
    if "-D" in flags or (flags & {"-d", "--delete"} and flags & {"-f", "--force"}):
        names = ", ".join(_operands(args)[0]) or "the branch"
        return "git-branch-force-delete", (
            f"git branch -D deletes {names} even when its commits are merged nowhere else"
        )
    return None


_SUBCOMMANDS: dict[str, Callable[[Sequence[str]], _Found]] = {
    "reset": _reset,
    "clean": _clean,
    "push": _push,
    "checkout": _checkout,
    "restore": _restore,
    "switch": _switch,
    "stash": _stash,
    "branch": _branch,
}
