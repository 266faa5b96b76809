"""What the writing commands with a syntax of their own write, for the path guards:
`cp`/`mv`/`ln`/`install`/`rsync` (sources, destinations and what lands in them), `find` with
`-delete` or a writing `-exec`, archive extraction, `git apply`/`git am`/`patch` (the paths
inside the patch) and the other git commands that write the paths they are given, and sed `w`
and awk print redirections.

`bridge.guards.protect.protect_paths` decides which commands these are and loads this module only
for a line that holds one: most command lines write nothing, and every hook call would pay for it.
"""

from __future__ import annotations

import posixpath

from bridge.guards.protect import ANY_ABOVE, MOVERS, NOT_ABOVE, PARENT_ABOVE, Target
from bridge.shell import Lazy, pairs
from bridge.shell.runners import skip_options

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hot path: docs/architecture.md
    from collections.abc import Iterator, Mapping

    from bridge.shell.syntax import SimpleCommand

_RECURSIVE = frozenset({"-r", "-R", "-a", "--recursive", "--archive"})
# Options that take the next word as their value. A value option missing here only makes its
# value a source (more is judged); a flag wrongly here would hide the destination after it.
_COPY_VALUES = frozenset({"-t", "-S", "--target-directory", "--suffix"})  # cp, mv, ln
_INSTALL_VALUES = (
    _COPY_VALUES | {"-m", "-o", "-g", "--mode", "--owner", "--group"} | {"--strip-program"}
)
_RSYNC_VALUES = frozenset(
    {"-e", "-f", "-B", "-T", "-M", "--rsh", "--filter", "--block-size", "--temp-dir"}
    | {"--remote-option", "--exclude", "--include", "--exclude-from", "--include-from"}
    | {"--files-from", "--log-file", "--partial-dir", "--backup-dir", "--suffix", "--chmod"}
    | {"--chown", "--rsync-path", "--compare-dest", "--copy-dest", "--link-dest"}
)
_AWK_OUTPUT = Lazy(r"\bprintf?\b(?:\"[^\"]*\"|[^;\n}\"])*?(?:>>?|\|)\s*(\"([^\"]*)\"|[^\s;}]+)")
# `w`/`W` after an address (`1w f`, `$w f`, `1!w f`), in a block (`/x/{w f`), after a command
# or as the flag of `s` (`s/a/b/w f`, `s/a/b/gw f`)
_SED_WRITE = Lazy(r"(?:^|[;/\s{}$!\d]|/[gpeiImM\d]+)[wW]\s+(\S+)")
_PATCH_PATH = Lazy(
    r"(?m)^(?:\+\+\+|---|rename to|rename from|copy to) (\S+)|^diff --git (\S+) (\S+)"
)
_DRY_RUNS = frozenset(
    {"-n", "--dry-run", "--check", "--stat", "--numstat", "--summary", "--abort", "--quit"}
)
MAX_PATCH_BYTES = 1 << 20


def operand_indexes(argv: tuple[str, ...], with_value: frozenset[str]) -> list[int]:
    """Indexes of operands (not options or their values), `--` respected."""
    out: list[int] = []
    i = 1
    while i < len(argv):
        j = min(skip_options(argv, i, with_value), len(argv))  # `cp x -t`: -t has no value
        if j > i and argv[j - 1] == "--":
            out += range(j, len(argv))
            break
        if j < len(argv):
            out.append(j)
        i = j + 1
    return out


