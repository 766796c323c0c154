"""SalesforceApiReader through the real simple-salesforce client against a local HTTPS server answering like Salesforce
REST and Bulk 2.0 (tests/salesforce/fake_salesforce.py), fed with the bundled sample's rows."""

import copy
import datetime as dt
import re
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from connectors.registry import export_reader
from connectors.salesforce import (
    SalesforceApiReader,
    SalesforceApiSettings,
    SalesforceAuthError,
    SalesforceConfigError,
    SalesforceExportReader,
    SalesforceLimitError,
)
from ground.contract import TimeWindow, split
from ground.records import Deletion, ErrorClass
from tests.salesforce.fake_salesforce import FakeSalesforce
from tests.salesforce.fake_tables import load_export
from tests.salesforce.fake_tls import make_certificate, server_context

REPO = Path(__file__).resolve().parents[2]
SNAPSHOT = REPO / "sample" / "exports" / "salesforce" / "2026-06-27" / "WE_00D8d00000NwAnaEAF_1.ZIP"
OBJECTS = ["User", "Account", "Contact", "Opportunity", "OpportunityContactRole", "Task", "EmailMessage"]
UTC = dt.UTC


@pytest.fixture(scope="module")
def tls(tmp_path_factory):
    return make_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def server(tls):
    srv = HTTPServer(host="localhost", port=0, ssl_context=server_context(*tls))
    srv.start()
    yield srv
    if srv.is_running():
        srv.stop()


@pytest.fixture
def fake(server):
    server.clear()
    tables = load_export(SNAPSHOT)
    case_header = {
        "Id": "",
        "IsDeleted": "",
        "Subject": "",
        "Status": "",
        "AccountId": "",
        "OwnerId": "",
        "CreatedDate": "",
        "LastModifiedDate": "",
        "SystemModstamp": "",
    }
    tables["Case"] = [
        {
            **case_header,
            "Id": "5008d00000CsAcmAAF",
            "IsDeleted": "false",
            "Subject": "Nightly load fails",
            "Status": "New",
            "AccountId": "0018d00000AcmeCAAR",
            "OwnerId": "0058d00000MiChnAAF",
            "CreatedDate": "2026-06-10T09:00:00.000Z",
            "LastModifiedDate": "2026-06-10T09:30:00.000Z",
            "SystemModstamp": "2026-06-10T09:30:00.000Z",
        },
        {
            **case_header,
            "Id": "5008d00000CsOldAAF",
            "IsDeleted": "true",
            "Subject": "Duplicate",
            "Status": "Closed",
            "AccountId": "0018d00000AcmeCAAR",
            "OwnerId": "0058d00000MiChnAAF",
            "CreatedDate": "2026-06-09T09:00:00.000Z",
            "LastModifiedDate": "2026-06-11T08:00:00.000Z",
            "SystemModstamp": "2026-06-11T08:00:00.000Z",
        },
    ]
    tables["CaseComment"] = [
        {
            "Id": "00a8d00000CcAcmAAF",
            "ParentId": "5008d00000CsAcmAAF",
            "IsPublished": "true",
            "CommentBody": "Reran the load after the schema fix.",
            "CreatedById": "0058d00000MiChnAAF",
            "CreatedDate": "2026-06-10T09:30:00.000Z",
            "IsDeleted": "false",
        }
    ]
    tables["CaseHistory"] = [
        {
            "Id": "0178d00000ChAcmAAF",
            "CaseId": "5008d00000CsAcmAAF",
            "Field": "Status",
            "OldValue": "",
            "NewValue": "New",
            "CreatedById": "0058d00000MiChnAAF",
            "CreatedDate": "2026-06-10T09:00:00.000Z",
            "IsDeleted": "false",
        }
    ]
    fake = FakeSalesforce(tables, server.url_for("/").rstrip("/"))
    fake.extra_describe["Account"] = [{"name": "BillingAddress", "type": "address"}]
    server.expect_request(re.compile(r"^/")).respond_with_handler(fake)
    return fake


