"""When a bare file name in prose is an attachment: only when the text says it attaches, shares or shows the file.

A name such as `crash.png` or `quote.xlsx` written without markup (`[^x]`, `!x!`, `[attachment: x]`, quotes) is an
attachment reference when the record carries a file of that name (references.py matches those first) or when a cue
in the same line attaches it ("see attached crash.png", "Anbei quote.xlsx", "in allegato", "附件"). Without a cue
the name is a file the text talks about, not one it hands over: an error message ("no such file or directory:
logo.png"), a resource in code the mask missed (`win.backgroundImage = '/images/home.jpg'`), a release artefact
listed in an announcement (`project-1.4-bin.zip`), a file a user opens by name (docs/references.md: attachments are
files the text names as attached, uploaded or shared). Those spans stay claimed (NER never reads them), with no id.
"""

import re

# Cue words, any case, in the languages of the corpus; each either attaches/shares a file or points the reader at
# one ("see x.png", "siehe x.pdf"). Glued CJK cues ("请查看附件报价单.pdf") need no word boundary.
_CUE_WORDS = (
    r"attach(?:ed|es|ing|ment|ments)?|enclos(?:ed|ing|ure)|upload(?:ed|ing|s)?|shared?|sending|sent|here(?:'s|\s+is)|"
    r"see|find|screen\s?shots?|anbei|anhang|angeh[äa]ngt|beigef[üu]gt|hochgeladen|siehe|ci-joint|jointe?s?|"
    r"pi[èe]ce\s+jointe|voir|allegat[oia]|allego|vedi|adjunt[oa]s?|adjunto|v[ée]ase"
)
_CUE_BEFORE = re.compile(rf"(?i)(?<![A-Za-z])(?:{_CUE_WORDS})(?![A-Za-z])|附件|附上|查看|参见|详见|첨부|添付")
_CUE_AFTER = re.compile(rf"(?i)^[ \t]*[(\[]?[ \t]*(?:is[ \t]+|are[ \t]+)?(?:{_CUE_WORDS})(?![A-Za-z])")
_MIME_PARAMETER = re.compile(r"(?i)(?<![A-Za-z])(?:file)?name\*?[ \t]*=[ \t]*$")
_BEFORE_CHARS = 80  # a cue counts within this many characters before the name, on the same line
_AFTER_CHARS = 30


def attached_in_text(text: str, start: int, end: int) -> bool:
    """Whether the line around the bare file name at [start, end) attaches or shows it (see the module doc)."""
    if start and text[start - 1] in "/\\":
        return False  # the last part of a path ("/images/home.jpg"): a resource, not a file handed over
    line_start = max(text.rfind("\n", 0, start) + 1, start - _BEFORE_CHARS)
    if _MIME_PARAMETER.search(text[line_start:start]):
        return True  # a MIME part's header declares the file: `Content-Type: ...; name="x.xlsx"`, `filename=x.pdf`
    if _CUE_BEFORE.search(text, line_start, start):
        return True
    line_end = text.find("\n", end)
    after = text[end : min(end + _AFTER_CHARS, line_end if line_end >= 0 else len(text))]
    return _CUE_AFTER.match(after) is not None


# Chinese words that glue onto a bare file name ("请查看附件Q3报价单.pdf", "和合同草案.docx"). Stripped from the front,
# longest first. Single characters that also start common nouns (发票, 附录, 见面) are left out on purpose.
_CJK_CONNECTORS = sorted(
    [
        "请",
        "请查看",
        "查看",
        "查阅",
        "参见",
        "参阅",
        "参考",
        "详见",
        "附件",
        "附上",
        "附带",
        "已附",
        "已",
        "上传",
        "上传了",
        "发送",
        "发送了",
        "和",
        "及",
        "以及",
        "与",
        "或",
        "或者",
        "把",
        "将",
        "在",
        "的",
        "是",
        "为",
        "即",
        "文件",
        "下载",
        "打开",
        "见附件",
        "收到",
        "修改",
        "更新",
        "更新了",
        "最新",
    ],
    key=len,
    reverse=True,
)
_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")


_CONNECTOR = re.compile("|".join(map(re.escape, _CJK_CONNECTORS)))  # longest first: alternation order


def strip_connectors(name: str) -> tuple[str, int]:
    """(name without leading Chinese connector words, number of chars removed)."""
    removed = 0
    while _CJK_CHAR.match(name):
        match = _CONNECTOR.match(name)
        if match is None:
            break
        rest = name[match.end() :]
        if len(rest.rsplit(".", 1)[0]) < 2:  # "附件1.pdf" stays whole
            break
        name = rest
        removed += match.end()
    return name, removed
