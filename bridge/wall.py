"""The wall: Claude Code's sandbox (and its own file-tool deny rules) around what ccbridge must
keep. Judging command text cannot keep the agent away from files it can write; the kernel can.

What must be kept from the agent (`protected`): every ccbridge config layer, CC's settings
files, ccbridge's state and cache directories, the plugin and mod directories CC loads code
from, and every script a configured sub-hook runs with the code around it (its directory, what
it sources or requires: `hook_code`); the seal key and the audit log must not be
readable either. The wall is up (`judge`) when the CC settings in force, all layers merged as CC
merges them, run Bash in the sandbox with no way out (`enabled`, `failIfUnavailable`, no
`allowUnsandboxedCommands`, no `excludedCommands`), every protected path is in
`sandbox.filesystem.denyWrite` and in an `Edit(...)` deny rule (the file tools run outside the
sandbox: measured with CC 2.1.332, a `denyWrite` path stays writable for the Write tool, an
`Edit(//path)` rule refuses it), and the key and the audit log are in `denyRead`.
`failIfUnavailable` is what lets the settings stand for the sandbox itself: where bubblewrap
cannot start, CC 2.1.332 refuses to start at all (without it, CC runs every command unsandboxed
with a warning; both measured), so no command runs outside the wall. `ccbridge doctor`
still runs bubblewrap once to say so before a session finds out.

Imported only off the hot path: when a config is compiled, by install, doctor and explain.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridge import paths

WALL = "wall"
TRIPWIRE = "tripwire"
PLUGIN_DIRS = ("plugins", "dev-mods")  # under ~/.claude: code CC loads (plugins, mods)
SYSTEM_ROOTS = ("/usr/", "/bin/", "/sbin/", "/lib", "/etc/", "/opt/", "/proc/", "/dev/")
SCALARS = {"enabled": True, "failIfUnavailable": True, "allowUnsandboxedCommands": False}


@dataclass
class Protected:
    """Absolute paths the agent must not write (`write`) and must not read (`read`)."""

    write: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    trees: list[str] = field(default_factory=list)  # entries of `write` kept as directories


def _add(into: list[str], items: Iterable[str]) -> None:
    for item in items:
        cleaned = paths._clean(item)
        if cleaned not in into:
            into.append(cleaned)


def _hook_words(spec: Any, env: Mapping[str, str]) -> list[str]:
    """The words of a hook command after CC's placeholders and the shell's own spelling of the
    project variable (`"$CLAUDE_PROJECT_DIR"/x.sh`, CC's documented form)."""
    from bridge.subhooks.runner import substitute

    command = substitute(spec.command or "", env)
    if spec.args is not None:
        return [command, *(substitute(arg, env) for arg in spec.args)]
    try:
        words = shlex.split(command, comments=True)
    except ValueError:
        words = command.split()
    for name in ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT"):
        if env.get(name) is not None:
            words = [_unbraced(word, name, env[name]) for word in words]
    return words


def _unbraced(word: str, name: str, value: str) -> str:
    """`$NAME` replaced where the shell would read it as NAME (not `$NAMEX`)."""
    out, start = [], 0
    while (at := word.find("$" + name, start)) >= 0:
        end = at + 1 + len(name)
        if end < len(word) and (word[end].isalnum() or word[end] == "_"):
            out.append(word[start:end])
        else:
            out.append(word[start:at] + value)
        start = end
    return "".join(out) + word[start:]


def _hook_paths(
    hooks: Mapping[str, Sequence[Any]], env: Mapping[str, str], project: str
) -> Iterator[tuple[Any, str, str | None]]:
    """(spec, word as written, its absolute path or None when the path is not fixed) for every
    path-like word of every hook command."""
    env = {**env, "CLAUDE_PROJECT_DIR": project}
    for specs in hooks.values():
        for spec in specs:
            words = _hook_words(spec, env)
            named = False  # past the program's name (a bare name is looked up on PATH)
            for word in words:
                name, equals, value = word.partition("=")
                assignment = equals and name.isidentifier()
                word = value if assignment else word
                bare_file = (
                    named
                    and "/" not in word
                    and not word.startswith("-")
                    and os.path.isfile(os.path.join(project, word))
                )
                named = named or not assignment
                if "/" not in word and not bare_file:
                    continue
                if any(c in word for c in "$`"):
                    yield spec, word, None
                    continue
                if any(c in word for c in "*?["):
                    continue
                if word == "~" or word.startswith("~/"):
                    word = os.path.join(paths._home(env), word[2:])
                absolute = word if word.startswith("/") else os.path.join(project, word)
                yield spec, word, os.path.normpath(absolute)


def hook_scripts(
    hooks: Mapping[str, Sequence[Any]], env: Mapping[str, str], project: str
) -> list[str]:
    """What a configured sub-hook runs, as the hook commands name it: the exec form's command
    and its path-like arguments, a shell command's path-like words (after CC's
    `${CLAUDE_PROJECT_DIR}` placeholder), relative ones taken from the project (CC runs hooks
    there); and the code around each script (`hook_code`): its directory, what it names.
    System directories are read-only for sandboxed commands anyway."""
    found: list[str] = []
    for _spec, _word, absolute in _hook_paths(hooks, env, project):
        if absolute is not None and not absolute.startswith(SYSTEM_ROOTS):
            _add(found, [absolute])
    _add(found, [path for kind, _spec, path in hook_code(hooks, env, project) if kind != GAP])
    return found


def hook_trees(
    hooks: Mapping[str, Sequence[Any]], env: Mapping[str, str], project: str
) -> list[str]:
    """The directories among `hook_scripts`: kept with everything below them."""
    found: list[str] = []
    _add(found, [path for kind, _spec, path in hook_code(hooks, env, project) if kind == TREE])
    return found


def hook_gaps(
    hooks: Mapping[str, Sequence[Any]], env: Mapping[str, str], project: str
) -> Iterator[str]:
    """Hook commands whose files the wall cannot keep. A sub-hook runs in the call's cwd, which
    the agent moves with `cd` to a directory it may write: a relative path there is a file of
    the agent's choosing, run outside the sandbox. A path built from other variables is not
    known when the wall is written. And the code around a script (`hook_code`) that cannot be
    kept: the modules beside a script in the project's own directory, a file sourced from the
    current directory, a Node package looked up in node_modules above the script."""
    named: list[str] = []
    for spec, word, absolute in _hook_paths(hooks, env, project):
        if absolute is None:
            named.append(_unknown_gap(spec, word))
        elif not (word.startswith("/") or word == "~" or word.startswith("~/")):
            named.append(_relative_gap(spec, word))
    named += [text for kind, _spec, text in hook_code(hooks, env, project) if kind == GAP]
    yield from dict.fromkeys(named)  # each once, in order


def _unknown_gap(spec: Any, word: str) -> str:
    return (
        f"the hook command {spec.command!r} runs {word!r}, a path only known when it "
        "runs, which the sandbox cannot keep (name it from ${CLAUDE_PROJECT_DIR})"
    )


def _relative_gap(spec: Any, word: str) -> str:
    return (
        f"the hook command {spec.command!r} names {word!r}, a relative path: a hook "
        "runs in the call's directory, which the agent can change to one it writes "
        "(name it from ${CLAUDE_PROJECT_DIR})"
    )


# --- the code around a hook script ----------------------------------------------------------

TREE, FILE, GAP = "tree", "file", "gap"
# What Node tries for `require('./x')`, after the name itself (a directory: its index).
NODE_EXTENSIONS = (".js", ".mjs", ".cjs", ".json", ".node", ".ts")


def hook_code(
    hooks: Mapping[str, Sequence[Any]], env: Mapping[str, str], project: str
) -> Iterator[tuple[str, Any, str]]:
    """(TREE, spec, directory), (FILE, spec, path) or (GAP, spec, what cannot be kept) for the
    code around every script a hook command runs (bridge.shell.hookcode tells the scripts
    apart). A script loads code from beside it: Python puts the script's directory first on
    sys.path (a `json.py` there shadows `import json`, also for the modules the standard
    library imports later), a shell script sources `"$(dirname "$0")/lib.sh"`, Node resolves
    `require('./x')` from the script. So a script's directory (and that of the file a
    symlinked script points to) is kept as a tree. Except a directory that holds the project
    (the project's own directory, the home directory, `/`): keeping it would forbid every
    edit, so it is named as a gap and only the files the script names are kept (its imports'
    module files, the files it sources or requires)."""
    from bridge.shell.syntax import Unparseable

    env = {**env, "CLAUDE_PROJECT_DIR": project}
    home = paths._home(env)
    for specs in hooks.values():
        for spec in specs:
            found = _runs_of(spec, env)
            if isinstance(found, Unparseable):
                yield (
                    GAP,
                    spec,
                    (
                        f"the hook command {spec.command!r} cannot be read ({found.reason}): "
                        "the files beside the scripts it runs are not kept"
                    ),
                )
                continue
            for run in found:
                yield from _run_code(spec, run, project, home)


def _runs_of(spec: Any, env: Mapping[str, str]) -> Any:
    from bridge.shell.hookcode import argv_runs, runs
    from bridge.subhooks.runner import substitute

    command = substitute(spec.command or "", env)
    if spec.args is not None:
        return argv_runs((command, *(substitute(arg, env) for arg in spec.args)))
    known = {n: env[n] for n in ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT") if n in env}
    return runs(command, known)


def _at_home(word: str, home: str) -> str:
    """A word the shell reader expanded with this process's `~`, with the hook's home."""
    real = os.path.expanduser("~")
    if real != home and (word == real or word.startswith(real + "/")):
        return home + word[len(real) :]
    return word


def _wide(directory: str, project: str, home: str) -> bool:
    """A directory too wide to keep: it holds the project (or is it), or is the home."""
    return directory in ("/", home) or _under(project, [directory])


def _run_code(spec: Any, run: Any, project: str, home: str) -> Iterator[tuple[str, Any, str]]:
    command = spec.command
    if run.role == "cwd":
        yield (
            GAP,
            spec,
            (
                f"the hook command {command!r} runs {run.language} code given as "
                f"{run.word or 'its standard input'!r} with the current directory on its module "
                "path: a module the agent writes in the call's directory runs as part of the hook "
                "(run a script file named from ${CLAUDE_PROJECT_DIR})"
            ),
        )
        return
    if run.role == "operand":
        return
    if run.dynamic:
        if not any(c in run.word for c in "$`"):  # a glob: the script is not one file
            yield (
                GAP,
                spec,
                (
                    f"the hook command {command!r} runs {run.word!r}, a pattern: which script "
                    "runs is only known when it runs, and the files beside it are not kept"
                ),
            )
        elif "/" not in run.word:  # (a path-like one is named from the command's words)
            yield GAP, spec, _unknown_gap(spec, run.word)
        return
    word = _at_home(run.word, home)
    bare = run.role == "script" and "/" not in word  # `python3 x.py`: x.py not there yet
    if bare and not os.path.isfile(os.path.join(project, word)):
        yield GAP, spec, _relative_gap(spec, word)
    absolute = paths._clean(os.path.normpath(os.path.join(project, word)))
    if absolute.startswith(SYSTEM_ROOTS):
        return
    if run.role == "interpreter":
        if _under(absolute, [project]):
            yield (
                GAP,
                spec,
                (
                    f"the hook command {command!r} runs the interpreter {word!r} from the "
                    "project: the modules it loads (a virtual environment's site-packages) are "
                    "the agent's to write (use an interpreter installed outside the project)"
                ),
            )
        return
    places = [absolute]
    real = os.path.realpath(absolute)
    if real != absolute and not real.startswith(SYSTEM_ROOTS):
        places.append(real)
        yield FILE, spec, real
    for script in places:
        yield from _around(spec, script, run.language, project, home)


def _around(
    spec: Any, script: str, lang: str | None, project: str, home: str
) -> Iterator[tuple[str, Any, str]]:
    from bridge.shell.hookcode import language

    lang = lang or language(script)
    here = os.path.dirname(script)
    wide = _wide(here, project, home)
    if wide:
        what = (
            "the project's own directory" if here == project else f"{here}, which holds the project"
        )
        what = "the home directory" if here == home and here != project else what
        yield (
            GAP,
            spec,
            (
                f"the hook script {script} lies in {what}: a file the agent writes beside it "
                f"(a module it imports, a file it sources) runs as part of the hook, and keeping "
                f"all of {here} would forbid every edit; only the files it names are kept (move "
                "the script into a directory of its own, such as .claude/hooks/)"
            ),
        )
    else:
        yield TREE, spec, here
    yield from _named(spec, script, lang, wide, project, home)


MAX_NAMED_FILES = 32  # files read for what a hook script names, the script included


def _named(
    spec: Any, script: str, lang: str | None, wide: bool, project: str, home: str
) -> Iterator[tuple[str, Any, str]]:
    """What the script's text names (`hook_code`), and what those files name in turn."""
    from bridge.shell.hookcode import loaded_by, python_files

    here = os.path.dirname(script)
    todo, seen, packages = [script], {script}, []
    while todo:
        current = todo.pop(0)
        found = loaded_by(current, lang, project, home, script)
        if isinstance(found, str):
            yield GAP, spec, f"the hook script {current} {found}: what it loads is not known"
            continue
        for load in found:
            gap = _unkept_load(current, load)
            if gap is not None:
                yield GAP, spec, gap
            elif load.base == "package":
                packages.append(load.name)
            elif load.base == "module" and lang == "python" and wide:
                package, *files = python_files(here, load.name)
                yield TREE, spec, package
                for path in files:
                    yield FILE, spec, path
            elif load.path is not None and not load.path.startswith(SYSTEM_ROOTS):
                exts = NODE_EXTENSIONS if lang == "node" else ()
                candidates = [load.path, *(load.path + ext for ext in exts)]
                if wide or not _under(load.path, [here]):
                    for path in candidates:
                        yield FILE, spec, path
                follow = _first_unread(candidates if lang == "node" else candidates[:1], seen)
                if follow is None:
                    continue
                if len(seen) >= MAX_NAMED_FILES:
                    too_many = f"loads more than {MAX_NAMED_FILES} files, more than ccbridge reads"
                    yield GAP, spec, f"the hook script {script} {too_many}"
                    return
                seen.add(follow)
                todo.append(follow)
    if packages:
        yield (
            GAP,
            spec,
            (
                f"the hook script {script} requires {', '.join(map(repr, packages))}, which Node "
                f"looks up in the node_modules directories from {here} upwards: a package the "
                "agent writes into one of them runs as part of the hook"
            ),
        )


def _unkept_load(current: str, load: Any) -> str | None:
    """Why the sandbox cannot keep what `current` loads, where it cannot."""
    if load.base == "cwd":
        return (
            f"the hook script {current} loads {load.name!r} from the current directory, which "
            "the agent can change to one it writes (name it from the script's directory: "
            '"$(dirname "$0")/…")'
        )
    if load.base == "unknown":
        return (
            f"the hook script {current} loads {load.name!r}, a path only known when it runs, "
            "which the sandbox cannot keep"
        )
    return None


def _first_unread(candidates: Sequence[str], seen: set[str]) -> str | None:
    """The file a load resolves to, if it exists and was not read yet."""
    for path in candidates:
        if path not in seen and os.path.isfile(path):
            return path
    return None


def code_gaps(project: str, code: Sequence[str] | None = None) -> Iterator[str]:
    """ccbridge's own code (its package, the interpreter's prefix: a venv's site-packages and
    `.pth` files run at every start) inside the project, where sandboxed commands may write:
    the agent could change what judges it. Not walled, as that would keep a checkout of
    ccbridge from being worked on; named, so that the level says so."""
    if code is None:
        import bridge

        code = (os.path.dirname(os.path.abspath(bridge.__file__)), sys.prefix)
    for path in code:
        cleaned = paths._clean(os.path.abspath(path))
        if _under(cleaned, [paths._clean(project)]):
            yield (
                f"ccbridge's own code at {cleaned} is inside the project, where sandboxed "
                "commands may write (install ccbridge outside it)"
            )


settings_layers = paths.settings_layers
MARKETPLACE_KEYS = ("extraKnownMarketplaces", "additionalMarketplaces")  # the second: an alias
PLUGIN_DIRS_ENV = "CLAUDE_CODE_PLUGIN_DIRS"  # folders CC loads plugins from, `:`-separated


def plugin_dirs(
    env: Mapping[str, str], project: str, files: Sequence[str] | None = None
) -> list[str]:
    """The plugin and marketplace folders Claude Code's settings name, in every layer (user,
    project, local, managed and its drop-ins), and those `claude plugin marketplace add`
    recorded (plugins/known_marketplaces.json, the same entries): a marketplace from a local
    `directory` (or a `file` inside a `.claude-plugin/` folder) is where its plugins' code
    comes from (measured with 2.1.332 and 2.1.333: a hooks module rewritten in that folder
    after its plugin was installed is what the next session runs); a marketplace's
    `installLocation` holds its copy; CLAUDE_CODE_PLUGIN_DIRS (in the environment or a
    settings `env` block) names folders loaded as plugins, like --plugin-dir. The keys as the
    2.1.332 binary's settings schema and loader read them. `~` is the home; a relative path is
    taken from the project. Only these names count: a file that lists further folders (a
    marketplace.json) is itself kept, so what it lists cannot change unseen."""
    home = paths._home(env)
    found: list[str] = []

    def named(entry: object) -> None:
        if isinstance(entry, str) and entry.strip():
            _add(found, [_entry(entry.strip(), home, project)])

    def listed(value: object) -> None:
        for entry in value.split(":") if isinstance(value, str) else ():
            named(entry)

    listed(env.get(PLUGIN_DIRS_ENV))
    layers: list[tuple[Mapping[str, Any], tuple[str | None, ...]]] = []
    for path in settings_layers(env, project) if files is None else files:
        data = settings_object(path)
        if data is not None:
            block = data.get("env")
            listed(block.get(PLUGIN_DIRS_ENV) if isinstance(block, dict) else None)
            layers.append((data, MARKETPLACE_KEYS))
    # `claude plugin marketplace add`'s record
    added = settings_object(paths.known_marketplaces(env))
    layers += [(added, (None,))] if added is not None else []
    for data, keys in layers:
        for key in keys:
            marketplaces = data if key is None else data.get(key)
            for entry in marketplaces.values() if isinstance(marketplaces, dict) else ():
                if not isinstance(entry, dict):
                    continue
                named(entry.get("installLocation"))
                source = entry.get("source")
                kind = source.get("source") if isinstance(source, dict) else None
                where = source.get("path") if isinstance(source, dict) else None
                if kind == "directory" or kind == "file":
                    named(where)
                if kind == "file" and isinstance(where, str):
                    folder = os.path.dirname(os.path.normpath(where.strip()))
                    if os.path.basename(folder) == ".claude-plugin":
                        named(os.path.dirname(folder) or ".")
    return found


def protected(
    env: Mapping[str, str],
    project: str,
    hooks: Mapping[str, Sequence[Any]] = {},
    audit_path: str | None = None,
    *,
    shared: bool = False,
) -> Protected:
    """What the wall keeps on this machine; with `shared`, what it keeps on every machine
    (`shared_protected`): plugin folders named by the project's own settings file only."""
    home = paths._home(env)
    user_claude = env.get("CLAUDE_CONFIG_DIR") or os.path.join(home, ".claude")
    state, cache = paths.state_dir(env), paths.cache_dir(env)
    result = Protected()
    _add(result.write, paths.config_layers(env, project))
    if env.get(paths.CONFIG_ENV):
        _add(result.write, [os.path.abspath(env[paths.CONFIG_ENV])])
    _add(result.write, settings_layers(env, project)[:4])
    _add(result.write, [state, cache])
    _add(result.write, [os.path.join(user_claude, name) for name in PLUGIN_DIRS])
    # The session transcripts: a goal's human authority is read from them (bridge.goal.typed),
    # so the agent's file tools must not write them (Claude Code itself is no tool call).
    transcripts = os.path.join(user_claude, "projects")
    _add(result.write, [transcripts])
    _add(result.trees, [transcripts])
    _add(result.write, hook_scripts(hooks, env, project))
    _add(result.trees, hook_trees(hooks, env, project))
    project_settings = [paths._clean(os.path.join(project, ".claude", "settings.json"))]
    named = plugin_dirs(env, project, project_settings if shared else None)
    _add(result.write, named)
    _add(result.trees, [path for path in named if not path.endswith(".json")])
    audit = audit_path or os.path.join(state, "audit.jsonl")
    _add(
        result.read,
        [os.path.join(state, "cache.key"), audit, *(f"{audit}.{n}" for n in (1, 2, 3, 4, 5))],
    )
    return result


# What every machine keeps is computed with this in place of the home (a name no real home
# has), then spelled from `~/`: the shared file then holds the same entries on every machine.
SHARED_HOME = "/~"


def shared_protected(project: str, hooks: Mapping[str, Sequence[Any]] = {}) -> Protected:
    """What the wall keeps on every machine that has this project: what the committed files
    alone name (the project's config hooks, the plugin folders of its settings.json) and
    ccbridge's and Claude Code's files in their default places, under SHARED_HOME. What a
    machine sets for itself ($CCBRIDGE_STATE_DIR, XDG dirs, $CLAUDE_CONFIG_DIR, its own layers'
    hooks) is not in it: that goes in the machine's local settings (`protected`)."""
    return protected({"HOME": SHARED_HOME}, project, hooks, shared=True)


def _relative(path: str, root: str) -> str | None:
    if path == root:
        return ""
    return path[len(root.rstrip("/")) + 1 :] if _under(path, [root]) else None


def portable(path: str, home: str, project: str) -> str:
    """A sandbox.filesystem entry for `path` that means it on every machine (measured, docs/
    setup.md): relative for a path in the project (CC takes it from the project root for the
    project's settings), `~/` for one in the home, else the absolute path."""
    inside = _relative(path, project)
    if inside is not None:
        return inside or "."
    at_home = _relative(path, home)
    if at_home is not None:
        return "~/" + at_home if at_home else "~"
    return path


def portable_rule(tool: str, path: str, home: str, project: str, *, directory: bool) -> str:
    """A permission deny rule for `path` that means it on every machine: `/x` is x in the
    project root, `~/x` x in the home, `//x` the absolute /x (measured, docs/setup.md)."""
    tail = "/**" if directory else ""
    inside = _relative(path, project)
    if inside is not None:
        return f"{tool}(/{inside}{tail})" if inside else f"{tool}(/**)"
    at_home = _relative(path, home)
    if at_home is not None:
        return f"{tool}(~/{at_home}{tail})" if at_home else f"{tool}(~/**)"
    return f"{tool}(/{path}{tail})"


# --- reading the settings in force ------------------------------------------------------------


@dataclass
class InForce:
    """The sandbox settings and file-tool deny rules of all CC settings layers, merged as CC
    merges them: scalars of a more specific file override, lists add up."""

    enabled: bool = False
    fail_if_unavailable: bool = False
    allow_unsandboxed: bool = True  # CC's default: the model may ask to leave the sandbox
    excluded: list[str] = field(default_factory=list)
    allow_write: list[str] = field(default_factory=list)
    deny_write: list[str] = field(default_factory=list)
    deny_read: list[str] = field(default_factory=list)
    edit_denied: list[str] = field(default_factory=list)
    read_denied: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # the layers that exist


def _entry(entry: str, home: str, base: str) -> str:
    if entry == "~" or entry.startswith("~/"):
        return paths._clean(os.path.join(home, entry[2:]))
    if entry.startswith("/"):
        return paths._clean("/" + entry.lstrip("/"))  # `//x` and `/x` are both absolute
    return paths._clean(os.path.join(base, entry))


def _rule_path(rule: str, tool: str, home: str, base: str) -> str | None:
    """The path of a `Tool(path)` permission rule, with a trailing `/**` taken as the subtree:
    `//x` is the absolute /x, `/x` is x in the settings file's root (the project root for the
    project's files; measured: `Edit(/abs/path)` does not keep /abs/path), `~/x` is in the
    home."""
    if not (rule.startswith(tool + "(") and rule.endswith(")")):
        return None
    inner = rule[len(tool) + 1 : -1]
    inner = inner[:-3] if inner.endswith("/**") else inner
    if inner == "/" or inner == "":  # `Edit(/**)`: the whole root
        return paths._clean(base) if rule.endswith("/**)") else None
    if inner.startswith("//"):
        return paths._clean(inner[1:])
    if any(c in inner for c in "*?[{"):
        return None
    if inner.startswith("/"):
        return paths._clean(os.path.join(base, inner[1:]))
    return _entry(inner, home, base)


def settings_root(path: str, project: str) -> str:
    """What a relative path in the settings file at `path` is taken from: the project root for
    the project's own files (.claude/settings*.json), else the file's directory (~/.claude for
    the user's)."""
    own = paths._clean(os.path.join(project, ".claude"))
    return project if os.path.dirname(paths._clean(path)) == own else os.path.dirname(path)


def settings_object(path: str) -> Mapping[str, Any] | None:
    """A settings file's JSON object; None where Claude Code finds none in it (missing,
    unreadable, not JSON, not an object), which it then ignores whole."""
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def in_force(files: Sequence[str], home: str, project: str) -> InForce:
    result = InForce()
    for path in files:
        data = settings_object(path)
        if data is None:
            continue
        result.files.append(path)
        base = settings_root(path, project)
        section = data.get("sandbox")
        section = section if isinstance(section, dict) else {}
        for key, attribute in (
            ("enabled", "enabled"),
            ("allowUnsandboxedCommands", "allow_unsandboxed"),
            ("failIfUnavailable", "fail_if_unavailable"),
        ):
            if isinstance(section.get(key), bool):
                setattr(result, attribute, section[key])
        excluded = section.get("excludedCommands")
        result.excluded += [str(item) for item in excluded] if isinstance(excluded, list) else []
        filesystem = section.get("filesystem")
        filesystem = filesystem if isinstance(filesystem, dict) else {}
        for key, into in (
            ("allowWrite", result.allow_write),
            ("denyWrite", result.deny_write),
            ("denyRead", result.deny_read),
        ):
            entries = filesystem.get(key)
            if isinstance(entries, list):
                into += [_entry(str(entry), home, base) for entry in entries]
        permissions = data.get("permissions")
        deny = permissions.get("deny") if isinstance(permissions, dict) else None
        for rule in deny if isinstance(deny, list) else ():
            for tool, into in (("Edit", result.edit_denied), ("Read", result.read_denied)):
                found = _rule_path(str(rule), tool, home, base)
                if found is not None:
                    into.append(found)
    return result


def _under(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def missing_programs() -> list[str]:
    """What the Linux sandbox needs and cannot be found (Seatbelt is part of macOS)."""
    if not sys.platform.startswith("linux"):
        return []
    return [program for program in ("bwrap", "socat") if shutil.which(program) is None]


def gaps(settings: InForce, keep: Protected) -> Iterator[str]:
    """What stands between these settings and the wall, each with its fix."""
    if not settings.enabled:
        yield "Claude Code's sandbox is off for Bash (set sandbox.enabled: true)"
    if not settings.fail_if_unavailable:
        yield (
            "where the sandbox cannot start, Bash commands run without it "
            "(set sandbox.failIfUnavailable: true)"
        )
    if settings.allow_unsandboxed:
        yield (
            "the model may ask to run a command outside the sandbox "
            "(set sandbox.allowUnsandboxedCommands: false)"
        )
    if settings.excluded:
        yield "excludedCommands run outside the sandbox: " + ", ".join(settings.excluded)
    for path in keep.write:
        if not _under(path, settings.deny_write):
            yield f"{path} is not in sandbox.filesystem.denyWrite"
        if not _under(path, settings.edit_denied):
            yield f"{path} has no Edit(/{path}) deny rule (the file tools run outside the sandbox)"
    for path in keep.read:
        if not _under(path, settings.deny_read):
            yield f"{path} is not in sandbox.filesystem.denyRead"
    if sys.platform not in ("darwin",) and not sys.platform.startswith("linux"):
        yield f"Claude Code has no sandbox on {sys.platform}"
    for program in missing_programs():
        yield f"{program} is not installed (apt-get install bubblewrap socat)"


def judge(
    env: Mapping[str, str],
    project: str,
    hooks: Mapping[str, Sequence[Any]] = {},
    audit_path: str | None = None,
) -> tuple[str, list[str]]:
    """(`wall` or `tripwire`, what is missing for the wall)."""
    keep = protected(env, project, hooks, audit_path)
    settings = in_force(settings_layers(env, project), paths._home(env), project)
    missing = [*gaps(settings, keep), *hook_gaps(hooks, env, project), *code_gaps(project)]
    return (TRIPWIRE if missing else WALL), missing


# --- writing it into a settings file, and taking exactly that out again -------------------------


def _rule(tool: str, path: str, *, directory: bool) -> str:
    return f"{tool}(/{path}/**)" if directory else f"{tool}(/{path})"


def is_directory_entry(path: str, env: Mapping[str, str]) -> bool:
    own = {paths.state_dir(env), paths.cache_dir(env)}
    return path in own or os.path.basename(path) in PLUGIN_DIRS or os.path.isdir(path)


def additions(
    keep: Protected, env: Mapping[str, str], project: str | None = None
) -> dict[str, list[str]]:
    """The list entries the wall needs: denyWrite, denyRead and permission deny rules; with
    `project`, in the spellings that mean the same on every machine (`keep` computed with
    `env`'s home standing for whichever home reads the file: `shared_protected`)."""
    if project is not None:
        home = paths._home(env)
        return {
            "denyWrite": [portable(path, home, project) for path in keep.write],
            "denyRead": [portable(path, home, project) for path in keep.read],
            "deny": [
                *(
                    portable_rule(
                        "Edit",
                        path,
                        home,
                        project,
                        directory=path in keep.trees or is_directory_entry(path, env),
                    )
                    for path in keep.write
                ),
                *(
                    portable_rule("Read", path, home, project, directory=False)
                    for path in keep.read
                ),
            ],
        }
    rules = [
        _rule("Edit", path, directory=path in keep.trees or is_directory_entry(path, env))
        for path in keep.write
    ]
    rules += [_rule("Read", path, directory=False) for path in keep.read]
    return {"denyWrite": list(keep.write), "denyRead": list(keep.read), "deny": rules}


def put_up(
    data: Mapping[str, Any],
    keep: Protected,
    env: Mapping[str, str],
    project: str | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`data` (a settings file's JSON) with the wall added, and a record of exactly what was
    added or changed, for `take_down`; with `project`, in portable spellings (`additions`)."""
    out: dict[str, Any] = json.loads(json.dumps(data))
    if not isinstance(out.get("sandbox", {}), dict):
        raise ValueError("`sandbox` in the settings file is not an object")
    sandbox = out.setdefault("sandbox", {})
    added: dict[str, Any] = {"created": [], "scalars": {}, "lists": {}}
    if "sandbox" not in data:
        added["created"].append("sandbox")
    for key, value in SCALARS.items():
        if sandbox.get(key) != value:
            added["scalars"][key] = sandbox.get(key)  # None: it was absent
            sandbox[key] = value
    wanted = additions(keep, env, project)
    if not isinstance(sandbox.get("filesystem", {}), dict):
        raise ValueError("`sandbox.filesystem` in the settings file is not an object")
    if "filesystem" not in sandbox:
        added["created"].append("sandbox.filesystem")
    filesystem = sandbox.setdefault("filesystem", {})
    if not isinstance(out.get("permissions", {}), dict):
        raise ValueError("`permissions` in the settings file is not an object")
    if "permissions" not in out:
        added["created"].append("permissions")
    permissions = out.setdefault("permissions", {})
    for key, container in (
        ("denyWrite", filesystem),
        ("denyRead", filesystem),
        ("deny", permissions),
    ):
        current = container.get(key, [])
        if not isinstance(current, list):
            raise ValueError(f"`{key}` in the settings file is not a list")
        new = [item for item in wanted[key] if item not in current]
        if not new:
            continue
        if key not in container:
            added["created"].append(key)
        container[key] = [*current, *new]
        added["lists"][key] = new
    return out, added


def _object(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def take_down(data: Mapping[str, Any], added: Mapping[str, Any]) -> dict[str, Any]:
    """`data` without what `put_up` added: its list entries out, its scalars back to what they
    were (absent where they were absent), the containers it created removed when empty."""
    out: dict[str, Any] = json.loads(json.dumps(data))
    sandbox, permissions = _object(out, "sandbox"), _object(out, "permissions")
    filesystem = _object(sandbox, "filesystem")
    for key, previous in dict(added.get("scalars", {})).items():
        if sandbox.get(key) != SCALARS.get(key):
            continue  # changed since install: the user's value stays
        if previous is None:
            sandbox.pop(key, None)
        else:
            sandbox[key] = previous
    created = set(added.get("created", []))
    for key, container in (
        ("denyWrite", filesystem),
        ("denyRead", filesystem),
        ("deny", permissions),
    ):
        entries = dict(added.get("lists", {})).get(key, [])
        if isinstance(container.get(key), list):
            container[key] = [item for item in container[key] if item not in entries]
            if not container[key] and key in created:
                container.pop(key)
    if "sandbox.filesystem" in created and filesystem == {} and "filesystem" in sandbox:
        sandbox.pop("filesystem")
    if "sandbox" in created and sandbox == {} and "sandbox" in out:
        out.pop("sandbox")
    if "permissions" in created and permissions == {} and "permissions" in out:
        out.pop("permissions")
    return out
