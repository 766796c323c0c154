"""Given reader settings in the environment, when graphfeed reads (preview or the Dagster resource), then the readers
get them: restricted Confluence pages go where the policy says, Jira CSV dates are read in the configured zone, the
Salesforce reserve and extra fields reach the API reader."""

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.resources import api_resources

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample" / "exports" / "confluence" / "ACME-xml-export.zip"
RESTRICTED_PAGE = "131076"


def preview_groups(tmp_path, **env) -> dict[str, str]:
    run = subprocess.run(
        [sys.executable, "-m", "pipelines.commands", "preview", "--source", "confluence", str(SAMPLE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "GRAPHFEED_HOME": str(tmp_path), **env},
    )
    episodes = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    return {e["metadata"]["source_key"]: e["group_id"] for e in episodes if e["metadata"]["kind"] == "page"}


def test_restricted_pages_are_skipped_by_default_and_go_to_their_own_group_when_configured(tmp_path):
    assert RESTRICTED_PAGE not in preview_groups(tmp_path)
    groups = preview_groups(
        tmp_path, GRAPHFEED_CONFLUENCE_RESTRICTED="separate_group", GRAPHFEED_CONFLUENCE_SPACE_GROUPS="ACME=acme_docs"
    )
    assert groups[RESTRICTED_PAGE] == "confluence_ACME_restricted"
    assert {g for k, g in groups.items() if k != RESTRICTED_PAGE} == {"acme_docs"}


def test_the_dagster_resource_hands_every_setting_to_the_api_reader(monkeypatch):
    for name, value in {
        "GRAPHFEED_CONFLUENCE_URL": "https://wiki.example",
        "GRAPHFEED_CONFLUENCE_API_TOKEN": "t",
        "GRAPHFEED_CONFLUENCE_INCLUDE_LABELS": "charter,plan",
        "GRAPHFEED_CONFLUENCE_HISTORY_VERSIONS": "3",
        "GRAPHFEED_CONFLUENCE_RESTRICTED": "separate_group",
        "GRAPHFEED_CONFLUENCE_RESTRICTED_SPACE_GROUPS": "ACME=acme_private",
    }.items():
        monkeypatch.setenv(name, value)
    settings = api_resources()["apis"].reader("confluence").settings
    assert settings.include_labels == ["charter", "plan"] and settings.history_versions == 3
    assert settings.groups.group_for("ACME", restricted=True) == "acme_private"
    assert settings.groups.group_for("OPS", restricted=True) == "confluence_OPS_restricted"


def test_jira_csv_dates_are_read_in_the_configured_zone_and_content_fields_reach_both_readers(monkeypatch, tmp_path):
    csv_file = tmp_path / "export.csv"
    csv_file.write_text(
        "Summary,Issue key,Issue id,Issue Type,Status,Created,Updated,Reporter,Description,"
        "Custom field (Customer)\n"
        "Kick-off,NW-1,10001,Task,Open,03/Jun/26 9:15 AM,03/Jun/26 9:15 AM,dana,Plan it,Acme\n"
    )
    monkeypatch.setenv("GRAPHFEED_JIRA_CSV_TIMEZONE", "Europe/Berlin")
    monkeypatch.setenv("GRAPHFEED_JIRA_CONTENT_FIELDS", "Customer")
    apis = api_resources()["apis"]
    issue = [r for r in apis.export_reader("jira", [str(csv_file)]).read(None) if getattr(r, "kind", "") == "issue"]
    assert issue[0].occurred_at == dt.datetime(2026, 6, 3, 7, 15, tzinfo=dt.UTC)  # 09:15 CEST
    assert "Acme" in issue[0].body
    monkeypatch.setenv("GRAPHFEED_JIRA_URL", "https://jira.example")
    monkeypatch.setenv("GRAPHFEED_JIRA_API_TOKEN", "t")
    assert api_resources()["apis"].reader("jira").settings.content_fields == ["Customer"]


def test_a_bad_zone_is_a_clear_error_naming_the_setting(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHFEED_JIRA_CSV_TIMEZONE", "Mars/Olympus")
    with pytest.raises(ValueError, match="GRAPHFEED_JIRA_CSV_TIMEZONE"):
        api_resources()["apis"].export_reader("jira", [str(tmp_path)])


def test_salesforce_reserve_domain_bulk_threshold_and_extra_fields_reach_the_api_reader(monkeypatch):
    for name, value in {
        "GRAPHFEED_SALESFORCE_LOGIN_URL": "https://login.salesforce.com",
        "GRAPHFEED_SALESFORCE_USERNAME": "a@b.c",
        "GRAPHFEED_SALESFORCE_PASSWORD": "pw",
        "GRAPHFEED_SALESFORCE_API_RESERVE": "5000",
        "GRAPHFEED_SALESFORCE_DOMAIN": "test",
        "GRAPHFEED_SALESFORCE_BULK_THRESHOLD": "500",
        "GRAPHFEED_SALESFORCE_EXTRA_FIELDS": "Account.Industry,Opportunity.Region__c",
    }.items():
        monkeypatch.setenv(name, value)
    settings = api_resources()["apis"].reader("salesforce").settings
    assert (settings.api_reserve, settings.domain, settings.bulk_threshold) == (5000, "test", 500)
    assert settings.extra_fields == {"Account": ["Industry"], "Opportunity": ["Region__c"]}


def test_an_unusable_reader_setting_stops_preview_with_exit_2_naming_it(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "pipelines.commands", "preview", "--source", "confluence", str(SAMPLE)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "GRAPHFEED_HOME": str(tmp_path), "GRAPHFEED_CONFLUENCE_RESTRICTED": "open"},
    )
    assert run.returncode == 2 and run.stdout == ""
    assert "GRAPHFEED_CONFLUENCE_RESTRICTED" in run.stderr and "Traceback" not in run.stderr