def settings(fake, tls, **kw) -> SalesforceApiSettings:
    base = dict(
        login_url=fake.base_url,
        username="sarah.okafor@northwind.example",
        password="pw",
        security_token="tok",
        client_id="3MVG9fake",
        client_secret="s3cret",
        objects=OBJECTS,
        ca_bundle=str(tls[0]),
        backoff_seconds=0.001,
        bulk_poll_seconds=0.001,
        page_size=200,
        max_retries=3,
    )
    return SalesforceApiSettings(**{**base, **kw})


def drain(reader, window=None, checkpoint=None):
    items = []
    gen = reader.read(window, checkpoint)
    while True:
        try:
            items.append(next(gen))
        except StopIteration as stop:
            return items, stop.value


def comparable(record):
    return record.model_dump(exclude={"origin", "url"})


def by_version(records):
    return {(r.source_key, r.version): comparable(r) for r in records}


def export_records():
    records, failures = split(SalesforceExportReader([SNAPSHOT]).read())
    return records, failures


# ---------------------------------------------------------------------- equality with the export path


def test_given_the_sample_rows_when_read_through_rest_then_records_equal_the_export_readers(fake, tls):
    items, checkpoint = drain(SalesforceApiReader(settings(fake, tls)))
    records, failures = split(items)
    expected, expected_failures = export_records()
    assert len(expected) >= 14 and len(expected_failures) == 2
    assert by_version(records) == by_version(expected)
    assert sorted(f.error_class for f in failures) == sorted(f.error_class for f in expected_failures)
    assert checkpoint.has_more is False and checkpoint.object_index == len(OBJECTS)
    queries = [p for m, p in fake.log if "/queryAll" in p or "/query" in p]
    assert all("BillingAddress" not in q for q in queries)  # compound field left out


def test_given_a_big_window_when_read_then_bulk_2_pages_by_locator_and_records_still_equal(fake, tls):
    reader = SalesforceApiReader(settings(fake, tls, bulk_threshold=1, page_size=200))
    fake_page = 200
    assert fake_page == reader.settings.page_size
    items, _ = drain(reader)
    records, _ = split(items)
    expected, _ = export_records()
    assert by_version(records) == by_version(expected)
    assert any(m == "POST" and p.endswith("/jobs/query") for m, p in fake.log)
    assert any("/results" in p for m, p in fake.log)


def test_given_several_bulk_pages_when_read_then_each_locator_is_asked_and_lands_in_the_checkpoint(fake, tls):
    user = fake.tables["User"][0]
    fake.tables["User"] = [{**user, "Id": f"0058d00000U{i:04d}AAA"} for i in range(450)]
    reader = SalesforceApiReader(settings(fake, tls, bulk_threshold=1, objects=["User"]))
    gen = reader.read()
    first = [next(gen) for _ in range(201)]
    assert len(first) == 201 and reader.checkpoint.bulk_job_id and reader.checkpoint.bulk_locator == "200"
    resumed, final = drain(
        SalesforceApiReader(settings(fake, tls, bulk_threshold=1, objects=["User"])), checkpoint=reader.checkpoint
    )
    assert len(resumed) == 250 and final.has_more is False
    assert [p.split("locator=")[-1].split("&")[0] for _, p in fake.log if "/results" in p and "locator=" in p] == [
        "200",
        "200",
        "400",
    ]
    assert sum(1 for m, p in fake.log if m == "POST" and "/jobs/query" in p) == 1


def test_given_bulk_refuses_an_object_when_read_then_rest_reads_it(fake, tls):
    fake.bulk_unsupported.add("EmailMessage")
    items, _ = drain(SalesforceApiReader(settings(fake, tls, bulk_threshold=1, objects=["User", "EmailMessage"])))
    records, _ = split(items)
    assert [r.kind for r in records].count("email") == 1
    assert any("/queryAll" in p and "EmailMessage" in p and "COUNT" not in p for _, p in fake.log)


# ---------------------------------------------------------------------- paging, windows, deletions


def test_given_more_rows_than_a_page_when_read_then_next_records_url_pages_and_checkpoint_follows(fake, tls):
    users = fake.tables["User"]
    fake.tables["User"] = [
        {**u, "Id": f"0058d00000U{i:04d}AAA", "Email": f"user{i}@northwind.example"}
        for i in range(450)
        for u in users[:1]
    ]
    reader = SalesforceApiReader(settings(fake, tls, objects=["User"]))
    gen = reader.read()
    first = [next(gen) for _ in range(200)]
    assert len(first) == 200
    next(gen)  # the first item of page two: page one is done
    assert reader.checkpoint.next_records_url and reader.checkpoint.object_name == "User"
    resumed, final = drain(SalesforceApiReader(settings(fake, tls, objects=["User"])), checkpoint=reader.checkpoint)
    assert len(resumed) == 250 and final.has_more is False
    assert sum(1 for _, p in fake.log if "/query/01gFAKE" in p) == 3


