"""Amounts carry the currency the data carries: the row's CurrencyIsoCode (multi-currency orgs), else the configured
org currency (GRAPHFEED_SALESFORCE_CURRENCY), else the number alone, in the episode text and in the facts alike."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from connectors.registry import traits_of
from connectors.salesforce import SalesforceExportReader
from connectors.salesforce.facts import salesforce_facts
from ground.contract import split
from pipelines.resources import api_resources
from transforms.build import EpisodeSettings, make_episode, record_text

ROOT = Path(__file__).resolve().parents[2]
OPP_HEAD = "Id,AccountId,Name,StageName,Amount,{currency}CloseDate,CreatedDate,LastModifiedDate,SystemModstamp\n"
FIELD_HISTORY = (
    "Id,OpportunityId,CreatedDate,Field,OldValue,NewValue\n"
    "017000000000001AAA,006000000000001AAA,2026-04-02T10:00:00.000Z,Amount,4000,4500\n"
)


def export(folder: Path, currency_column: bool) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    head = OPP_HEAD.format(currency="CurrencyIsoCode," if currency_column else "")
    code = "GBP," if currency_column else ""
    (folder / "Opportunity.csv").write_text(
        head + f"006000000000001AAA,001000000000001AAA,Fjord renewal,Prospecting,4500,{code}2026-09-30,"
        "2026-04-01T09:00:00.000Z,2026-04-02T10:00:00.000Z,2026-04-02T10:00:00.000Z\n"
    )
    (folder / "OpportunityFieldHistory.csv").write_text(FIELD_HISTORY)
    return folder


def amounts(folder: Path, currency: str | None = None) -> tuple[str, list[str]]:
    records, failures = split(SalesforceExportReader([folder], currency=currency).read())
    assert not failures
    (opp,) = [r for r in records if r.kind == "opportunity"]
    episode = make_episode(
        opp, record_text(opp, traits_of(opp.source)), "en", "other", 1.0, [], EpisodeSettings(group_id="g")
    )
    facts = sorted(f.fact for f in salesforce_facts(episode, {}).facts if f.predicate == "HAS_AMOUNT")
    return episode.content, facts


def test_given_a_single_currency_org_without_setting_then_amounts_are_numbers_alone(tmp_path):
    content, facts = amounts(export(tmp_path / "x", currency_column=False))
    assert "Amount: 4,500" in content and "Amount -> 4,500" in content
    assert "USD" not in content and not any("USD" in f for f in facts)
    assert facts == ["Fjord renewal has the amount 4,500"]


def test_given_the_org_currency_configured_then_amounts_without_a_code_carry_it(tmp_path):
    content, facts = amounts(export(tmp_path / "x", currency_column=False), currency="eur")
    assert "Amount: EUR 4,500" in content and "Amount -> EUR 4,500" in content
    assert facts == ["Fjord renewal has the amount EUR 4,500"]


def test_given_a_multi_currency_org_then_the_rows_own_code_wins_over_the_setting(tmp_path):
    content, facts = amounts(export(tmp_path / "x", currency_column=True), currency="EUR")
    assert "Amount: GBP 4,500" in content and "EUR" not in content
    assert facts == ["Fjord renewal has the amount GBP 4,500"]


def test_the_setting_reaches_the_export_and_api_readers_and_a_bad_code_is_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("GRAPHFEED_SALESFORCE_CURRENCY", "CHF")
    apis = api_resources()["apis"]
    assert apis.export_reader("salesforce", [str(tmp_path)]).currency == "CHF"
    monkeypatch.setenv("GRAPHFEED_SALESFORCE_LOGIN_URL", "https://login.salesforce.com")
    monkeypatch.setenv("GRAPHFEED_SALESFORCE_USERNAME", "a@b.c")
    monkeypatch.setenv("GRAPHFEED_SALESFORCE_PASSWORD", "pw")
    assert api_resources()["apis"].reader("salesforce").settings.currency == "CHF"
    monkeypatch.setenv("GRAPHFEED_SALESFORCE_CURRENCY", "Euro")
    with pytest.raises(ValueError, match="GRAPHFEED_SALESFORCE_CURRENCY"):
        api_resources()["apis"].export_reader("salesforce", [str(tmp_path)])


def test_preview_with_an_unusable_currency_exits_2_naming_the_setting(tmp_path):
    folder = export(tmp_path / "x", currency_column=False)
    run = subprocess.run(
        [sys.executable, "-m", "pipelines.commands", "preview", "--source", "salesforce", str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "GRAPHFEED_HOME": str(tmp_path), "GRAPHFEED_SALESFORCE_CURRENCY": "$"},
    )
    assert run.returncode == 2 and run.stdout == ""
    assert "GRAPHFEED_SALESFORCE_CURRENCY" in run.stderr and "Traceback" not in run.stderr
