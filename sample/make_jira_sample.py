"""Writes sample/exports/jira/: the Jira side of the sample company (docs/sample-company.md), in Jira's own formats.

- issues/*.json: Jira Cloud REST v3 issues (GET /issue/{key}?expand=changelog,names) with ADF bodies, full changelog
  and comments: ACME-1, ACME-2, ACME-7, ACME-12, ACME-15, ACME-18.
- search-NW-page-1.json: a Cloud /search/jql page holding NW-101 (and one broken issue without a key).
- NW-104.xml: the XML/RSS export of NW-104 (HTML description, comments, an issue link).
- NW-108.csv: the CSV export of NW-108 (plus one row whose cells do not match the header).
- issues/ACME-99-partial.json: a download that broke off (truncated JSON).

The story's changes: ACME-12 is assigned to Michael Chen at creation (2026-03-10) and reassigned to Li Na on 2026-04-14
when Huaxin takes over the migration; its status goes To Do -> In Progress (2026-04-14) -> Done (2026-06-26) and its
priority High -> Highest (2026-04-28). ACME-7 is resolved Won't Do on 2026-04-09; ACME-18's due date moves from
2026-07-01 to 2026-07-15 on 2026-06-10. Deterministic, standard library only: `python sample/make_jira_sample.py`.
"""

import csv
import hashlib
import io
import json
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent / "exports" / "jira"
SITE = "https://northwind.atlassian.net"
CONFLUENCE = f"{SITE}/wiki/spaces/ACME/pages"

PEOPLE = {
    "michael": ("Michael Chen", "michael.chen@northwind.example"),
    "laura": ("Laura Fischer", "laura.fischer@northwind.example"),
    "kevin": ("Kevin Doyle", "kevin.doyle@acme.example"),
    "priya": ("Priya Raman", "priya.raman@acme.example"),
    "markus": ("Markus Vogel", "markus.vogel@datenwerk.example"),
    "wang": ("Wang Wei", "wang.wei@huaxin.example"),
    "li": ("Li Na", "li.na@huaxin.example"),
    "grace": ("Grace Holloway", "grace.holloway@northwind.example"),
    "tom": ("Tom Brennan", "tom.brennan@northwind.example"),
}
STATUS = {"To Do": "10000", "In Progress": "3", "Done": "10001", "Closed": "6"}
PRIORITY = {"Highest": "1", "High": "2", "Medium": "3"}
NAMES = {"summary": "Summary", "status": "Status", "assignee": "Assignee", "customfield_10020": "Sprint",
         "customfield_10016": "Story point estimate", "customfield_10050": "Customer"}


def account(who: str) -> str:
    return "712020:" + hashlib.sha256(who.encode()).hexdigest()[:24]


def user(who: str) -> dict:
    name, email = PEOPLE[who]
    return {"self": f"{SITE}/rest/api/3/user?accountId={account(who)}", "accountId": account(who),
            "emailAddress": email, "displayName": name, "active": True, "timeZone": "UTC", "accountType": "atlassian"}


def ts(day: str, time: str = "09:00") -> str:
    return f"{day}T{time}:00.000+0000"


# ---------------------------------------------------------------- ADF helpers


def text(value: str, **marks) -> dict:
    node: dict = {"type": "text", "text": value}
    if marks.get("href"):
        node["marks"] = [{"type": "link", "attrs": {"href": marks["href"]}}]
    if marks.get("strong"):
        node["marks"] = [{"type": "strong"}]
    return node


def para(*parts) -> dict:
    return {"type": "paragraph", "content": [text(p) if isinstance(p, str) else p for p in parts]}


def doc(*blocks) -> dict:
    return {"version": 1, "type": "doc", "content": list(blocks)}


def heading(level: int, value: str) -> dict:
    return {"type": "heading", "attrs": {"level": level}, "content": [text(value)]}


def bullets(*items) -> dict:
    return {"type": "bulletList", "content": [{"type": "listItem", "content": [para(i) if isinstance(i, str) else i]}
                                               for i in items]}


def mention(who: str) -> dict:
    return {"type": "mention", "attrs": {"id": account(who), "text": "@" + PEOPLE[who][0]}}