def copied(command: SimpleCommand) -> Iterator[Target]:
    """cp/mv/ln/install/rsync: sources, the destination and what lands in it."""
    argv, dynamic, name = command.argv, command.dynamic, command.name
    values = {"rsync": _RSYNC_VALUES, "install": _INSTALL_VALUES}.get(name, _COPY_VALUES)
    operands = operand_indexes(argv, values)
    flags = [w for w in argv[1:] if w.startswith("-")]
    short = "".join(w[1:] for w in flags if not w.startswith("--"))
    recursive = bool(set(flags) & _RECURSIVE) or bool(set(short) & {"r", "R", "a"})
    into = _target_directories(argv, values)  # (none for rsync: its `-t` is --times)
    if not into and len(operands) > 1:  # `ln -s target` links into here; `cp x` is an error
        last = operands.pop()
        into = [(last, argv[last])]
    moved = name in MOVERS or "--remove-source-files" in flags
    if moved:  # sources moved away or linked to (a copy only reads them)
        yield from (Target(argv[i], i in dynamic) for i in operands)
    whole = "T" in short or "--no-target-directory" in flags  # the destination is replaced
    reach = ANY_ABOVE if recursive or moved else NOT_ABOVE
    for dest, base in into:
        yield Target(base, dest in dynamic, ANY_ABOVE if whole else PARENT_ABOVE)
        for i in operands:  # `cp x dir/` writes dir/x; `cp -r dir/. .` writes into `.` itself
            landed = posixpath.join(base, posixpath.basename(argv[i]))
            yield Target(landed, i in dynamic or dest in dynamic, reach)


def _target_directories(argv: tuple[str, ...], values: frozenset[str]) -> list[tuple[int, str]]:
    """Where `-t D`, `-tD`, `-vt D`, `--target-directory D` or `=D` (or an abbreviation such as
    `--target=D`, which getopt accepts) put the files: the index of the word holding D, and D.
    In a cluster the first letter that takes a value ends it (`-otom`: owner `tom`)."""
    out = []
    for i, word in enumerate(argv[1:], 1):
        if word == "--":
            break
        option, _, value = word.partition("=")
        if option.startswith("--"):
            if len(option) > 2 and "--target-directory".startswith(option):
                out += _value_of(argv, i, value)  # ("" without a `=`)
            continue
        for k in range(1, len(word) if word.startswith("-") else 0):
            if "-" + word[k] in values:
                out += _value_of(argv, i, word[k + 1 :]) if word[k] == "t" else []
                break
    return out


def _value_of(argv: tuple[str, ...], i: int, attached: str) -> list[tuple[int, str]]:
    """The value of the option at `i`: the part `attached` to it, else the next word."""
    return [(i, attached)] if attached else [(i + 1, w) for w in argv[i + 1 : i + 2]]


def found(command: SimpleCommand) -> Iterator[Target]:
    """find with -delete or a writing -exec: its starting points, and whatever it may reach."""
    argv = command.argv
    i = 1  # past find's own options (`-H`, `-L`, `-P`, `-D debug`, `-O3`), not the expression's
    while i < len(argv) and (argv[i] in ("-H", "-L", "-P", "-D") or argv[i][:2] == "-O"):
        i += 2 if argv[i] in ("-D", "-O") else 1
    starts = []
    while i < len(argv) and not argv[i].startswith(("-", "(", "!", ")", ",")):
        starts.append(i)
        i += 1
    expression = argv[i:]
    names = [b for a, b in pairs(expression) if a in ("-name", "-iname")]
    loose = not names or any(
        w in ("-o", "-or", "-not", "!", ",", "-path", "-wholename", "-regex", "-ipath")
        for w in expression
    )
    restrict = () if loose else tuple(names)  # only an entry such a name fits is at risk
    for index in starts:
        yield Target(argv[index], index in command.dynamic, ANY_ABOVE, restrict)
    if not starts:
        yield Target(".", names=restrict)


def extracted(command: SimpleCommand) -> Iterator[Target]:
    """Archive extraction: everything lands in the target directory (default: here)."""
    argv, name = command.argv, command.name
    first = argv[1] if len(argv) > 1 else ""
    if name in ("tar", "bsdtar"):
        mode = first if not first.startswith("-") else ""
        letters = mode + "".join(w[1:] for w in argv[1:] if w[:1] == "-" and w[:2] != "--")
        if "x" not in letters and "--extract" not in argv and "--get" not in argv:
            return
        directory = _option_value(argv, ("-C", "--directory"))
    elif name == "unzip":
        if _unzip_lists(argv):
            return  # lists, tests, prints or shows help: extracts nothing
        directory = _option_value(argv, ("-d",))
    elif name in ("7z", "7za", "7zr"):
        if first not in ("x", "e"):
            return
        directory = next((w[2:] for w in argv if w.startswith("-o")), None)
    elif name == "cpio":
        if not any(w in ("-i", "--extract") or (w[:1] == "-" and "i" in w) for w in argv[1:]):
            return
        directory = _option_value(argv, ("-D", "--directory"))
    elif not first.lstrip("-").startswith("x"):  # ar x, jar x
        return
    else:
        directory = None
    # The word holding the directory (`-C D`, or `-CD`, `-oD`) is dynamic if it is `$x`, `` `x` ``
    holders = [k for k, w in enumerate(argv) if k and directory and w.endswith(directory)]
    yield Target(directory or ".", bool(command.dynamic.intersection(holders)), ANY_ABOVE)


