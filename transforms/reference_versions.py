"""Versions and releases a text names ("Maven 3.5.2", "Titanium SDK 9.3.2.GA", "Android 11", "v2.3.1") -> canonical
ids `version:<product casefolded>/<version>` when the text ties the version to a product, else `version:<version>`.

Cheap on purpose (one regex pass, no NER). What a version is not, and how it is told apart:
* IP addresses (four numeric parts, each <= 255), dates written with dots (a part 1970-2099 beside parts <= 31),
  thousands-separated numbers (1.234.567), times ("1.19.24 PM"), amounts and percentages ($3.5, 2.5 %);
* section/step/figure numbers ("section 3.2", "Plant 8"): the word before is a counting noun (_COUNTING); a bare
  integer followed by one ("Richard 9 years") counts it;
* versions glued to code: a neighbour character of a path, coordinate, tag or identifier (`<version>3.5.2</version>`,
  `maven-plugin-3.5.2`, `org.foo:bar:1.0`, `/1.2.3/`) — code blocks, diffs and logs as a whole are masked upstream;
* bare two-part numbers ("3.5", "0.5 s") are versions only with a product, a "v" or the word "version"/"release"
  before them; a bare integer only right after a product ("Android 11", "Java 8").
A product is the run of up to three product-shaped words right before the version (a capital letter or digit-free
mixed case: "Titanium SDK", "iOS", "Node.js"), cut at function words and counting nouns ("on", "with", "Step").
"""

import re
from collections.abc import Iterator
from typing import NamedTuple

_SPACED = r"[ ](?:GA|CI|RC\d*|(?:beta|alpha)(?:[ ]?\d{1,2})?)"
# A release qualifier, glued ("3.5.1GA", "1.4-RC2") or after one space in capitals ("2.1.4 GA", "3.1 CI", "1.8.0.1 RC3").
_SUFFIX = (
    r"(?:(?:[.-]?(?:GA\d*|RC\d*|Final|FINAL|SNAPSHOT|M\d+|(?:alpha|beta|rc|preview)[.-]?\d*)|" + _SPACED + ")"
    r"(?![A-Za-z0-9]))?(?:_\d+)?"
)
# A build stamp after the version ("4.1.1.201507141126", "3.1.3.v20130917141554"), a wildcard part ("2.1.x").
_STAMP = r"(?:\.v?\d{8,14}|\.x|-\d{1,4}(?!\d|\.\d))?"  # also a build number: "5.0.2-19"
_DOTTED = re.compile(r"(?<![A-Za-z0-9_])([vV]?)(\d{1,4}(?:\.\d{1,4}){1,3})(?!\d)(" + _STAMP + ")(" + _SUFFIX + ")")
_INTEGER_SUFFIX = re.compile(_SPACED + r"(?![A-Za-z0-9])")  # "iOS 12 beta"
# Only right after a word and a space (a product must precede): most numbers fail here, before any Python work.
_INTEGER = re.compile(r"(?<=[A-Za-z+#] )([vV]?)([1-9]\d?)(?![\d.,:/%]\d|[\w%-])")
_CAMEL = re.compile(r"^[A-Z][a-z]+[A-Z]")  # WindowServer, DispatchQueue: code/process names, not products
# A product word: letters (at least one capital, or known mixed shapes like iOS/macOS), optional .js/+/#.
_PRODUCT_WORD = re.compile(r"^(?=[^\s]*[A-Z])[A-Za-z][A-Za-z+#]*(?:\.js)?$")
_WORD_BEFORE = re.compile(r"(\S+)[ \t]+$")
_WORD_AFTER = re.compile(r"[ \t]+([A-Za-z]+)")