def card(url: str) -> dict:
    return {"type": "inlineCard", "attrs": {"url": url}}


# ---------------------------------------------------------------- issues


def change(hid: str, who: str, at: str, *items) -> dict:
    return {"id": hid, "author": user(who), "created": at, "items": [dict(i) for i in items]}


def item(field: str, frm=None, frm_s=None, to=None, to_s=None, field_id=None) -> dict:
    return {"field": field, "fieldtype": "jira", "fieldId": field_id or field, "from": frm, "fromString": frm_s,
            "to": to, "toString": to_s}


def status_item(old: str, new: str) -> dict:
    return item("status", STATUS[old], old, STATUS[new], new)


def assignee_item(old: str | None, new: str | None) -> dict:
    return item("assignee", account(old) if old else None, PEOPLE[old][0] if old else None,
                account(new) if new else None, PEOPLE[new][0] if new else None)


def comment(cid: str, who: str, at: str, body: dict) -> dict:
    return {"self": f"{SITE}/rest/api/3/issue/comment/{cid}", "id": cid, "author": user(who), "body": body,
            "updateAuthor": user(who), "created": at, "updated": at, "jsdPublic": True}


def issue(key: str, iid: str, kind: str, summary: str, *, reporter: str, assignee: str | None, created: str,
          updated: str, status: str, priority: str = "Medium", resolution: str | None = None,
          resolved: str | None = None, description: dict | None = None, labels=(), parent: str | None = None,
          links=(), duedate: str | None = None, histories=(), comments=(), custom: dict | None = None) -> dict:
    fields = {
        "summary": summary, "issuetype": {"name": kind, "subtask": False},
        "project": {"key": key.split("-")[0], "name": "Acme Data Platform" if key.startswith("ACME") else "Northwind"},
        "status": {"name": status, "id": STATUS[status]}, "priority": {"name": priority, "id": PRIORITY[priority]},
        "resolution": {"name": resolution} if resolution else None, "resolutiondate": resolved,
        "reporter": user(reporter), "creator": user(reporter), "assignee": user(assignee) if assignee else None,
        "created": created, "updated": updated, "labels": list(labels), "duedate": duedate,
        "description": description, "fixVersions": [], "components": [], "attachment": [],
        "issuelinks": [{"id": str(9000 + n), "type": {"name": t, "inward": inward, "outward": outward},
                        f"{direction}Issue": {"key": other, "fields": {"summary": ""}}}
                       for n, (t, inward, outward, direction, other) in enumerate(links)],
        "comment": {"comments": list(comments), "maxResults": len(comments), "total": len(comments), "startAt": 0},
    }
    if parent:
        fields["parent"] = {"key": parent, "id": "20001", "fields": {"summary": "Acme data platform rollout"}}
    fields.update(custom or {})
    return {"expand": "renderedFields,names,changelog", "id": iid, "self": f"{SITE}/rest/api/3/issue/{iid}",
            "key": key, "fields": fields, "names": NAMES,
            "changelog": {"startAt": 0, "maxResults": len(histories), "total": len(histories),
                          "histories": list(histories)}}