def _unzip_lists(argv: tuple[str, ...]) -> bool:
    """unzip's modes that write no file, also in a cluster (`-lq`, `-tq`, `-Zl`): `-l`, `-v`
    list, `-t` tests, `-z` shows the comment, `-Z` is zipinfo, `-p`/`-c` print, `-h` helps.
    Options come before the archive; `-d DIR` and `-x`'s names take no part."""
    for word in argv[1:]:
        if word == "--help":
            return True
        if word[:1] != "-" or word == "-":
            return False  # the archive: the options are over
        if word[1:2] == "d" or word == "-x":
            return False
        if not {"l", "v", "t", "z", "Z", "p", "c", "h"}.isdisjoint(word[1:]):
            return True
    return False


def _option_value(argv: tuple[str, ...], options: tuple[str, ...]) -> str | None:
    for option, value in pairs(argv):
        if option in options:
            return value
    for word in argv:
        for option in options:
            if option.startswith("--") and word.startswith(option + "="):
                return word.split("=", 1)[1]
            if not option.startswith("--") and word.startswith(option) and word != option:
                return word[len(option) :]
    return None


def patched(
    command: SimpleCommand, cwd: str | None, git_env: Mapping[str, str] | None = None
) -> Iterator[Target]:
    """git apply/am, patch: the files the patch names (read now), else the whole directory.
    Other git commands: the paths they are given to check out, restore, remove or clean."""
    argv, name = command.argv, command.name
    i = skip_options(argv, 1, frozenset({"-C", "-c", "--git-dir", "--work-tree"}))
    sub = argv[i] if name == "git" and i < len(argv) else ""
    if name == "git" and sub not in ("apply", "am"):
        yield from git_work_tree(command, cwd, git_env or {})
        return
    if name == "git" and "--cached" in argv:  # `git apply --cached`: the index only
        return
    if (_DRY_RUNS if name == "git" else {"--dry-run"}) & set(argv):
        return
    directory = _option_value(argv, ("-d", "--directory")) or "."
    operands = [w for w in argv[(i + 1 if name == "git" else 1) :] if not w.startswith("-")]
    patch_file = _option_value(argv, ("-i", "--input"))
    if name == "patch":  # patch [origfile [patchfile]], in `-d DIR` when given
        # Any word may be the file it writes: the origfile, or after an option's value
        # (`-p 1 FILE`); and `-o FILE` writes there.
        output = _option_value(argv, ("-o", "--output"))
        for word in [*operands, *([output] if output else [])]:
            for path in dict.fromkeys((word, posixpath.normpath(posixpath.join(directory, word)))):
                yield Target(path)
        patch_file = patch_file or (operands[1] if len(operands) > 1 else None)
        sources = [posixpath.join(directory, patch_file)] if patch_file else []
    else:
        sources = operands  # read where git runs: `--directory` prefixes the paths inside
    texts = [_read_patch(source, cwd) for source in sources]
    if not sources:
        texts = [_stdin_text(command, cwd)]
    if any(text is None for text in texts):
        yield Target(directory)  # cannot read it: it may write anywhere here
        return
    for text in texts:
        for found in _PATCH_PATH.finditer(text or ""):
            for path in (p for p in found.groups() if p and p != "/dev/null"):
                yield Target(posixpath.join(directory, path))
                yield Target(posixpath.join(directory, path.partition("/")[2]))


