"""Run the real Codex CLI, Gemini CLI, Copilot CLI, Qwen Code and opencode against loopback
stand-ins of their model APIs.

Each stand-in answers the agent's first request that offers tools with one scripted shell
command (Codex: an `exec_command` function call on the Responses API; Gemini: a
`run_shell_command` function call on `streamGenerateContent`; the others: a call of their shell
tool on chat completions), and every later request with text. Every request body is kept, so a
test can read what the agent sent back to the model after the call: the command's output, or
the reason it was refused.

The clients are fetched by `scripts/fetch-clients` (npm packages `@openai/codex`,
`@google/gemini-cli`, `@github/copilot`, `@qwen-code/qwen-code`, `opencode-ai`) into
`~/.cache/ccbridge/clients/<client>/<version>/`; the pinned versions live in
`.ci/client-versions` only.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.support import outer

from .harness import pinned_versions

BINARIES = {
    "codex": "codex",
    "gemini-cli": "gemini",
    "copilot": "copilot",
    "qwen-code": "qwen",
    "opencode": "opencode",
    "cline": "cline",
}
RUN_TIMEOUT = 60.0  # a run that passes takes under 15 s; longer is an agent waiting forever


def pinned(client: str) -> list[str]:
    return pinned_versions(client)


def clients_cache() -> Path:
    """Where scripts/fetch-clients put the clients: in the real home, not the test's own."""
    configured = outer.ENVIRON.get("CCBRIDGE_CLIENTS_CACHE")
    return Path(configured) if configured else outer.HOME / ".cache" / "ccbridge" / "clients"


def client_binary(client: str, version: str) -> Path | None:
    binary = clients_cache() / client / version / "node_modules" / ".bin" / BINARIES[client]
    return binary if binary.exists() and os.access(binary, os.X_OK) else None


class ModelStandIn:
    """The shared loopback server; subclasses speak one model API."""

    def __init__(self, commands: Sequence[str]) -> None:
        self.commands = list(commands)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.asked_at: float | None = None  # when the last scripted command was handed out
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> ModelStandIn:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def next_command(self, body: Mapping[str, Any]) -> str | None:
        """The next scripted command for a request that offers tools and is not a reply to a
        call already made; None: answer with text."""
        with self._lock:
            if not self.offers_tools(body) or self.answers_a_call(body) or not self.commands:
                return None
            self.asked_at = time.monotonic()
            return self.commands.pop(0)

    def offers_tools(self, body: Mapping[str, Any]) -> bool:
        return bool(body.get("tools"))

    def answers_a_call(self, body: Mapping[str, Any]) -> bool:
        raise NotImplementedError

    def respond(self, path: str, body: Mapping[str, Any]) -> tuple[str, bytes]:
        raise NotImplementedError

    def tool_outputs(self) -> list[str]:
        """What the agent told the model about the calls it made, in order."""
        raise NotImplementedError

    def model_saw(self, needle: str) -> bool:
        return any(needle in output for output in self.tool_outputs())


def _sse(events: Sequence[tuple[str | None, Mapping[str, Any]]]) -> bytes:
    chunks = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        chunks.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(chunks).encode()


class ResponsesStandIn(ModelStandIn):
    """OpenAI's Responses API, streamed, as Codex's custom model providers use it."""

    def answers_a_call(self, body: Mapping[str, Any]) -> bool:
        return any(item.get("type") == "function_call_output" for item in body.get("input", []))

    def respond(self, path: str, body: Mapping[str, Any]) -> tuple[str, bytes]:
        command = self.next_command(body)
        if command is None:
            item: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "id": "msg_stub",
                "content": [{"type": "output_text", "text": "Done."}],
            }
        else:
            item = {
                "type": "function_call",
                "id": "fc_stub",
                "call_id": f"call_{len(self.requests)}",
                "name": "exec_command",
                "arguments": json.dumps({"cmd": command}),
            }
        usage = {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}
        events: list[tuple[str | None, Mapping[str, Any]]] = [
            ("response.created", {"type": "response.created", "response": {"id": "resp_stub"}}),
            ("response.output_item.done", {"type": "response.output_item.done", "item": item}),
            (
                "response.completed",
                {"type": "response.completed", "response": {"id": "resp_stub", "usage": usage}},
            ),
        ]
        return "text/event-stream", _sse(events)

    def tool_outputs(self) -> list[str]:
        seen: dict[str, str] = {}
        for _path, body in self.requests:
            for item in body.get("input", []):
                if item.get("type") == "function_call_output":
                    output = item.get("output")
                    seen[str(item.get("call_id"))] = (
                        output if isinstance(output, str) else json.dumps(output)
                    )
        return list(seen.values())


