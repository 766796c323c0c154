"""English NER: batches bounded by characters give the same entities as one text at a time."""

from transforms import ner


def test_batches_are_bounded_by_characters_and_keep_order():
    # given many short texts and a few long ones
    texts = ["short"] * 70 + ["x" * (ner.BATCH_CHARS - 10), "y" * 30, "z" * (ner.BATCH_CHARS + 5), "w"]
    # when they are grouped for nlp.pipe
    groups = list(ner._char_bounded(texts))
    # then order and content are kept, no group exceeds the count bound, and only a single over-long text
    # exceeds the character bound (alone in its group)
    assert [t for g in groups for t in g] == texts
    assert all(len(g) <= ner.BATCH_SIZE for g in groups)
    assert all(sum(map(len, g)) <= ner.BATCH_CHARS or len(g) == 1 for g in groups)


def test_batch_and_single_calls_find_the_same_entities():
    texts = [
        "Dana Whitfield from Acme Corp confirmed the date on 3 June 2026.",
        "Tom Berger asked Globex about the renewal. " * 40,
        "",
        "Priya Nair met Initech on Friday.",
    ]
    assert ner.entities_batch(texts) == [ner.entities(t) for t in texts]
    people = {e.text for e in ner.entities(texts[0]) if e.label == "PERSON"}
    assert "Dana Whitfield" in people


def test_only_the_ner_component_runs():
    # given the loaded pipeline: en_core_web_sm's NER embeds with its own tok2vec, nothing else is needed
    # then the shared tok2vec (no listeners once tagger/parser are excluded) is not loaded either
    assert ner.load().pipe_names == ["ner"]


def test_length_sorted_batches_return_entities_in_input_order():
    # given texts whose lengths are far from sorted
    texts = ["Priya Nair met Initech on Friday. " * 30, "Dana Whitfield called.", "", "Tom Berger joined Globex."]
    # when they are batched (sorted by length inside)
    got = ner.entities_batch(texts)
    # then each text gets its own entities, in input order
    assert got == [ner.entities(t) for t in texts]
    assert {e.text for e in got[1]} == {"Dana Whitfield"}


def test_repeated_texts_are_read_once_and_known_results_are_reused(monkeypatch):
    # given texts with a repeat, and a mapping that already knows one text's entities
    texts = ["Dana Whitfield called.", "Tom Berger joined Globex.", "Dana Whitfield called."]
    expected = [ner.entities(t) for t in texts]
    known = {"Priya Nair met Initech.": [ner.Entity("PERSON", "Priya Nair", 0, 10)]}
    piped: list[str] = []
    nlp = ner.load()
    original = nlp.pipe

    def counting_pipe(group, **kwargs):
        piped.extend(group)
        return original(group, **kwargs)

    monkeypatch.setattr(nlp, "pipe", counting_pipe)
    # when they are read in one batch, with the known text among them
    got = ner.entities_batch([*texts, "Priya Nair met Initech."], known)
    # then each distinct unknown text went through NER once, the known one not at all, and results are per input
    assert sorted(piped) == ["Dana Whitfield called.", "Tom Berger joined Globex."]
    assert got == [*expected, [ner.Entity("PERSON", "Priya Nair", 0, 10)]]
    assert known["Tom Berger joined Globex."] == expected[1]