def _read_patch(path: str, cwd: str | None) -> str | None:
    """The patch's text as the agent's command would read it (relative to its directory, not
    the hook's), or None when that cannot be read whole (missing, or over the size a hook call
    can afford to read): the caller fails closed."""
    if not posixpath.isabs(path):
        if cwd is None:
            return None
        path = posixpath.join(cwd, path)
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_PATCH_BYTES + 1)
    except OSError:
        return None
    return None if len(data) > MAX_PATCH_BYTES else data.decode("utf-8", "replace")


def _stdin_text(command: SimpleCommand, cwd: str | None) -> str | None:
    for redirect in command.redirects:
        if redirect.op in ("<<", "<<-"):
            return redirect.body
        if redirect.op == "<<<":
            return redirect.target
        if redirect.op == "<" and not redirect.dynamic:
            return _read_patch(redirect.target, cwd)
    return None  # a pipe: unknown


def script_outputs(command: SimpleCommand) -> Iterator[Target]:
    """Files written by a sed `w` command or an awk print redirection."""
    name = command.name
    if name == "sed":
        for text in command.argv[1:]:
            yield from (Target(m[1], "$" in m[1], NOT_ABOVE) for m in _SED_WRITE.finditer(text))
    elif name in ("awk", "gawk", "mawk", "nawk"):  # (`busybox awk` is unwrapped to awk)
        argv = command.argv
        included = [b for a, b in pairs(argv) if a in ("-i", "--include")]
        included += [w[2:] for w in argv if w.startswith("-i")]  # `-iinplace`
        included += [w[10:] for w in argv if w.startswith("--include=")]
        inplace = bool({"inplace", "inplace.awk"} & set(included))
        # Every word: the program is the first operand, or the value of gawk's `-e`/`--source`
        # (`-e PROG`, `--source=PROG`); a file whose name reads like a redirection costs a denial.
        computed, programs = False, set[int]()
        for k, text in enumerate(command.argv[1:], 1):
            for found in _AWK_OUTPUT.finditer(text):
                literal = found[2]
                written = literal if literal is not None else found[1]
                yield Target(written, literal is None, NOT_ABOVE)
                computed, programs = computed or literal is None, programs | {k}
        if computed:
            # `print > f`, `> ARGV[1]`, `> FILENAME`: a name the program computes, from its
            # operands and `-v` values as likely as from anywhere: each of them may be written.
            for k, word in enumerate(command.argv[1:], 1):
                if k not in programs:
                    value = word.partition("=")[2] if "=" in word else word
                    yield Target(value, k in command.dynamic, NOT_ABOVE)
        if inplace:
            yield from (Target(w, k in command.dynamic) for k, w in enumerate(command.argv))


# Git verbs by what they do to the work tree. Index-only forms (`restore --staged`, `reset`
# without --hard/--merge/--keep, `rm --cached`) and dry runs change no file.
_GIT_PATH_VERBS = frozenset({"checkout", "restore", "rm", "mv", "clean", "checkout-index"})
_GIT_MOVING_VERBS = frozenset(
    {"switch", "merge", "rebase", "cherry-pick", "revert", "pull", "am", "bisect"}
)  # they move HEAD and rewrite the tracked files that differ
GIT_MODELED = _GIT_PATH_VERBS | _GIT_MOVING_VERBS | {"reset", "stash", "read-tree", "worktree"}
GIT_MODELED |= {"sparse-checkout", "apply", "am"}
_GIT_DRY = {"clean": ("-n", "--dry-run"), "rm": ("-n", "--dry-run"), "mv": ("-n", "--dry-run")}
_GIT_VALUES = frozenset(
    {"-b", "-B", "-c", "-C", "--orphan", "-s", "--source", "-m", "--message", "-e", "--exclude"}
    | {"--conflict", "--pathspec-from-file", "--prefix", "-X", "--strategy-option", "--onto"}
)
_TRACKED_MARKS = (b".claude/settings", b".claude/ccbridge", b"ccbridge/")


