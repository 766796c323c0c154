"""Given Confluence settings in the environment, when graphfeed reads (preview or the Dagster resource), then the
readers get them: restricted pages go where the policy says, for export files and the API alike."""

import json
import os
import subprocess
import sys
from pathlib import Path

from pipelines.resources import api_resources

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample" / "exports" / "confluence" / "ACME-xml-export.zip"
RESTRICTED_PAGE = "131076"


def preview_groups(tmp_path, **env) -> dict[str, str]:
    run = subprocess.run([sys.executable, "-m", "pipelines.cli", "preview", "--source", "confluence", str(SAMPLE)],
                         cwd=ROOT, capture_output=True, text=True, check=True,
                         env={**os.environ, "GRAPHFEED_HOME": str(tmp_path), **env})
    episodes = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    return {e["metadata"]["source_key"]: e["group_id"] for e in episodes if e["metadata"]["kind"] == "page"}


def test_restricted_pages_are_skipped_by_default_and_go_to_their_own_group_when_configured(tmp_path):
    assert RESTRICTED_PAGE not in preview_groups(tmp_path)
    groups = preview_groups(tmp_path, GRAPHFEED_CONFLUENCE_RESTRICTED="separate_group",
                            GRAPHFEED_CONFLUENCE_SPACE_GROUPS="ACME=acme_docs")
    assert groups[RESTRICTED_PAGE] == "confluence_ACME_restricted"
    assert {g for k, g in groups.items() if k != RESTRICTED_PAGE} == {"acme_docs"}


def test_the_dagster_resource_hands_every_setting_to_the_api_reader(monkeypatch):
    for name, value in {"GRAPHFEED_CONFLUENCE_URL": "https://wiki.example", "GRAPHFEED_CONFLUENCE_API_TOKEN": "t",
                        "GRAPHFEED_CONFLUENCE_INCLUDE_LABELS": "charter,plan",
                        "GRAPHFEED_CONFLUENCE_HISTORY_VERSIONS": "3",
                        "GRAPHFEED_CONFLUENCE_RESTRICTED": "separate_group",
                        "GRAPHFEED_CONFLUENCE_RESTRICTED_SPACE_GROUPS": "ACME=acme_private"}.items():
        monkeypatch.setenv(name, value)
    settings = api_resources()["apis"].reader("confluence").settings
    assert settings.include_labels == ["charter", "plan"] and settings.history_versions == 3
    assert settings.groups.group_for("ACME", restricted=True) == "acme_private"
    assert settings.groups.group_for("OPS", restricted=True) == "confluence_OPS_restricted"