def test_given_deleted_rows_when_read_then_queryall_brings_them_as_deletions(fake, tls):
    window = TimeWindow(start=dt.datetime(2026, 6, 9, tzinfo=UTC), end=dt.datetime(2026, 6, 12, tzinfo=UTC))
    items, _ = drain(SalesforceApiReader(settings(fake, tls, objects=["Case"])), window=window)
    records, failures = split(items)
    cases = {r.title: r for r in records}
    assert not failures and set(cases) == {"Nightly load fails"}
    deletions = [item for item in items if isinstance(item, Deletion)]
    assert [(d.kind, d.reason) for d in deletions] == [("case", "deleted")] and deletions[0].detected_at is not None
    live = cases["Nightly load fails"]
    assert live.actor.id == "michael.chen@northwind.example"
    assert live.fields["account"]["name"] == "Acme Corp" and live.fields["account"]["domain"] == "acme.example"
    assert "Reran the load" in live.body and [c["value"] for c in live.fields["history"]] == ["New"]
    assert any("queryAll" in p and "SystemModstamp+%3E%3D+2026-06-09T00%3A00%3A00Z" in p for _, p in fake.log)


def test_given_a_window_when_read_then_only_rows_changed_inside_it_come(fake, tls):
    window = TimeWindow(start=dt.datetime(2026, 6, 8, tzinfo=UTC), end=dt.datetime(2026, 6, 9, tzinfo=UTC))
    items, _ = drain(SalesforceApiReader(settings(fake, tls)), window=window)
    records, _ = split(items)
    assert records and all(window.contains(r.updated_at) for r in records)
    roles = {r.title for r in records if r.kind == "contact_role"}
    assert roles == {
        "Dana Whitfield: Decision Maker on Acme Corp - Data Platform 2026",
        "Priya Raman: Business User on Acme Corp - Data Platform 2026",
    }
    dana = next(r for r in records if r.title.startswith("Dana"))
    assert dana.fields["account"]["domain"] == "acme.example"  # learnt from Opportunity.Account.*


# ---------------------------------------------------------------------- errors


def test_given_an_expired_session_when_read_then_one_fresh_login_and_the_same_call_again(fake, tls):
    reader = SalesforceApiReader(settings(fake, tls, objects=["User"]))
    reader.connect()
    fake.expire_session()
    records, _ = split(drain(reader)[0])
    assert len(records) == 3 and fake.tokens == 2 and reader.logins == 2


def test_given_a_session_refused_after_relogin_then_auth_error_without_the_secrets(fake, tls):
    fake.fail(
        "GET",
        r"/describe",
        401,
        [{"message": "Session expired or invalid", "errorCode": "INVALID_SESSION_ID"}],
        times=2,
    )
    with pytest.raises(SalesforceAuthError) as err:
        drain(SalesforceApiReader(settings(fake, tls, objects=["User"])))
    assert "pw" not in str(err.value).replace("API", "") and "s3cret" not in str(err.value)
    assert fake.tokens == 2


def test_given_wrong_credentials_then_auth_error_names_the_settings_not_their_values(fake, tls):
    with pytest.raises(SalesforceAuthError) as err:
        drain(SalesforceApiReader(settings(fake, tls, password="wrong-pass")))
    text = str(err.value)
    assert "GRAPHFEED_SALESFORCE_PASSWORD" in text and "wrong-pass" not in text and "s3cret" not in text


def test_given_request_limit_exceeded_then_the_run_stops_without_retrying(fake, tls):
    fake.fail(
        "GET",
        r"/queryAll",
        403,
        [{"message": "TotalRequests Limit exceeded.", "errorCode": "REQUEST_LIMIT_EXCEEDED"}],
        times=5,
    )
    with pytest.raises(SalesforceLimitError, match="REQUEST_LIMIT_EXCEEDED"):
        drain(SalesforceApiReader(settings(fake, tls, objects=["User"])))
    assert sum(1 for _, p in fake.log if "/queryAll" in p) == 1


