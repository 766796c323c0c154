"""Zip archives read within limits, shared by the export readers: a zip of a few megabytes can expand to gigabytes
(a zip bomb), or list millions of members. Every archive is checked before a byte is decompressed:

  GRAPHFEED_ZIP_MAX_MEMBERS       members in the archive (default 100,000), read from the end record before the
                                  central directory is loaded
  GRAPHFEED_ZIP_MAX_MEMBER_BYTES  uncompressed size of one member that is read (default 2 GiB)
  GRAPHFEED_ZIP_MAX_TOTAL_BYTES   uncompressed size of all members that are read (default 20 GiB)
  GRAPHFEED_ZIP_MAX_RATIO         uncompressed / compressed size of one member (default 200; members under 1 MiB are
                                  not held to it: a small file of blanks compresses well and harms no one)

Declared sizes can be trusted for this: zipfile never returns more than a member's declared size and fails its CRC
check when the data does not match. A breach is a failure naming the archive (and member) and the limit; the members
within the limits are still read. Readers stream members or read one at a time, so memory stays flat in archive size.
"""

import os
import struct
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from pydantic import BaseModel, PositiveFloat, PositiveInt

from ground.records import ErrorClass, Origin, RecordFailure

GIB = 1 << 30
RATIO_FLOOR_BYTES = 1 << 20
ENV = {
    "max_members": "GRAPHFEED_ZIP_MAX_MEMBERS",
    "max_member_bytes": "GRAPHFEED_ZIP_MAX_MEMBER_BYTES",
    "max_total_bytes": "GRAPHFEED_ZIP_MAX_TOTAL_BYTES",
    "max_ratio": "GRAPHFEED_ZIP_MAX_RATIO",
}
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError)
_EOCD, _EOCD64_LOCATOR = b"PK\x05\x06", b"PK\x06\x07"


class ArchiveLimits(BaseModel):
    max_members: PositiveInt = 100_000
    max_member_bytes: PositiveInt = 2 * GIB
    max_total_bytes: PositiveInt = 20 * GIB
    max_ratio: PositiveFloat = 200.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "ArchiveLimits":
        """The limits the environment sets; an unusable value is a ValueError naming the variable."""
        env = os.environ if env is None else env
        values = {}
        for field, name in ENV.items():
            raw = (env.get(name) or "").strip().replace("_", "")
            if not raw:
                continue
            try:
                number = float(raw) if field == "max_ratio" else int(raw)
            except ValueError:
                raise ValueError(f"{name}={raw!r} is not a number") from None
            if number <= 0:
                raise ValueError(f"{name}={raw!r} must be above 0")
            values[field] = number
        return cls(**values)

    def member_breach(self, info: zipfile.ZipInfo) -> str | None:
        size = info.file_size
        if size > self.max_member_bytes:
            return (
                f"member expands to {size:,} bytes, over the limit of {self.max_member_bytes:,} "
                f"({ENV['max_member_bytes']})"
            )
        ratio = size / max(info.compress_size, 1)
        if size >= RATIO_FLOOR_BYTES and ratio > self.max_ratio:
            return (
                f"member expands {ratio:,.0f} times ({info.compress_size:,} -> {size:,} bytes), over the "
                f"compression-ratio limit of {self.max_ratio:g} ({ENV['max_ratio']}): a zip bomb?"
            )
        return None


def _declared_members(path: Path) -> int | None:
    """Member count from the end-of-central-directory record (zip64 too), or None when it cannot be found."""
    with open(path, "rb") as stream:
        stream.seek(0, os.SEEK_END)
        size = stream.tell()
        tail_start = max(0, size - (22 + 65535))
        stream.seek(tail_start)
        tail = stream.read()
        at = tail.rfind(_EOCD)
        if at < 0 or len(tail) < at + 22:
            return None
        count = struct.unpack("<H", tail[at + 10 : at + 12])[0]
        locator = at - 20
        if count == 0xFFFF and locator >= 0 and tail[locator : locator + 4] == _EOCD64_LOCATOR:
            record_at = struct.unpack("<Q", tail[locator + 8 : locator + 16])[0]
            stream.seek(record_at)
            record = stream.read(56)
            if record[:4] == b"PK\x06\x06" and len(record) >= 40:
                count = struct.unpack("<Q", record[32:40])[0]
        return count


def open_zip(path: Path, source: str, limits: ArchiveLimits) -> zipfile.ZipFile | RecordFailure:
    """The opened archive, or a failure when it is unreadable or lists more members than the limit allows."""
    origin = Origin(file=str(path))
    too_many = (
        f"zip archive {path.name} lists {{count:,}} members, over the limit of {limits.max_members:,} "
        f"({ENV['max_members']}); nothing in it was read"
    )
    try:
        declared = _declared_members(path)
        if declared is not None and declared > limits.max_members:
            return RecordFailure.at(source, origin, ErrorClass.too_large, too_many.format(count=declared))
        archive = zipfile.ZipFile(path)
    except ZIP_ERRORS as exc:
        return RecordFailure.at(source, origin, ErrorClass.parse_error, f"not a readable zip archive: {exc}")
    count = len(archive.infolist())
    if count > limits.max_members:
        archive.close()
        return RecordFailure.at(source, origin, ErrorClass.too_large, too_many.format(count=count))
    return archive


def checked_members(
    path: Path, infos: Iterable[zipfile.ZipInfo], source: str, limits: ArchiveLimits
) -> Iterator[zipfile.ZipInfo | RecordFailure]:
    """The members to read, in the given order, each within the member limits (else a failure naming it); when
    together they expand past the total limit, one failure for the archive and none of them."""
    checked = [(info, limits.member_breach(info)) for info in infos]
    fine = [info for info, reason in checked if reason is None]
    total = sum(info.file_size for info in fine)
    if total > limits.max_total_bytes:
        yield RecordFailure.at(
            source,
            Origin(file=str(path)),
            ErrorClass.too_large,
            f"zip archive {path.name}: its {len(fine):,} members to read expand to {total:,} bytes, over "
            f"the total limit of {limits.max_total_bytes:,} ({ENV['max_total_bytes']}); nothing in it "
            "was read",
        )
        return
    for info, reason in checked:
        if reason is None:
            yield info
        else:
            yield RecordFailure.at(
                source,
                Origin(file=str(path), member=info.filename),
                ErrorClass.too_large,
                f"zip archive {path.name}: {reason}",
            )


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """One member whole (for formats that need all their bytes): checked_members has bounded its size."""
    with archive.open(info) as stream:
        return stream.read(info.file_size + 1)