def cloud_issues() -> list[dict]:
    plan = f"{CONFLUENCE}/131074/Data+Migration+Plan"
    runbook = f"{CONFLUENCE}/131075/Go-Live+Runbook"
    return [
        issue("ACME-1", "20001", "Epic", "Acme data platform rollout", reporter="michael", assignee="michael",
              created=ts("2026-03-10", "09:00"), updated=ts("2026-03-23", "10:00"), status="In Progress",
              description=doc(para("Phase 1: load the Oracle warehouse, the SAP ECC exports and Salesforce into the "
                                   "hosted platform for Acme Corp. Charter: ", card(f"{CONFLUENCE}/131073/Project+Charter"))),
              histories=[change("31001", "michael", ts("2026-03-23", "10:00"), status_item("To Do", "In Progress"))]),
        issue("ACME-2", "20002", "Task", "Discovery: source systems and data volumes", reporter="michael",
              assignee="michael", created=ts("2026-03-05", "10:00"), updated=ts("2026-03-10", "16:00"),
              status="Done", resolution="Done", resolved=ts("2026-03-10", "16:00"), parent="ACME-1",
              description=doc(para("Collect source systems, volumes, SSO and hosting requirements from Acme."),
                              bullets("Oracle warehouse: 14 TB, about 40 GB change per day",
                                      "SAP ECC: CSV exports, 6 GB per night", "Salesforce", "Okta for SSO")),
              histories=[change("31002", "michael", ts("2026-03-10", "16:00"), status_item("To Do", "Done"),
                                item("resolution", None, None, "10000", "Done"))]),
        issue("ACME-7", "20007", "Story", "On-prem deployment option", reporter="kevin", assignee="michael",
              created=ts("2026-03-11", "15:20"), updated=ts("2026-04-09", "16:45"), status="Closed",
              priority="High", resolution="Won't Do", resolved=ts("2026-04-09", "16:45"), parent="ACME-1",
              labels=["requirement", "security"],
              description=doc(para("Acme IT Security requires an on-premises deployment option for the data platform."),
                              {"type": "panel", "attrs": {"panelType": "warning"},
                               "content": [para("Decision by Acme's steering committee on 9 April.")]}),
              histories=[change("31070", "michael", ts("2026-04-09", "16:45"), status_item("To Do", "Closed"),
                                item("resolution", None, None, "10002", "Won't Do"))],
              comments=[comment("40701", "michael", ts("2026-04-09", "16:50"), doc(para(
                  "Acme's steering committee rejected the on-prem deployment requirement today. Instead: a dedicated "
                  "hosted tenant in US-Central with customer-managed keys. Resolving as Won't Do.")))]),
        issue("ACME-12", "20012", "Story", "Data migration from the legacy Oracle warehouse (14 TB)",
              reporter="michael", assignee="li", created=ts("2026-03-10", "10:30"), updated=ts("2026-06-26", "11:00"),
              status="Done", priority="Highest", resolution="Done", resolved=ts("2026-06-26", "11:00"),
              parent="ACME-1", labels=["migration", "escalated"],
              links=[("Blocks", "is blocked by", "blocks", "inward", "NW-108")],
              custom={"customfield_10050": {"value": "Acme Corp", "id": "10100"}},
              description=doc(heading(2, "Scope"),
                              para("Migrate 14 TB from the legacy Oracle warehouse. Plan: ", card(plan)),
                              {"type": "taskList", "attrs": {"localId": "t1"}, "content": [
                                  {"type": "taskItem", "attrs": {"localId": "t1a", "state": "DONE"},
                                   "content": [text("Export throughput test")]},
                                  {"type": "taskItem", "attrs": {"localId": "t1b", "state": "TODO"},
                                   "content": [text("Reconciliation report")]}]}),
              histories=[
                  change("31201", "michael", ts("2026-04-14", "15:00"), assignee_item("michael", "li"),
                         status_item("To Do", "In Progress")),
                  change("31202", "michael", ts("2026-04-28", "12:00"), item("priority", "2", "High", "1", "Highest")),
                  change("31203", "michael", ts("2026-05-19", "13:00"),
                         item("labels", None, "migration", None, "escalated migration")),
                  change("31204", "li", ts("2026-06-26", "11:00"), status_item("In Progress", "Done"),
                         item("resolution", None, None, "10000", "Done")),
              ],
              comments=[
                  comment("41201", "michael", ts("2026-04-14", "15:05"), doc(para(
                      "Assigning to ", mention("li"), " - Huaxin runs the migration tooling from now on. "
                      "First test: 1.2 TB per day (NW-108)."))),
                  comment("41202", "michael", ts("2026-04-28", "12:05"), doc(para(
                      "Risk: the export runs at 1.1 TB per day; we need 2 TB per day to finish before go-live. "
                      "Raising priority to Highest."))),
                  comment("41203", "michael", ts("2026-05-19", "13:05"), doc(para(
                      "Escalated the data-migration delay to leadership (", mention("grace"), ", ", mention("tom"),
                      "). Two extra engineers join on 21 May."))),
                  comment("41204", "li", ts("2026-06-26", "11:00"), doc(para(
                      "All 14 TB migrated, reconciliation report attached to the migration plan: ", card(plan)))),
              ]),
        issue("ACME-15", "20015", "Story", "Okta SSO integration", reporter="kevin", assignee="michael",
              created=ts("2026-03-10", "11:00"), updated=ts("2026-04-21", "14:00"), status="Done",
              resolution="Done", resolved=ts("2026-04-21", "14:00"), parent="ACME-1",
              description=doc(para("SAML SSO via Acme's Okta: metadata XML and three test accounts by 10 April.")),
              histories=[change("31501", "michael", ts("2026-03-31", "09:30"), status_item("To Do", "In Progress")),
                         change("31502", "michael", ts("2026-04-21", "14:00"), status_item("In Progress", "Done"),
                                item("resolution", None, None, "10000", "Done"))]),
        issue("ACME-18", "20018", "Task", "Cutover and go-live", reporter="michael", assignee="michael",
              created=ts("2026-05-21", "14:00"), updated=ts("2026-06-10", "16:30"), status="In Progress",
              priority="High", duedate="2026-07-15", parent="ACME-1",
              description=doc(heading(2, "Cutover"),
                              para("Runbook: ", card(runbook)),
                              {"type": "table", "content": [
                                  {"type": "tableRow", "content": [
                                      {"type": "tableHeader", "content": [para("Step")]},
                                      {"type": "tableHeader", "content": [para("Date")]}]},
                                  {"type": "tableRow", "content": [
                                      {"type": "tableCell", "content": [para("Rehearsal")]},
                                      {"type": "tableCell", "content": [para("2026-07-07")]}]},
                                  {"type": "tableRow", "content": [
                                      {"type": "tableCell", "content": [para("Cutover")]},
                                      {"type": "tableCell", "content": [para("2026-07-11/12")]}]}]}),
              histories=[change("31801", "michael", ts("2026-05-21", "14:00"),
                                item("duedate", None, None, "2026-07-01", "2026-07-01")),
                         change("31802", "michael", ts("2026-06-01", "09:00"), status_item("To Do", "In Progress")),
                         change("31803", "michael", ts("2026-06-10", "16:30"),
                                item("duedate", "2026-07-01", "2026-07-01", "2026-07-15", "2026-07-15"))],
              comments=[comment("41801", "michael", ts("2026-06-10", "16:35"), doc(para(
                  "Go-live confirmed for 2026-07-15 by Acme's steering committee (", mention("priya"),
                  "). Due date moved from 2026-07-01.")))]),
    ]