# English words that may be capitalised before a number but never name a product (grammar, not corpus strings).
_FUNCTION_WORDS = frozenset(
    "a an the to from on in at of for with without by via and or but not than since after before until upon into "
    "onto over under using use used uses run running runs ran tested test tests testing try tried upgrade upgraded "
    "upgrading update updated updating install installed installing downgrade downgraded move moved moving bump "
    "bumped is are was were be been being has have had do does did will would should can could may might must "
    "this that these those it its our your their my his her we you they i he she also only just still even now "
    "latest current previous next new old last first older newer both either all any every each some no yes "
    "version versions release releases released build builds built edition rev revision branch tag "
    "see fixed fix fixes fixing works worked work breaks broke broken affects affected "
    "hi hello thanks regards note about around approximately approx over top only just need needs got get gets "
    "take takes took make makes made every per".split()
)
# Nouns that count things ("Step 3", "section 3.2", "Figure 2"): the number after them is no version.
_COUNTING = frozenset(
    "section sections sec chapter chapters ch § para paragraph paragraphs clause clauses article articles appendix "
    "annex figure figures fig table tables step steps page pages p pp item items point points part parts line lines "
    "rule rules phase phases sprint sprints round rounds level levels tier option options priority question "
    "questions answer comment comments case cases example examples issue issues bug bugs ticket tickets task tasks "
    "day days week weeks wk kw cw month months year years hour hours minute minutes second seconds room floor number no "
    "num nr id row rows column columns col test tests slide slides attempt attempts stage stages volume vol "
    "chapter episode season grade group groups team teams player players port ports q quarter "
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday "
    "mon tue tues wed weds thu thur thurs fri sat sun pr prs mr pull ref refs code codes error errors status "
    "plant plants unit units station stations site sites gate gates lot lots block blocks suite suites apt box "
    "bay bays pier piers dock docks berth berths "
    "route exit st ave rd hwy highway building buildings well wells set sets".split()
)
# What a bare integer counts when it follows ("Richard 9 years", "Le Rabelais 22 Ave.").
_COUNTED = frozenset(
    "year years month months week weeks day days hour hours minute minutes second seconds times people persons "
    "miles km percent ave avenue st street rd road".split()
)
_QUALIFIERS = frozenset({"alpha", "beta", "rc", "preview", "patch", "sp"})  # "build", "update": _FUNCTION_WORDS
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n[\s#*>|-]*)$")
_SMTP_REPLY = re.compile(r"[245]\d\d-?")
_VERSION_WORDS = frozenset({"version", "versions", "release", "releases", "ver", "rev", "revision", "build"})
_TIME_AFTER = re.compile(r"[ \t]*(?:[AaPp]\.?[Mm]\b|Uhr\b|h\b|s\b|ms\b|sec|min|%|x\b|GB|MB|KB|kB|px|pt|em\b)")
_CURRENCY_BEFORE = re.compile(r"[$€£¥]\s?$|\b(?:USD|EUR|GBP|CHF|JPY|CNY)\s?$")
_GLUED_BEFORE = frozenset("/\\:=<>@#$€£%+-_'\"")
_GLUED_AFTER = frozenset("/\\:=<>@%+_'\"")


class Version(NamedTuple):
    start: int  # the span covers the product too when there is one
    end: int
    version: str
    product: str | None

    @property
    def id(self) -> str:
        return (
            f"version:{' '.join(self.product.casefold().split())}/{self.version}"
            if self.product
            else f"version:{self.version}"
        )


def _date_like(parts: list[str]) -> bool:
    years = [i for i, p in enumerate(parts) if len(p) == 4 and 1970 <= int(p) <= 2099]
    small = [p for p in parts if len(p) <= 2 and 1 <= int(p) <= 31]
    return bool(years) and len(small) >= 1 and (years[0] in (0, len(parts) - 1))


def _ip_like(parts: list[str]) -> bool:
    return len(parts) == 4 and all(int(p) <= 255 for p in parts)


def _thousands(parts: list[str]) -> bool:
    """1.234.567 (a number) or 1800.981.5864 (a phone number)."""
    return len(parts) >= 3 and (all(len(p) == 3 for p in parts[1:]) or len(parts[-1]) == 4)


def _product(text: str, start: int) -> tuple[str | None, int]:
    """The product words right before `start` (and where they start), or (None, start)."""
    words: list[tuple[str, int]] = []
    pos = start
    while len(words) < 3:
        m = _WORD_BEFORE.search(text, max(0, pos - 60), pos)
        if m is None or m.end() != pos:
            break
        word = m.group(1)
        opened = word.lstrip("([{\"'“‘")
        if opened != word:  # "(Java 1.8.0_65": the bracket opens the product run
            if _PRODUCT_WORD.match(opened) and opened.casefold() not in _FUNCTION_WORDS | _COUNTING:
                words.append((opened, m.end(1) - len(opened)))
            break
        if word.casefold() in _FUNCTION_WORDS or word.casefold() in _COUNTING or not _PRODUCT_WORD.match(word):
            break
        words.append((word, m.start(1)))
        pos = m.start(1)
    while words and len(words[-1][0]) > 5 and words[-1][0].endswith("ing"):
        words.pop()  # "Building Foo 1.0": a verb opens the run, it is not part of the product
    if not words:
        return None, start
    words.reverse()
    return " ".join(w for w, _ in words), words[0][1]


def _word_before(text: str, start: int) -> str:
    m = _WORD_BEFORE.search(text, max(0, start - 40), start)
    return m.group(1).strip("([{,;:").casefold() if m and m.end() == start else ""


def _plain(text: str, start: int, end: int) -> bool:
    """Not glued to code, not an amount, time or percentage."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    if before in _GLUED_BEFORE or after in _GLUED_AFTER:
        return False
    if after == "." and end + 1 < len(text) and (text[end + 1].isalnum()):
        return False  # a file name or a longer dotted token
    if _CURRENCY_BEFORE.search(text, max(0, start - 5), start):
        return False
    return _TIME_AFTER.match(text, end) is None


def find_versions(text: str) -> Iterator[Version]:
    """Versions in `text`, in order, non-overlapping."""
    found = []
    for m in _DOTTED.finditer(text):
        parts = m.group(2).split(".")
        if (
            (_ip_like(parts) and not m.group(4))
            or _date_like(parts)
            or _thousands(parts)
            or not _plain(text, m.start(), m.end())
        ):
            continue
        before = _word_before(text, m.start())
        if before in _COUNTING or _SMTP_REPLY.fullmatch(before):
            continue  # "section 3.2", "550 5.1.1" (a mail server's reply code and enhanced status)
        product, start = _product(text, m.start())
        if len(parts) == 2 and not (m.group(1) or m.group(3) or m.group(4) or product or before in _VERSION_WORDS):
            continue
        found.append(Version(start, m.end(), m.group(2) + m.group(3) + m.group(4), product))
    for m in _INTEGER.finditer(text):
        if not _plain(text, m.start(), m.end()):
            continue
        product, start = _product(text, m.start())
        if product is None or (_SENTENCE_START.search(text, max(0, start - 4), start) and product.istitle()):
            continue  # "About 20 users": a capitalised common word, not a product
        if product.casefold() in _QUALIFIERS:
            continue  # "3.0.0 Beta 4", "iOS 6 Beta 4": the release's qualifier, not a product
        if any(_CAMEL.match(w) or (w.isupper() and len(w) > 4) for w in product.split()):
            continue  # "WindowServer 192", "STREAMON 0": process and register names in logs
        if (after := _WORD_AFTER.match(text, m.end())) and after.group(1).casefold() in _COUNTED:
            continue  # "known Richard 9 years": a count of what follows
        qualifier = _INTEGER_SUFFIX.match(text, m.end())
        end = qualifier.end() if qualifier else m.end()
        found.append(Version(start, end, text[m.start(2) : end], product))
    yield from sorted(found)