def git_work_tree(
    command: SimpleCommand, cwd: str | None, assigned: Mapping[str, str]
) -> Iterator[Target]:
    """What a git command may rewrite in a work tree: the paths it is given (`.` and the
    directories above included), the whole tree for `reset --hard`, `stash`, `checkout -f`,
    `checkout-index -a`, and for the verbs that move HEAD (checkout/switch of a branch, merge,
    rebase, pull ...) when a ccbridge file is tracked there (they may bring another commit's
    version of it). `-C`, `--git-dir`, `--work-tree` and GIT_DIR/GIT_WORK_TREE are followed."""
    argv = command.argv
    words = dict(w.split("=", 1) for w in command.words if "=" in w and w[:1].isupper())
    git_dir = words.get("GIT_DIR", assigned.get("GIT_DIR"))
    work_tree = words.get("GIT_WORK_TREE", assigned.get("GIT_WORK_TREE"))
    relative = ""  # where `-C` went, relative to where the command runs
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        option, equals, value = argv[i].partition("=")
        if option in ("-C", "--git-dir", "--work-tree", "-c", "--namespace") and not equals:
            value = argv[i + 1] if i + 1 < len(argv) else ""
            i += 1
        if option == "-C":
            relative = posixpath.join(relative, value)
        elif option == "--git-dir":
            git_dir = value
        elif option == "--work-tree":
            work_tree = value
        i += 1
    verb, rest = (argv[i], argv[i + 1 :]) if i < len(argv) else ("", ())
    paths, whole = _git_paths(verb, rest)
    if paths is None:
        return
    if "$" in (work_tree or "") + (git_dir or "") + relative:
        yield Target(".", dynamic=True)  # where it works is only known when it runs
        return
    if work_tree is not None:
        work_tree = posixpath.join(relative, posixpath.expanduser(work_tree))
    for path in paths:
        yield Target(posixpath.join(relative, path) if relative else path)
        if work_tree is not None:  # pathspecs outside the cwd are taken from the work tree
            yield Target(posixpath.join(work_tree, path))
    if not whole:
        return
    here = posixpath.join(cwd, relative) if cwd else None
    if here is None:  # after a `cd`: the tree is wherever the line may be
        yield Target(work_tree or relative or ".")
        return
    if git_dir is not None:
        git_dir = posixpath.join(here, posixpath.expanduser(git_dir))
    top = posixpath.join(here, work_tree) if work_tree else (here if git_dir else _toplevel(here))
    if top is None or (whole != "all" and not _tracked(top, git_dir)):
        return
    if whole == "moved":  # ask git whether the move changes a protected file
        from bridge.guards.protect import gitmove

        given = [w if k + i + 1 not in command.dynamic else "$?" for k, w in enumerate(rest)]
        answer = gitmove.moves(top, git_dir, verb, given)
        if answer == gitmove.SAME:
            return
        if answer == gitmove.UNKNOWN:
            yield Target(top, asked=True)
            return
    yield Target(top)


