"""The bundled sample company's settings stay with the sample: a company's own exports never inherit them."""

import pytest

from pipelines.resources import graph_resources

EXPORT_VARS = ["GRAPHFEED_EXPORTS_DIR"] + [
    f"GRAPHFEED_{s}_EXPORTS" for s in ("EMAIL", "JIRA", "CONFLUENCE", "SALESFORCE")
]


@pytest.fixture
def clean_env(monkeypatch):
    for name in [*EXPORT_VARS, "GRAPHFEED_DOMAIN_ORGS"]:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_given_the_bundled_sample_then_its_employers_map_mail_domains_to_organisations(clean_env):
    orgs = graph_resources()["graph"].domain_orgs
    assert orgs == {"northwind.example": "Northwind Analytics", "acme.example": "Acme Corp"}


@pytest.mark.parametrize("variable", EXPORT_VARS)
def test_given_exports_of_your_own_then_no_sample_organisation_is_assumed(clean_env, tmp_path, variable):
    clean_env.setenv(variable, str(tmp_path))
    assert graph_resources()["graph"].domain_orgs == {}


def test_given_an_explicit_map_then_it_wins_over_either_default(clean_env, tmp_path):
    clean_env.setenv("GRAPHFEED_EXPORTS_DIR", str(tmp_path))
    clean_env.setenv("GRAPHFEED_DOMAIN_ORGS", "globex.example=Globex")
    assert graph_resources()["graph"].domain_orgs == {"globex.example": "Globex"}