def nw101() -> dict:
    return issue(
        "NW-101", "10101", "Story", "SAP ECC export connector for Acme", reporter="laura", assignee="markus",
        created=ts("2026-03-26", "14:00"), updated=ts("2026-05-26", "15:00"), status="Done", priority="High",
        resolution="Done", resolved=ts("2026-05-26", "15:00"), labels=["acme", "partner-datenwerk"],
        description=doc(para("Read the nightly SAP ECC CSV exports from Acme's SFTP drop and load them into the staging "
                             "area. Work done by Datenwerk GmbH.")),
        histories=[change("11011", "markus", ts("2026-03-30", "08:00"), status_item("To Do", "In Progress")),
                   change("11012", "markus", ts("2026-05-26", "15:00"), status_item("In Progress", "Done"),
                          item("resolution", None, None, "10000", "Done"))],
        comments=[comment("21011", "markus", ts("2026-05-26", "15:00"), doc(para(
            "Connector fertig und von Acme abgenommen. Die Datumsformate (NW-104) sind umgestellt.")))])


def xml_export() -> str:
    acct = account("markus")
    description = escape("<p>SAP exports use <b>TT.MM.JJJJ</b> in some tables and JJJJMMTT in others; the loader must "
                         "accept both. Found while testing NW-101.</p>")
    comment_body = escape("<p>Both formats are parsed now; fixed in the loader.</p>")
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- RSS generated by JIRA (1001.0.0-SNAPSHOT#100270) -->
<rss version="0.92">
<channel>
    <title>Northwind Jira</title>
    <link>{SITE}/issues/?jql=key%3DNW-104</link>
    <description>An XML representation of a search request</description>
    <language>en-us</language>
    <item>
        <title>[NW-104] SAP export date formats (TT.MM.JJJJ vs JJJJMMTT)</title>
        <link>{SITE}/browse/NW-104</link>
        <project id="10100" key="NW">Northwind</project>
        <description>{description}</description>
        <environment></environment>
        <key id="10104">NW-104</key>
        <summary>SAP export date formats (TT.MM.JJJJ vs JJJJMMTT)</summary>
        <type id="10004">Bug</type>
        <priority id="3">Medium</priority>
        <status id="10001">Done</status>
        <statusCategory id="3" key="done" colorName="green"/>
        <resolution id="10000">Done</resolution>
        <assignee accountid="{acct}">Markus Vogel</assignee>
        <reporter accountid="{acct}">Markus Vogel</reporter>
        <labels>
            <label>acme</label>
            <label>sap</label>
        </labels>
        <created>Fri, 3 Apr 2026 09:00:00 +0000</created>
        <updated>Wed, 22 Apr 2026 13:00:00 +0000</updated>
        <resolved>Wed, 22 Apr 2026 13:00:00 +0000</resolved>
        <due></due>
        <votes>0</votes>
        <watches>1</watches>
        <comments>
            <comment id="21041" author="{acct}" created="Wed, 22 Apr 2026 13:00:00 +0000">{comment_body}</comment>
        </comments>
        <issuelinks>
            <issuelinktype id="10003">
                <name>Relates</name>
                <outwardlinks description="relates to">
                    <issuelink>
                        <issuekey id="10101">NW-101</issuekey>
                    </issuelink>
                </outwardlinks>
            </issuelinktype>
        </issuelinks>
        <attachments>
            <attachment id="30041" name="sap-date-samples.csv" size="2048" author="{acct}" created="Fri, 3 Apr 2026 09:05:00 +0000"/>
        </attachments>
    </item>
</channel>
</rss>
"""


def csv_export() -> str:
    header = ["Summary", "Issue key", "Issue id", "Issue Type", "Status", "Project key", "Project name", "Priority",
              "Resolution", "Assignee", "Assignee Id", "Reporter", "Reporter Id", "Creator", "Creator Id", "Created",
              "Updated", "Resolved", "Due Date", "Labels", "Labels", "Description", "Comment", "Comment",
              "Outward issue link (Blocks)", "Custom field (Story point estimate)"]
    rows = [
        ["Migration tool export throughput", "NW-108", "10108", "Story", "Done", "NW", "Northwind", "High", "Done",
         "Li Na", account("li"), "Wang Wei", account("wang"), "Wang Wei", account("wang"), "14/Apr/26 9:00 AM",
         "19/Jun/26 10:00 AM", "19/Jun/26 10:00 AM", "", "acme", "migration",
         "Raise the Oracle export throughput of the migration tool to 2 TB per day for ACME-12.",
         f"12/May/26 7:10 AM;{account('li')};Parallel export: 1.6 TB per day.",
         f"21/May/26 9:00 AM;{account('michael')};Jun and Omar join from today to help with the export.",
         "ACME-12", "8"],
        ["Row cut short by a broken export", "NW-109", "10109", "Task"],
    ]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8", newline="")


def main() -> None:
    for issue_json in cloud_issues():
        write(ROOT / "issues" / f"{issue_json['key']}.json", json.dumps(issue_json, indent=1, ensure_ascii=False) + "\n")
    broken = json.dumps(cloud_issues()[0], indent=1)[:700]
    write(ROOT / "issues" / "ACME-99-partial.json", broken)
    page = {"issues": [nw101(), {"id": "10199", "fields": {"summary": "issue without a key"}}], "isLast": True,
            "names": NAMES}
    write(ROOT / "search-NW-page-1.json", json.dumps(page, indent=1, ensure_ascii=False) + "\n")
    write(ROOT / "NW-104.xml", xml_export())
    write(ROOT / "NW-108.csv", csv_export())


if __name__ == "__main__":
    main()
