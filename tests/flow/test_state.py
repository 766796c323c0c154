"""flow/state.py keeps a finished API read's checkpoint between nights, in the staging store, without Dagster."""

import datetime as dt

from connectors.jira import JiraApiCheckpoint
from flow.staging import Staging
from flow.state import checkpoint_path, load_checkpoint, save_checkpoint
from ground.contract import Checkpoint

LISTED = dt.datetime(2026, 3, 1, 2, 0, tzinfo=dt.UTC)


def test_given_a_finished_jira_read_when_saved_then_the_next_night_loads_its_listing(tmp_path):
    # given a finished Jira API read that listed every key
    staging = Staging(str(tmp_path))
    finished = JiraApiCheckpoint(has_more=False, last_full_listing=LISTED, known_keys=["ACME-1", "ACME-2"])
    # when it is saved and the next night loads it
    kept = save_checkpoint(staging, "jira", finished)
    loaded = load_checkpoint(staging, "jira")
    # then the same typed checkpoint comes back, from the file next to the source's staging
    assert kept and isinstance(loaded, JiraApiCheckpoint) and loaded == finished
    assert checkpoint_path(staging, "jira") == staging.root / "jira" / "api_checkpoint.json"


def test_given_an_unfinished_read_when_saved_then_the_last_finished_one_stays(tmp_path):
    # given a kept finished checkpoint
    staging = Staging(str(tmp_path))
    save_checkpoint(staging, "jira", JiraApiCheckpoint(has_more=False, known_keys=["ACME-1"]))
    # when a read that stopped half-way is offered
    kept = save_checkpoint(staging, "jira", JiraApiCheckpoint(has_more=True, known_keys=["ACME-9"]))
    # then it is not kept and the finished one still loads
    loaded = load_checkpoint(staging, "jira")
    assert not kept and loaded is not None and loaded.known_keys == ["ACME-1"]  # type: ignore[attr-defined]


def test_given_a_source_that_carries_nothing_when_saved_then_nothing_is_written(tmp_path):
    # given e-mail, whose reads start from their window every night
    staging = Staging(str(tmp_path))
    # when a finished checkpoint is offered
    kept = save_checkpoint(staging, "email", Checkpoint(has_more=False))
    # then nothing is kept and nothing loads
    assert not kept and load_checkpoint(staging, "email") is None
    assert not checkpoint_path(staging, "email").exists()
