"""Given a source defined only under tests/ (toy_notes.py: one folder, one spec) and registered with one registry line,
when it is previewed and run through the Dagster asset factory and definitions, then it works like any source: no
production file had to learn its name. And the registry, the source packages and the import contract agree."""

import io
import json
import tomllib
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import dagster as dg
import pytest

from connectors import registry
from flow import settings
from flow.settings import REPO_ROOT

FIXED_FILES = ("spec.py", "export_reader.py", "api_reader.py", "facts.py", "records.py")
NOTES = [
    ("dana", "Kick-off\nWe decided to ship on Friday."),
    ("lena", "Question\nCan you send the budget figures?"),
    ("omar", "Risk\nThe vendor may miss the deadline, this could delay the launch."),
    ("priya", "Status\nThe migration is done, all tests pass."),
    ("marc", "Thanks\nThanks for the quick help yesterday."),
]
KEYS = [f"n{i}" for i in range(1, len(NOTES) + 1)]


@pytest.fixture
def notes_registered(monkeypatch):
    """The one line a new source adds to connectors/registry.py (here patched in, not written)."""
    monkeypatch.setitem(registry.SOURCES, "notes", "tests.pipeline.toy_notes")
    names = (*registry.SOURCE_NAMES, "notes")
    monkeypatch.setattr(registry, "SOURCE_NAMES", names)
    monkeypatch.setattr(settings, "SOURCES", names)


@pytest.fixture
def notes(tmp_path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    for i, (who, text) in enumerate(NOTES, 1):
        (folder / f"n{i}.txt").write_text(
            f"From: {who}@acme.example\nDate: 2026-04-12T{8 + i:02d}:00:00+00:00\n\n{text}"
        )
    (folder / "broken.txt").write_text("no headers at all")  # one failure in six stays under the 0.2 failure bound
    return folder


def test_a_toy_source_from_tests_previews_like_any_source(notes_registered, notes, tmp_path, monkeypatch, model_cache):
    from pipelines.commands import main

    monkeypatch.setenv("GRAPHFEED_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GRAPHFEED_MODEL_CACHE", str(model_cache))
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["preview", "--source", "notes", str(notes)])
    episodes = [json.loads(line) for line in out.getvalue().splitlines()]
    assert code == 0
    assert sorted(e["metadata"]["source_key"] for e in episodes) == KEYS
    assert {e["source"] for e in episodes} == {"notes"} and all(e["intent"] for e in episodes)
    assert "broken.txt" in err.getvalue() and "1 failures" in err.getvalue()


def test_a_toy_source_from_tests_runs_through_the_asset_factory_and_definitions(notes_registered, notes, resources):
    from assets.resources import ExportsResource
    from assets.source_chain import build_source_chain
    from pipelines.definitions import build_definitions

    chain = build_source_chain("notes")
    result = dg.materialize(
        chain,
        resources={**resources, "exports": ExportsResource(paths_by_source={"notes": [str(notes)]})},
        partition_key="2026-04-12",
        selection=dg.AssetSelection.keys(dg.AssetKey(["notes", "raw_records"]), dg.AssetKey(["notes", "episodes"])),
    )
    assert result.success
    metadata = {
        e.asset_key.to_user_string(): {k: v.value for k, v in e.materialization.metadata.items()}
        for e in result.get_asset_materialization_events()
    }
    assert metadata["notes/raw_records"]["records"] == len(KEYS) and metadata["notes/raw_records"]["failures"] == 1
    assert metadata["notes/episodes"]["episodes"] == len(KEYS)
    keys = {key.to_user_string() for key in build_definitions().resolve_asset_graph().get_all_asset_keys()}
    assert {"notes/raw_records", "notes/episodes", "notes/graph"} <= keys


def test_the_registry_the_source_packages_and_the_import_contract_agree():
    """Each registered source is a package with the fixed files, its spec named as registered, and the layer contract
    in pyproject.toml lists exactly the registered sources' packages, beside the graph sink (which imports none)."""
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    [layers] = [c["layers"] for c in config["contracts"] if c["type"] == "layers" and "containers" not in c]
    [line] = [layer for layer in layers if "connectors.jira" in layer]
    assert {m.strip() for m in line.split("|")} == {f"connectors.{name}" for name in registry.SOURCES} | {"graph"}
    for name, module in registry.SOURCES.items():
        assert module == f"connectors.{name}.spec"
        package = REPO_ROOT / "connectors" / name
        assert [f for f in FIXED_FILES if not (package / f).exists()] == [], name
        spec = registry.spec(name)
        assert spec.name == spec.traits.name == name
        assert spec.settings.env_name("x") == f"GRAPHFEED_{name.upper()}_X"