class GeminiStandIn(ModelStandIn):
    """The Gemini API's generateContent / streamGenerateContent, as Gemini CLI calls it."""

    def answers_a_call(self, body: Mapping[str, Any]) -> bool:
        return any(
            "functionResponse" in part
            for content in body.get("contents", [])
            for part in content.get("parts", [])
        )

    def respond(self, path: str, body: Mapping[str, Any]) -> tuple[str, bytes]:
        if "countTokens" in path:
            return "application/json", json.dumps({"totalTokens": 1}).encode()
        command = self.next_command(body)
        if command is None:
            parts: list[dict[str, Any]] = [{"text": "Done."}]
        else:
            call = {"name": "run_shell_command", "args": {"command": command, "description": "x"}}
            parts = [{"functionCall": call}]
        chunk = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1},
        }
        if "stream" in path:
            return "text/event-stream", _sse([(None, chunk)])
        return "application/json", json.dumps(chunk).encode()

    def tool_outputs(self) -> list[str]:
        seen: list[str] = []
        for _path, body in self.requests:
            for content in body.get("contents", []):
                for part in content.get("parts", []):
                    response = part.get("functionResponse")
                    if response is not None and json.dumps(response) not in seen:
                        seen.append(json.dumps(response))
        return seen


class ChatCompletionsStandIn(ModelStandIn):
    """OpenAI's chat completions API (streamed or not), as Qwen Code, opencode and Copilot
    CLI's custom providers call it. The scripted command goes to whichever shell tool the
    agent offers (`SHELL_TOOLS`), with the argument name that tool's schema asks for."""

    SHELL_TOOLS = ("run_shell_command", "bash", "shell", "execute_command", "run_commands")

    def answers_a_call(self, body: Mapping[str, Any]) -> bool:
        return any(message.get("role") == "tool" for message in body.get("messages", []))

    def shell_tool(self, body: Mapping[str, Any]) -> tuple[str, str, bool]:
        """The shell tool's name, its command argument, and whether that is a list (Cline's
        `run_commands` takes `commands: [...]`)."""
        offered = {
            tool.get("function", {}).get("name"): tool.get("function", {}).get("parameters", {})
            for tool in body.get("tools", [])
        }
        for name in self.SHELL_TOOLS:
            if name in offered:
                properties = (offered[name] or {}).get("properties", {})
                key = "command" if "command" in properties else next(iter(properties), "command")
                listed = (properties.get(key) or {}).get("type") == "array"
                return name, key, listed
        return self.SHELL_TOOLS[0], "command", False

    def respond(self, path: str, body: Mapping[str, Any]) -> tuple[str, bytes]:
        if not path.rstrip("/").endswith("chat/completions"):
            return "application/json", json.dumps({"object": "list", "data": []}).encode()
        command = self.next_command(body)
        message: dict[str, Any]
        if command is None:
            message, finish = {"role": "assistant", "content": "Done."}, "stop"
        else:
            name, key, listed = self.shell_tool(body)
            arguments = {key: [command]} if listed else {key: command, "description": "x"}
            call = {
                "id": f"call_{len(self.requests)}",
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
            message, finish = (
                {"role": "assistant", "content": None, "tool_calls": [call]},
                ("tool_calls"),
            )
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        head = {"id": "chatcmpl-stub", "created": 1, "model": str(body.get("model", "stub"))}
        if not body.get("stream"):
            choice = {"index": 0, "message": message, "finish_reason": finish}
            whole = {**head, "object": "chat.completion", "choices": [choice], "usage": usage}
            return "application/json", json.dumps(whole).encode()
        delta = dict(message)
        if "tool_calls" in delta:
            delta["tool_calls"] = [{"index": 0, **call} for call in delta["tool_calls"]]
        chunks = [
            {**head, "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**head, "object": "chat.completion.chunk",
             "choices": [{"index": 0, "delta": {}, "finish_reason": finish}], "usage": usage},
        ]  # fmt: skip
        return "text/event-stream", _sse([(None, chunk) for chunk in chunks]) + (
            b"data: [DONE]\n\n"
        )

    def tool_outputs(self) -> list[str]:
        seen: dict[str, str] = {}
        for _path, body in self.requests:
            for message in body.get("messages", []):
                if message.get("role") == "tool":
                    content = message.get("content")
                    seen[str(message.get("tool_call_id"))] = (
                        content if isinstance(content, str) else json.dumps(content)
                    )
        return list(seen.values())


def _handler(stub: ModelStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(404)
            self.end_headers()

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = {}
            body = body if isinstance(body, dict) else {}
            with stub._lock:
                stub.requests.append((self.path, body))
            kind, data = stub.respond(self.path, body)
            self.send_response(200)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@dataclass(frozen=True)
class AgentRun:
    returncode: int | None  # None: still running at RUN_TIMEOUT, killed
    stdout: str
    stderr: str
    stub: ModelStandIn
    seconds: float


def _base_env(home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
    }


def run_codex(
    binary: Path,
    project: Path,
    hooks: Mapping[str, Any],
    commands: Sequence[str],
    rules: str = "",
    env: Mapping[str, str] | None = None,
    trusted: bool = True,
) -> AgentRun:
    """`codex exec` once in `project`, `hooks` as its user hooks.json, the model answering
    with `commands`. `rules`: an execpolicy file of Codex's own command rules. `trusted`: run
    the hooks as if the user had accepted Codex's hooks review."""
    with (
        tempfile.TemporaryDirectory(prefix="codex-home-") as scratch,
        ResponsesStandIn(commands) as stub,
    ):
        home = Path(scratch)
        codex_home = home / ".codex"
        codex_home.mkdir()
        (codex_home / "config.toml").write_text(
            'model = "stub-model"\nmodel_provider = "stub"\n'
            "[model_providers.stub]\n"
            f'name = "stub"\nbase_url = "{stub.base_url}/v1"\nwire_api = "responses"\n'
            'env_key = "STUB_API_KEY"\n',
            encoding="utf-8",
        )
        (codex_home / "hooks.json").write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
        if rules:
            (codex_home / "rules").mkdir()
            (codex_home / "rules" / "default.rules").write_text(rules, encoding="utf-8")
        argv = [
            str(binary),
            "exec",
            "--skip-git-repo-check",
            # hooks.json written by the test: trusting it is the test's own vetting
            *(["--dangerously-bypass-hook-trust"] if trusted else []),
            # Codex's sandbox helper refuses a CODEX_HOME under /tmp; the hooks are under test
            "-s",
            "danger-full-access",
            "-C",
            str(project),
            "Do the task.",
        ]
        run_env = {
            **_base_env(home),
            "CODEX_HOME": str(codex_home),
            "STUB_API_KEY": "dummy",
            **(env or {}),
        }
        return _run(argv, project, run_env, stub)


def run_gemini(
    binary: Path,
    project: Path,
    hooks: Mapping[str, Any],
    commands: Sequence[str],
    policy: str = "",
    env: Mapping[str, str] | None = None,
) -> AgentRun:
    """`gemini -p` once in `project` (YOLO: Gemini's own prompts out of the way, its policy
    rules still apply), `hooks` in its user settings, the model answering with `commands`."""
    with (
        tempfile.TemporaryDirectory(prefix="gemini-home-") as scratch,
        GeminiStandIn(commands) as stub,
    ):
        home = Path(scratch)
        (home / ".gemini").mkdir()
        settings = {
            "hooksConfig": {"enabled": True},
            "hooks": hooks,
            "security": {"auth": {"selectedType": "gemini-api-key"}},
        }
        (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        if policy:
            (home / ".gemini" / "policies").mkdir()
            (home / ".gemini" / "policies" / "test.toml").write_text(policy, encoding="utf-8")
        argv = [str(binary), "-p", "Do the task.", "-m", "gemini-2.5-flash", "--yolo"]
        run_env = {
            **_base_env(home),
            "GEMINI_API_KEY": "dummy",
            "GOOGLE_GEMINI_BASE_URL": stub.base_url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            **(env or {}),
        }
        return _run(argv, project, run_env, stub)


@functools.cache
def _copilot_cache() -> str:
    path = tempfile.mkdtemp(prefix="copilot-cache-")
    atexit.register(shutil.rmtree, path, True)
    return path


def run_copilot(
    binary: Path,
    project: Path,
    hooks: Mapping[str, Any],
    commands: Sequence[str],
    env: Mapping[str, str] | None = None,
    deny_tools: Sequence[str] = (),
) -> AgentRun:
    """`copilot -p` once in `project`, `hooks` in its user settings.json, offline against a
    chat-completions stand-in (its BYOK provider: no GitHub sign-in), every tool allowed so
    only the hooks (and `deny_tools`, its own `--deny-tool` rules) stand in the way."""
    with (
        tempfile.TemporaryDirectory(prefix="copilot-home-") as scratch,
        ChatCompletionsStandIn(commands) as stub,
    ):
        home = Path(scratch)
        (home / ".copilot").mkdir()
        (home / ".copilot" / "settings.json").write_text(
            json.dumps({"hooks": hooks}), encoding="utf-8"
        )
        argv = [str(binary), "-p", "Do the task.", "--allow-all-tools"]
        argv += [f"--deny-tool={rule}" for rule in deny_tools]
        run_env = {
            **_base_env(home),
            "COPILOT_AUTO_UPDATE": "false",
            "COPILOT_OFFLINE": "true",
            "COPILOT_PROVIDER_BASE_URL": f"{stub.base_url}/v1",
            "COPILOT_PROVIDER_API_KEY": "dummy",
            "COPILOT_MODEL": "gpt-4.1",
            "COPILOT_ALLOW_ALL": "true",
            # The binary unpacks its own package into its cache on first start (seconds): one
            # temporary cache for the whole test run, not one per test home.
            "XDG_CACHE_HOME": _copilot_cache(),
            **(env or {}),
        }
        return _run(argv, project, run_env, stub)


def run_qwen(
    binary: Path,
    project: Path,
    hooks: Mapping[str, Any],
    commands: Sequence[str],
    env: Mapping[str, str] | None = None,
) -> AgentRun:
    """`qwen -p` once in `project` (YOLO, as Gemini's), `hooks` in its user settings, its
    OpenAI-compatible provider pointed at a chat-completions stand-in."""
    with (
        tempfile.TemporaryDirectory(prefix="qwen-home-") as scratch,
        ChatCompletionsStandIn(commands) as stub,
    ):
        home = Path(scratch)
        (home / ".qwen").mkdir()
        settings = {
            "hooks": hooks,
            "security": {"auth": {"selectedType": "openai"}},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        }
        (home / ".qwen" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        argv = [str(binary), "-p", "Do the task.", "--yolo", "--auth-type", "openai"]
        run_env = {
            **_base_env(home),
            "OPENAI_API_KEY": "dummy",
            "OPENAI_BASE_URL": f"{stub.base_url}/v1",
            "OPENAI_MODEL": "stub-model",
            "QWEN_CODE_SUPPRESS_YOLO_WARNING": "1",
            **(env or {}),
        }
        return _run(argv, project, run_env, stub)


# What opencode 1.18.33 does before its first model request, measured with strace: for every
# config directory (`~/.config/opencode`, `<project>/.opencode`) it installs its plugin SDK
# `@opencode-ai/plugin` from the npm registry (23 connections and 20 to 25 s on this machine, the
# only wait) unless that directory already holds `node_modules` and a `package-lock.json` naming
# the package; with OPENCODE_DISABLE_MODELS_FETCH it makes no other connection at all.
OPENCODE_SDK = "@opencode-ai/plugin"


def _opencode_installed(directory: Path, version: str) -> None:
    """`directory` as opencode leaves it once it has installed its SDK there: a user's second
    run and every later one. ccbridge's plugin imports nothing, so no package is needed."""
    (directory / "node_modules").mkdir(parents=True, exist_ok=True)
    lock = {"packages": {"": {"dependencies": {OPENCODE_SDK: version}}}}
    (directory / "package-lock.json").write_text(json.dumps(lock), encoding="utf-8")


def run_opencode(
    binary: Path,
    project: Path,
    plugins: Mapping[str, str | bytes],
    commands: Sequence[str],
    env: Mapping[str, str] | None = None,
    permission: Mapping[str, Any] | None = None,
    waits_on_call: float | None = None,
) -> AgentRun:
    """`opencode run` once in `project`, `plugins` (file name: source) in its project plugin
    directory `.opencode/plugin/` (where `ccbridge install --host opencode --project` writes
    ccbridge's), its user config naming an OpenAI-compatible provider at a chat-completions
    stand-in. `permission`: opencode's own rules (default: every bash and edit call allowed).
    `waits_on_call`: a run expected to wait forever on the call is killed that many seconds
    after the model asked for it, not at RUN_TIMEOUT."""
    with (
        tempfile.TemporaryDirectory(prefix="opencode-home-") as scratch,
        ChatCompletionsStandIn(commands) as stub,
    ):
        home = Path(scratch)
        config = home / ".config" / "opencode"
        plugin_dir = project / ".opencode" / "plugin"
        plugin_dir.mkdir(parents=True)
        for name, source in plugins.items():
            data = source.encode() if isinstance(source, str) else source
            (plugin_dir / name).write_bytes(data)
        package = binary.resolve().parent.parent / "package.json"  # opencode-ai's own
        sdk = json.loads(package.read_text(encoding="utf-8"))["version"]
        for directory in (config, project / ".opencode"):
            _opencode_installed(directory, sdk)
        provider = {
            "npm": "@ai-sdk/openai-compatible",  # bundled in the binary: nothing is installed
            "name": "stub",
            "options": {"baseURL": f"{stub.base_url}/v1", "apiKey": "dummy"},
            "models": {"stub-model": {"name": "stub"}},
        }
        settings = {
            "autoupdate": False,
            "share": "disabled",
            "provider": {"stub": provider},
            "model": "stub/stub-model",
            "permission": dict(permission or {"bash": "allow", "edit": "allow"}),
        }
        (config / "opencode.json").write_text(json.dumps(settings), encoding="utf-8")
        argv = [str(binary), "run", "Do the task."]
        run_env = {
            **_base_env(home),
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",  # models.dev: the provider is configured
            **(env or {}),
        }
        if waits_on_call is not None:
            return _run_until_stuck(argv, project, run_env, stub, waits_on_call)
        return _run(argv, project, run_env, stub)


def run_cline(
    binary: Path,
    project: Path,
    hooks: Mapping[str, bytes],
    commands: Sequence[str],
    env: Mapping[str, str] | None = None,
) -> AgentRun:
    """`cline --json` once in `project` (act mode, every tool auto-approved: its default with a
    prompt), `hooks` (file name: content) as its user hook files in ~/.cline/hooks, its
    OpenAI-compatible provider pointed at a chat-completions stand-in. The local session
    backend: no hub daemon is started, and none outlives the run."""
    with (
        tempfile.TemporaryDirectory(prefix="cline-home-") as scratch,
        ChatCompletionsStandIn(commands) as stub,
    ):
        home = Path(scratch)
        hooks_dir = home / ".cline" / "hooks"
        hooks_dir.mkdir(parents=True)
        for name, content in hooks.items():
            (hooks_dir / name).write_bytes(content)
            (hooks_dir / name).chmod(0o755)
        settings = home / ".cline" / "data" / "settings"
        settings.mkdir(parents=True)
        provider = {
            "settings": {
                "provider": "openai-compatible",
                "apiKey": "dummy",
                "model": "stub-model",
                "baseUrl": f"{stub.base_url}/v1",
            },
            # As `cline auth` writes it: without `updatedAt` and `modes`, 3.0.65 did not use the
            # entry (measured: it called a provider of its own, which refused the connection).
            "updatedAt": "2026-01-01T00:00:00.000Z",
            "tokenSource": "manual",
        }
        providers = {
            "version": 1,
            "lastUsedProvider": "openai-compatible",
            "modes": {},
            "providers": {"openai-compatible": provider},
        }
        (settings / "providers.json").write_text(json.dumps(providers), encoding="utf-8")
        argv = [str(binary), "--json", "--retries", "1", "-P", "openai-compatible"]
        argv += ["-m", "stub-model", "Do the task."]
        run_env = {**_base_env(home), "CLINE_SESSION_BACKEND_MODE": "local", **(env or {})}
        return _run(argv, project, run_env, stub)


def _run(argv: list[str], project: Path, env: dict[str, str], stub: ModelStandIn) -> AgentRun:
    started = time.monotonic()
    try:
        done = subprocess.run(
            argv,
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as hung:
        return AgentRun(None, _text(hung.stdout), _text(hung.stderr), stub, RUN_TIMEOUT)
    return AgentRun(done.returncode, done.stdout, done.stderr, stub, time.monotonic() - started)


def _run_until_stuck(
    argv: list[str], project: Path, env: dict[str, str], stub: ModelStandIn, wait: float
) -> AgentRun:
    """As _run, but killed `wait` seconds after the model asked for the scripted command: how
    long the agent took to start (seconds to tens of seconds on a loaded machine) does not
    count against the wait."""
    started = time.monotonic()
    with subprocess.Popen(
        argv,
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as agent:
        while True:
            try:
                out, err = agent.communicate(timeout=0.5)
            except subprocess.TimeoutExpired as waiting:
                now, asked = time.monotonic(), stub.asked_at
                if now - started < RUN_TIMEOUT and (asked is None or now - asked < wait):
                    continue
                agent.kill()
                agent.wait()
                return AgentRun(
                    None, _text(waiting.stdout), _text(waiting.stderr), stub, now - started
                )
            return AgentRun(agent.returncode, out, err, stub, time.monotonic() - started)


def _text(data: str | bytes | None) -> str:
    return data.decode("utf-8", "replace") if isinstance(data, bytes) else (data or "")
