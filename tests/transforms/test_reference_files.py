"""Issue 28, fifth round: a bare file name is an attachment only when the record carries it or the text attaches,
uploads or shows it (transforms/reference_files.py); fixture sentences of our own."""

import pytest

from ground.records import Attachment
from transforms.references import ReferenceConfig, extract_references

RULES = ReferenceConfig(ner=False)


def attachments(text: str, files: list[Attachment] | None = None) -> list[str]:
    refs = extract_references(text, attachments=files or [], config=RULES)
    return [r.id for r in refs if r.kind == "attachment" and r.start is not None]


@pytest.mark.parametrize(
    "text",
    [
        "The build stops with: open failed, no such file or directory: splash-hd.png",
        "Set it in the handler: view.backgroundImage = '/assets/img/banner.jpg';",
        "The release is staged: widget-kit-2.3-bin.zip and widget-kit-2.3-src.zip with their signatures.",
        "Rename readme.txt before you publish the package.",
        'Studio: the build fails with "No such file or directory: launcher-icon.png" after a clean.',
        'viewer.open({ url : "my holiday photo.png" }); // opens the file "my%20holiday%20photo.png"',
    ],
)
def test_given_a_bare_file_name_the_text_does_not_attach_when_extracted_then_no_attachment(text):
    # given: a file name in an error message, a path in code, an artefact list or an instruction; no file attached
    # when / then
    assert attachments(text) == []


@pytest.mark.parametrize(
    "text,name",
    [
        ("See the attached crash-dump.png for the stack.", "crash-dump.png"),
        ("I uploaded timeline.xlsx to the issue.", "timeline.xlsx"),
        ("Anbei die Rechnung rechnung-0815.pdf zur Prüfung.", "rechnung-0815.pdf"),
        ("In allegato il preventivo offerta-12.pdf come richiesto.", "offerta-12.pdf"),
        ("quarterly-plan.docx (attached) has the dates.", "quarterly-plan.docx"),
    ],
)
def test_given_a_bare_file_name_the_text_attaches_when_extracted_then_it_is_an_attachment(text, name):
    assert attachments(text) == [f"attachment:name:{name}"]


def test_given_the_record_carries_the_file_when_the_text_names_it_without_a_cue_then_it_is_an_attachment():
    # given: the record has splash-hd.png attached; the text only names it
    text = "The build stops with: no such file or directory: splash-hd.png"
    # then: it names the record's own file
    assert attachments(text, [Attachment(name="splash-hd.png")]) == ["attachment:name:splash-hd.png"]


def test_given_a_quoted_file_name_the_text_attaches_when_extracted_then_it_is_an_attachment():
    text = 'Screenshot attached as "Login page error.png" for reference.'
    assert attachments(text) == ["attachment:name:Login page error.png"]


def test_given_a_mime_part_header_in_the_text_when_extracted_then_its_file_is_an_attachment():
    # given: a forwarded message whose text shows a MIME part header declaring a file
    text = 'Please fill it in.\n\n--b1\nContent-Type: application/pdf;\n name="vendor-form-7.pdf"\n\nJVBERi0x'
    assert attachments(text) == ["attachment:name:vendor-form-7.pdf"]
    assert attachments('Content-Disposition: inline; filename="notes-q3.txt"') == ["attachment:name:notes-q3.txt"]
