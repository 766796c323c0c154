"""Write the bundled Salesforce sample: two weekly Data Export zips of the Northwind/Acme org (standard library only).

Run from the repo root: ``python sample/make_salesforce_sample.py``. Deterministic: same bytes on every run.

The story (docs/sample-company.md): Acme's account, its contacts, the opportunity 0068d00000NwAcmAAF with its stage and
amount history, call notes, one logged email (the same mail as in the email export) and the contact-role change:
in the export of 2026-05-30 Dana Whitfield is the primary contact role; in the export of 2026-06-27 Priya Raman is
(changed 2026-06-08 14:10 UTC) and Dana's role is no longer primary. Two broken rows show failures: a Contact whose
SystemModstamp is 2026-06-31 (no such day) and an OpportunityContactRole row without an Id.
"""

import csv
import email
import io
import zipfile
from email import policy
from email.utils import getaddresses, parsedate_to_datetime
from pathlib import Path
import datetime as dt

ROOT = Path(__file__).resolve().parent
OUT = ROOT / "exports" / "salesforce"
MAIL = ROOT / "exports" / "email" / "archive-2026-q2" / "20260603-change-of-contact.eml"
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
ZIP_TIME = (2026, 6, 27, 3, 0, 0)


def id18(id15: str) -> str:
    assert len(id15) == 15, id15
    return id15 + "".join(ALPHABET[sum(1 << j for j, c in enumerate(id15[i * 5:(i + 1) * 5]) if "A" <= c <= "Z")]
                          for i in range(3))


ORG = id18("00D8d00000NwAna")
SARAH, MICHAEL, TOM = id18("0058d00000SaOkf"), id18("0058d00000MiChn"), id18("0058d00000ToBrn")
ACME = "0018d00000AcmeCAAR"
OPP = "0068d00000NwAcmAAF"
DANA, PRIYA, OLIVIA = "0038d00000DwHtFAAV", "0038d00000PrRmNAAV", "0038d00000OgGrTAAV"
ROLE_DANA, ROLE_PRIYA, ROLE_OLIVIA = id18("00K8d00000RlDwh"), id18("00K8d00000RlPrr"), id18("00K8d00000RlOgg")
TASK_BUDGET, TASK_INTRO = id18("00T8d00000CaBud"), id18("00T8d00000CaPri")
MAIL_ID = id18("02s8d00000EmChg")
BROKEN_CONTACT = id18("0038d00000XyBrk")

USER_COLS = ["Id", "Username", "FirstName", "LastName", "Name", "Email", "Title", "IsActive", "CreatedDate",
             "LastModifiedDate", "SystemModstamp"]
ACCOUNT_COLS = ["Id", "IsDeleted", "Name", "Type", "Industry", "Website", "Phone", "BillingCity", "BillingState",
                "BillingCountry", "Description", "OwnerId", "CreatedDate", "CreatedById", "LastModifiedDate",
                "LastModifiedById", "SystemModstamp"]
CONTACT_COLS = ["Id", "IsDeleted", "AccountId", "FirstName", "LastName", "Name", "Title", "Department", "Email",
                "Phone", "MailingCity", "OwnerId", "CreatedDate", "CreatedById", "LastModifiedDate",
                "LastModifiedById", "SystemModstamp"]
OPP_COLS = ["Id", "IsDeleted", "AccountId", "Name", "Description", "StageName", "Amount", "CurrencyIsoCode",
            "Probability", "CloseDate", "Type", "NextStep", "ForecastCategoryName", "IsClosed", "IsWon", "OwnerId",
            "CreatedDate", "CreatedById", "LastModifiedDate", "LastModifiedById", "SystemModstamp"]
HIST_COLS = ["Id", "OpportunityId", "StageName", "Amount", "ExpectedRevenue", "CloseDate", "Probability",
             "ForecastCategory", "CreatedById", "CreatedDate", "IsDeleted", "SystemModstamp"]
FIELD_HIST_COLS = ["Id", "IsDeleted", "OpportunityId", "CreatedById", "CreatedDate", "Field", "DataType", "OldValue",
                   "NewValue"]