def test_given_a_503_then_success_when_read_then_retried_after_retry_after(fake, tls):
    waits = []
    fake.fail(
        "GET",
        r"/queryAll.*SELECT\+Id",
        503,
        [{"message": "down", "errorCode": "SERVER_UNAVAILABLE"}],
        **{"Retry-After": "0"},
    )
    fake.fail(
        "GET", r"/describe", 429, [{"message": "slow down", "errorCode": "REQUEST_LIMIT"}], **{"Retry-After": "0.002"}
    )
    reader = SalesforceApiReader(settings(fake, tls, objects=["User"]), sleep=waits.append)
    records, _ = split(drain(reader)[0])
    assert len(records) == 3 and waits == [0.002, 0.0]


def test_given_limit_info_near_the_reserve_then_the_run_stops_with_a_checkpoint(fake, tls):
    fake.api_used, fake.api_total = 14_000, 15_000
    reader = SalesforceApiReader(settings(fake, tls, api_reserve=990))
    with pytest.raises(SalesforceLimitError, match="API_RESERVE") as err:
        drain(reader)
    assert "14,0" in str(err.value)
    assert reader.checkpoint.has_more and reader.checkpoint.api_total == 15_000


def test_given_an_unknown_object_or_field_then_config_error_names_the_setting(fake, tls):
    with pytest.raises(SalesforceConfigError, match="GRAPHFEED_SALESFORCE_OBJECTS"):
        drain(SalesforceApiReader(settings(fake, tls, objects=["Nosuch__c"])))
    with pytest.raises(SalesforceConfigError, match="GRAPHFEED_SALESFORCE_EXTRA_FIELDS"):
        drain(SalesforceApiReader(settings(fake, tls, objects=["User"], extra_fields={"User": ["Region__c"]})))


def test_given_history_not_enabled_when_read_then_parents_come_without_it_and_the_child_is_listed(fake, tls):
    del fake.tables["OpportunityFieldHistory"]
    items, checkpoint = drain(SalesforceApiReader(settings(fake, tls, objects=["Opportunity"])))
    records, failures = split(items)
    assert len(records) == 1 and not failures and checkpoint.skipped == ["OpportunityFieldHistory"]
    assert [c["field"] for c in records[0].fields["history"]].count("StageName") == 5


def test_given_a_bad_row_when_read_then_a_record_failure_and_the_rest_goes_on(fake, tls):
    items, _ = drain(SalesforceApiReader(settings(fake, tls, objects=["Contact"])))
    records, failures = split(items)
    assert len(records) == 3 and len(failures) == 1
    assert failures[0].error_class == ErrorClass.bad_value and "2026-06-31" in failures[0].reason
    assert failures[0].location.url.endswith("/sobjects/Contact/0038d00000XyBrkAAF")


# ---------------------------------------------------------------------- settings


def test_given_environment_variables_then_settings_build_the_api_reader():
    env = {
        "GRAPHFEED_SALESFORCE_LOGIN_URL": "https://login.salesforce.com",
        "GRAPHFEED_SALESFORCE_USERNAME": "a@b.c",
        "GRAPHFEED_SALESFORCE_PASSWORD": "p",
        "GRAPHFEED_SALESFORCE_SECURITY_TOKEN": "t",
        "GRAPHFEED_SALESFORCE_OBJECTS": "Account, Opportunity",
        "GRAPHFEED_SALESFORCE_EXTRA_FIELDS": "Account.Region__c,Opportunity.Account.Industry",
        "GRAPHFEED_SALESFORCE_BULK_THRESHOLD": "5000",
    }
    s = SalesforceApiSettings.from_env(env)
    assert s.objects == ["Account", "Opportunity"] and s.bulk_threshold == 5000
    assert s.extra_fields == {"Account": ["Region__c"], "Opportunity": ["Account.Industry"]}
    assert "p" not in repr(s.password) and isinstance(SalesforceApiReader(s), SalesforceApiReader)
    assert isinstance(export_reader("salesforce", [SNAPSHOT]), SalesforceExportReader)
    assert copy.deepcopy(s) == s
