"""Fixtures for the operations tests: a real SMTP server on loopback (aiosmtpd) and a persistent Dagster instance."""

import os
import time
from collections.abc import Iterator
from email import message_from_bytes, policy
from email.message import Message
from pathlib import Path

import dagster as dg
import pytest

from flow.settings import REPO_ROOT
from tests.servers._process import free_port

SAMPLE_EMAIL = REPO_ROOT / "sample" / "exports" / "email"


class SmtpSink:
    """Collects every message the server accepted."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.envelopes: list[tuple[str, list[str]]] = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd's hook name
        self.messages.append(message_from_bytes(envelope.original_content or envelope.content, policy=policy.default))
        self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 OK"

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Message]:
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        return self.messages


@pytest.fixture
def smtp_server() -> Iterator[tuple[str, int, SmtpSink]]:
    """(host, port, sink) of a real SMTP server on 127.0.0.1, stopped after the test."""
    from aiosmtpd.controller import Controller

    sink = SmtpSink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        yield controller.hostname, controller.port, sink
    finally:
        controller.stop()


@pytest.fixture(scope="session")
def ops_model_cache() -> Path:
    """The shared intent-model cache of the root conftest (see tests/pipeline/conftest.py's model_cache)."""
    return Path(os.environ["GRAPHFEED_MODEL_CACHE"])


def chain_resources(home: Path, model_cache: Path, **episode_overrides) -> dict:
    """The code location's resources (whatever the chain needs today: graph, ledger, source APIs...) with a private
    home, the bundled sample mail, and a shared intent-model cache."""
    from assets.resources import EpisodeConfig, ExportsResource, HomeResource, IntentModelResource
    from pipelines.resources import default_resources

    return {
        **default_resources(),
        "home": HomeResource(path=str(home)),
        "exports": ExportsResource(paths_by_source={"email": [str(SAMPLE_EMAIL)]}),
        "episode_config": EpisodeConfig(jira_project_keys=["NW", "ACME"], **episode_overrides),
        "intent_model": IntentModelResource(cache_dir=str(model_cache)),
    }


@pytest.fixture
def instance(tmp_path) -> Iterator[dg.DagsterInstance]:
    """A persistent (SQLite) instance in a temp dir: sensors need one, as they do in production."""
    home = tmp_path / "dagster_home"
    home.mkdir()
    with dg.instance_for_test(temp_dir=str(home)) as inst:
        yield inst