ROLE_COLS = ["Id", "OpportunityId", "ContactId", "Role", "IsPrimary", "CreatedDate", "CreatedById",
             "LastModifiedDate", "LastModifiedById", "SystemModstamp", "IsDeleted"]
TASK_COLS = ["Id", "WhoId", "WhatId", "Subject", "ActivityDate", "Status", "Priority", "OwnerId", "Description",
             "IsDeleted", "AccountId", "TaskSubtype", "CallType", "CallDurationInSeconds", "CreatedDate",
             "CreatedById", "LastModifiedDate", "LastModifiedById", "SystemModstamp"]
MAIL_COLS = ["Id", "ParentId", "RelatedToId", "ActivityId", "TextBody", "HtmlBody", "Headers", "Subject", "FromName",
             "FromAddress", "ToAddress", "CcAddress", "BccAddress", "Incoming", "Status", "MessageDate",
             "MessageIdentifier", "ThreadIdentifier", "IsDeleted", "CreatedDate", "CreatedById", "LastModifiedDate",
             "LastModifiedById", "SystemModstamp"]


def ts(text: str) -> str:
    """'2026-03-02 16:00' -> the Data Export's '2026-03-02T16:00:00.000Z'."""
    return text.replace(" ", "T") + ":00.000Z"


def users() -> list[dict]:
    rows = []
    for uid, first, last, title in ((SARAH, "Sarah", "Okafor", "Account Executive"),
                                    (MICHAEL, "Michael", "Chen", "Solutions Architect"),
                                    (TOM, "Tom", "Brennan", "VP Sales")):
        address = f"{first.lower()}.{last.lower()}@northwind.example"
        rows.append({"Id": uid, "Username": address, "FirstName": first, "LastName": last, "Name": f"{first} {last}",
                     "Email": address, "Title": title, "IsActive": "true", "CreatedDate": ts("2026-03-02 13:00"),
                     "LastModifiedDate": ts("2026-03-02 13:00"), "SystemModstamp": ts("2026-03-02 13:00")})
    return rows


def account(modified: str) -> list[dict]:
    return [{"Id": ACME, "IsDeleted": "false", "Name": "Acme Corp", "Type": "Customer - Direct",
             "Industry": "Manufacturing", "Website": "https://www.acme.example", "Phone": "+1 312 555 0100",
             "BillingCity": "Chicago", "BillingState": "IL", "BillingCountry": "United States",
             "Description": "Data platform customer; migration from a 14 TB Oracle warehouse.", "OwnerId": SARAH,
             "CreatedDate": ts("2026-03-02 14:30"), "CreatedById": SARAH, "LastModifiedDate": ts(modified),
             "LastModifiedById": SARAH, "SystemModstamp": ts(modified)}]


def contacts(later: bool) -> list[dict]:
    def contact(cid, first, last, title, created, modified=None):
        modified = modified or created
        return {"Id": cid, "IsDeleted": "false", "AccountId": ACME, "FirstName": first, "LastName": last,
                "Name": f"{first} {last}", "Title": title, "Department": "", "Email":
                f"{first.lower()}.{last.lower()}@acme.example", "Phone": "", "MailingCity": "Chicago",
                "OwnerId": SARAH, "CreatedDate": ts(created), "CreatedById": SARAH, "LastModifiedDate": ts(modified),
                "LastModifiedById": SARAH, "SystemModstamp": ts(modified)}
    rows = [contact(DANA, "Dana", "Whitfield", "Director of IT Operations", "2026-03-02 14:35"),
            contact(PRIYA, "Priya", "Raman", "Head of Data Platforms", "2026-03-24 15:00"),
            contact(OLIVIA, "Olivia", "Grant", "Procurement Manager", "2026-05-08 16:00")]
    if later:
        broken = contact(BROKEN_CONTACT, "Kevin", "Doyle", "IT Security Lead", "2026-06-15 15:00")
        broken["SystemModstamp"] = "2026-06-31T15:00:00.000Z"          # no such day: a failure, not a crash
        broken["LastModifiedDate"] = broken["SystemModstamp"]
        rows.append(broken)
    return rows