def _git_paths(verb: str, rest: tuple[str, ...]) -> tuple[list[str] | None, str]:
    """The paths a verb writes (None: none) and whether it also rewrites the whole tree
    ("all"), the tracked files that differ from another commit ("moved"), or neither ("")."""
    if verb in _GIT_DRY and _dry_run(verb, rest):
        return None, ""
    flags = {w for w in rest if w.startswith("-")}
    operands, after_dashes = [], False
    skip = False
    for word in rest:
        if skip:
            skip = False
        elif after_dashes:
            operands.append(word)
        elif word == "--":
            after_dashes = True
        elif word.startswith("-"):
            skip = word in _GIT_VALUES
        else:
            operands.append(word)
    force = bool(flags & {"-f", "--force", "--discard-changes", "-m", "--merge", "--hard"})
    if verb == "restore":
        short = "".join(f[1:] for f in flags if f[1:2] != "-")
        staged = "--staged" in flags or "S" in short
        worktree = "--worktree" in flags or "W" in short
        return (None, "") if staged and not worktree else (operands, "")
    if verb == "rm":
        return (None, "") if "--cached" in flags else (operands, "")
    if verb in ("mv", "clean"):
        return operands or ["."], ""
    if verb == "checkout-index":  # `--prefix=D/` writes the files under D
        prefixes = [f.split("=", 1)[1] for f in flags if f.startswith("--prefix=")]
        prefixes += [b for a, b in pairs(rest) if a == "--prefix"]
        return [*operands, *prefixes], "all" if flags & {"-a", "--all"} else ""
    if verb == "checkout":
        created = any(f in ("-b", "-B", "--orphan") or f.startswith(("-b", "-B")) for f in flags)
        if created and not operands and "--" not in rest:
            return [], ""  # a new branch at HEAD: no file changes
        return operands, "all" if force else "moved"
    if verb == "reset":
        if flags & {"--hard", "--merge", "--keep"}:
            return [], "all"
        return None, ""  # --soft, --mixed, paths: the index only
    if verb == "stash":
        sub = operands[0] if operands else "push"
        if sub in ("list", "show", "drop", "clear", "create", "store"):
            return None, ""
        if sub in ("push", "save") or sub not in ("pop", "apply", "branch"):
            paths = operands[1:] if operands[:1] in (["push"], ["save"]) else operands
            return (paths, "") if "--" in rest and paths else ([], "all")
        return [], "all"
    if verb == "read-tree":
        return ([], "all") if "-u" in flags else (None, "")
    if verb == "worktree":
        return (operands[1:2] if operands[:1] in (["add"], ["remove"], ["move"]) else []), ""
    if verb == "sparse-checkout":
        return [], "all" if operands[:1] in (["set"], ["add"], ["init"], ["reapply"]) else ""
    if verb == "switch":
        created = any(f in ("-c", "-C", "--create", "--force-create", "--orphan") for f in flags)
        created = created or any(f.startswith(("-c", "-C")) for f in flags)
        if created and not operands:
            return [], ""  # a new branch at HEAD
        return [], "all" if force else "moved"
    if verb in _GIT_MOVING_VERBS:
        return [], "moved"
    return None, ""


def _dry_run(verb: str, rest: tuple[str, ...]) -> bool:
    value = False  # the word after `git clean -e` (or `-fe`) is its pattern, not an option
    for word in rest:
        if word == "--":
            return False
        if not value and _dry(verb, word):
            return True
        short = word[:1] == "-" != word[1:2]
        value = verb == "clean" and (
            word == "--exclude" or (short and word.find("e") == len(word) - 1)
        )
    return False


def _dry(verb: str, word: str) -> bool:
    """Whether one word of `git clean|rm|mv` asks for a dry run: `-n`, a cluster holding it
    (`-dn`, `-nfd`; for clean only before `-e`, which takes the rest as its pattern), or an
    abbreviation git accepts (`--dry-r`; `--d` is unambiguous for all three verbs)."""
    if word.startswith("--"):
        return len(word) > 2 and "--dry-run".startswith(word.partition("=")[0])
    if not word.startswith("-"):
        return False
    letters = word[1:].partition("e")[0] if verb == "clean" else word[1:]
    return "n" in letters


def _toplevel(base: str) -> str | None:
    """The work tree holding `base`: the nearest directory above it with a `.git`."""
    here = posixpath.normpath(base)
    for _ in range(64):
        if posixpath.lexists(posixpath.join(here, ".git")):
            return here
        if here in ("/", ""):
            return None
        here = posixpath.dirname(here)
    return None


def _tracked(top: str, git_dir: str | None) -> bool:
    """Whether the index of the work tree at `top` may list a ccbridge or Claude Code settings
    file (any mention counts; an index that cannot be read whole counts too)."""
    if git_dir is None:
        dot = posixpath.join(top, ".git")
        git_dir = dot
        if posixpath.isfile(dot):
            try:
                with open(dot) as file:
                    line = file.read(4096).strip()
            except OSError:
                return True
            git_dir = posixpath.join(top, line.removeprefix("gitdir:").strip())
    try:
        with open(posixpath.join(git_dir, "index"), "rb") as file:
            data = file.read(MAX_INDEX_BYTES + 1)
    except FileNotFoundError:
        return False  # nothing tracked yet
    except OSError:
        return True
    if len(data) > MAX_INDEX_BYTES or data[4:8] == b"\0\0\0\x04":  # v4 compresses the names
        return True
    return any(mark in data for mark in _TRACKED_MARKS)


MAX_INDEX_BYTES = 64 << 20
