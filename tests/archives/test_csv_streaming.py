"""Given Jira and Salesforce CSV exports of 4 MB and 48 MB (generated here), when each is read in a child process,
then the peak RSS of the larger is within a few MB of the smaller's: rows are streamed, never the file held whole
(before, the whole file was held as bytes, as text and as a StringIO: +100 MB and more for the larger)."""

import csv
from pathlib import Path

import pytest

from tests.archives.test_zip_limits import read_in_child

ROW_BYTES = 4096
GROWTH_BOUND_MB = 12


def _jira(path: Path, rows: int) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(
            ["Summary", "Issue key", "Issue id", "Issue Type", "Status", "Created", "Updated", "Description"]
        )
        for i in range(rows):
            writer.writerow(
                [
                    f"Issue {i}",
                    f"NW-{i + 1}",
                    str(10000 + i),
                    "Task",
                    "Done",
                    "02/Mar/26 9:00 AM",
                    "03/Mar/26 9:00 AM",
                    f"row {i} " + "ünïcode text " * (ROW_BYTES // 14),
                ]
            )
    return path


def _salesforce(path: Path, rows: int) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, quoting=csv.QUOTE_ALL)
        writer.writerow(["Id", "Name", "Description", "StageName", "CreatedDate", "SystemModstamp"])
        for i in range(rows):
            writer.writerow(
                [
                    f"0068d{i:010d}AAF",
                    f"Deal {i}",
                    f"row {i} " + "ünïcode text " * (ROW_BYTES // 14),
                    "Prospecting",
                    "2026-03-02T16:00:00.000Z",
                    "2026-05-07T15:00:00.000Z",
                ]
            )
    return path


@pytest.mark.parametrize(
    "source, write, name", [("jira", _jira, "issues.csv"), ("salesforce", _salesforce, "Opportunity.csv")]
)
def test_given_a_12_times_larger_csv_export_when_read_then_peak_memory_stays_flat(tmp_path, source, write, name):
    (tmp_path / "small").mkdir()
    (tmp_path / "large").mkdir()
    small = write(tmp_path / "small" / name, 1_000)
    large = write(tmp_path / "large" / name, 12_000)
    assert large.stat().st_size > 45_000_000

    few, many = read_in_child(source, small), read_in_child(source, large)

    assert len(few["records"]) == 1_000 and len(many["records"]) == 12_000
    assert few["failures"] == many["failures"] == []
    assert many["maxrss_mb"] - few["maxrss_mb"] < GROWTH_BOUND_MB, (few["maxrss_mb"], many["maxrss_mb"])