# (time, stage, amount, close date, probability, forecast)
STAGES = [("2026-03-02 16:00", "Qualification", "", "2026-06-30", "10", "Pipeline"),
          ("2026-03-04 17:30", "Proposal/Price Quote", "118500", "2026-06-30", "75", "Pipeline"),
          ("2026-03-16 20:45", "Negotiation/Review", "118500", "2026-06-30", "90", "Commit"),
          ("2026-05-07 15:00", "Negotiation/Review", "94800", "2026-06-30", "90", "Commit"),
          ("2026-06-24 19:00", "Closed Won", "94800", "2026-06-24", "100", "Closed")]


def opportunity(upto: str) -> tuple[list[dict], list[dict], list[dict]]:
    steps = [s for s in STAGES if s[0] <= upto]
    when, stage, amount, close, probability, forecast = steps[-1]
    closed = stage.startswith("Closed")
    opp = [{"Id": OPP, "IsDeleted": "false", "AccountId": ACME, "Name": "Acme Corp - Data Platform 2026",
            "Description": "Northwind data platform for Acme: subscription and implementation, phase 1.",
            "StageName": stage, "Amount": amount, "CurrencyIsoCode": "USD", "Probability": probability,
            "CloseDate": close, "Type": "New Business", "NextStep": "" if closed else "Contract for signature",
            "ForecastCategoryName": forecast, "IsClosed": str(closed).lower(), "IsWon": str(closed).lower(),
            "OwnerId": SARAH, "CreatedDate": ts(STAGES[0][0]), "CreatedById": SARAH, "LastModifiedDate": ts(when),
            "LastModifiedById": SARAH, "SystemModstamp": ts(when)}]
    history = [{"Id": id18(f"0088d00000OhAc{i}"), "OpportunityId": OPP, "StageName": s, "Amount": a,
                "ExpectedRevenue": str(int(a) * int(p) // 100) if a else "", "CloseDate": c, "Probability": p,
                "ForecastCategory": f, "CreatedById": SARAH, "CreatedDate": ts(t), "IsDeleted": "false",
                "SystemModstamp": ts(t)} for i, (t, s, a, c, p, f) in enumerate(steps, 1)]
    fields = [{"Id": id18("0178d00000FhAm1"), "IsDeleted": "false", "OpportunityId": OPP, "CreatedById": SARAH,
               "CreatedDate": ts("2026-05-07 15:00"), "Field": "Amount", "DataType": "Currency",
               "OldValue": "118500", "NewValue": "94800"}] if upto >= "2026-05-07" else []
    return opp, history, fields


def roles(later: bool) -> list[dict]:
    def role(rid, contact, name, primary, created, modified):
        return {"Id": rid, "OpportunityId": OPP, "ContactId": contact, "Role": name, "IsPrimary": primary,
                "CreatedDate": ts(created), "CreatedById": SARAH, "LastModifiedDate": ts(modified),
                "LastModifiedById": SARAH, "SystemModstamp": ts(modified), "IsDeleted": "false"}
    change = "2026-06-08 14:10"
    rows = [role(ROLE_DANA, DANA, "Decision Maker", "false" if later else "true", "2026-03-02 16:05",
                 change if later else "2026-03-02 16:05"),
            role(ROLE_PRIYA, PRIYA, "Business User" if later else "Technical Buyer", "true" if later else "false",
                 "2026-03-24 15:05", change if later else "2026-03-24 15:05"),
            role(ROLE_OLIVIA, OLIVIA, "Economic Buyer", "false", "2026-05-08 16:05", "2026-05-08 16:05")]
    if later:
        missing = role("", OLIVIA, "Evaluator", "false", "2026-06-12 15:00", "2026-06-12 15:00")
        rows.append(missing)                                        # no Id: a failure, not a crash
    return rows


def tasks(later: bool) -> list[dict]:
    def task(tid, who, subject, day, created, description):
        return {"Id": tid, "WhoId": who, "WhatId": OPP, "Subject": subject, "ActivityDate": day, "Status": "Completed",
                "Priority": "Normal", "OwnerId": SARAH, "Description": description, "IsDeleted": "false",
                "AccountId": ACME, "TaskSubtype": "Call", "CallType": "Outbound", "CallDurationInSeconds": "900",
                "CreatedDate": ts(created), "CreatedById": SARAH, "LastModifiedDate": ts(created),
                "LastModifiedById": SARAH, "SystemModstamp": ts(created)}
    rows = [task(TASK_BUDGET, DANA, "Call: budget for phase 1", "2026-03-16", "2026-03-16 21:00",
                 "Dana confirmed that Mark Sullivan approved a budget of USD 120,000 for phase 1. "
                 "Moving the opportunity to Negotiation/Review; terms to follow.")]
    if later:
        rows.append(task(TASK_INTRO, PRIYA, "Call: introduction with Priya Raman", "2026-06-08", "2026-06-08 15:30",
                         "Priya Raman takes over from Dana Whitfield as Acme's contact as of 8 June 2026. "
                         "Agreed a weekly check-in until go-live."))
    return rows


def logged_mail() -> list[dict]:
    """The change-of-contact mail as Einstein Activity Capture would log it: same sender, subject and text."""
    msg = email.message_from_bytes(MAIL.read_bytes(), policy=policy.default)
    body = msg.get_body(preferencelist=("plain",)).get_content()
    sent = parsedate_to_datetime(msg["Date"]).astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M")
    sender = getaddresses([msg["From"]])[0]
    join = lambda header: "; ".join(a for _, a in getaddresses([msg.get(header, "")]) if a)   # noqa: E731
    logged = "2026-06-03 15:02"
    return [{"Id": MAIL_ID, "ParentId": "", "RelatedToId": OPP, "ActivityId": "", "TextBody": body, "HtmlBody": "",
             "Headers": "", "Subject": str(msg["Subject"]), "FromName": sender[0], "FromAddress": sender[1],
             "ToAddress": join("To"), "CcAddress": join("Cc"), "BccAddress": "", "Incoming": "true", "Status": "1",
             "MessageDate": ts(sent), "MessageIdentifier": str(msg["Message-ID"]), "ThreadIdentifier": "",
             "IsDeleted": "false", "CreatedDate": ts(logged), "CreatedById": SARAH, "LastModifiedDate": ts(logged),
             "LastModifiedById": SARAH, "SystemModstamp": ts(logged)}]


def to_csv(columns: list[str], rows: list[dict]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([row.get(c, "") for c in columns])
    return buffer.getvalue().encode("utf-8")


def export(day: str, later: bool) -> dict[str, bytes]:
    upto = "2026-06-27" if later else day
    opp, history, fields = opportunity(upto)
    return {
        "User.csv": to_csv(USER_COLS, users()),
        "Account.csv": to_csv(ACCOUNT_COLS, account("2026-06-08 14:12" if later else "2026-03-02 14:30")),
        "Contact.csv": to_csv(CONTACT_COLS, contacts(later)),
        "Opportunity.csv": to_csv(OPP_COLS, opp),
        "OpportunityHistory.csv": to_csv(HIST_COLS, history),
        "OpportunityFieldHistory.csv": to_csv(FIELD_HIST_COLS, fields),
        "OpportunityContactRole.csv": to_csv(ROLE_COLS, roles(later)),
        "Task.csv": to_csv(TASK_COLS, tasks(later)),
        "EmailMessage.csv": to_csv(MAIL_COLS, logged_mail() if later else []),
    }


def write_zip(path: Path, members: dict[str, bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, members[name], compresslevel=9)


def main() -> None:
    write_zip(OUT / "2026-05-30" / f"WE_{ORG}_1.ZIP", export("2026-05-30", later=False))
    write_zip(OUT / "2026-06-27" / f"WE_{ORG}_1.ZIP", export("2026-06-27", later=True))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
