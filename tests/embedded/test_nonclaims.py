"""Pieces of an answer that are no claim: set aside with their reason, in English, Russian and Chinese, and never
more than that (a courtesy word inside a claim, a hedge that changes the meaning, a refusal)."""

from __future__ import annotations

import pytest

from ragmetrics_core.judges.embedded.answer_rules.nonclaims import Skipped, set_aside
from ragmetrics_core.judges.embedded.answers import read_answer
from ragmetrics_core.judges.embedded.questions import is_noncommittal


@pytest.mark.parametrize(
    ("sentence", "lang", "kept", "reasons"),
    [
        ("Great question!", "en", "", ["praise of the question"]),
        ("I hope this helps, let me know if you need anything else.", "en", "", ["wish"]),
        ("Let me know if anything is not clear!", "en", "", ["offer of help"]),
        ("According to the provided documents, Jørn Utzon designed it.", "en", "Jørn Utzon designed it.",
         ["remark about the sources"]),
        ("Sure, I think that Paris is the capital.", "en", "Paris is the capital.", ["acknowledgement", "hedge"]),
        ("Hope this helps, but note that the museum is closed on Mondays.", "en",
         "The museum is closed on Mondays.", ["wish", "remark about the sources"]),
        ("Here's what I found: the Louvre is in Paris.", "en", "The Louvre is in Paris.",
         ["remark about the answer"]),
        ("Согласно предоставленным документам, роман написал Толстой.", "ru", "Роман написал Толстой.",
         ["remark about the sources"]),
        ("Надеюсь, это поможет!", "ru", "", ["wish"]),
        ("Всего доброго!", "ru", "", ["sign-off"]),
        ("根据提供的资料,埃菲尔铁塔高330米。", "zh", "埃菲尔铁塔高330米。", ["remark about the sources"]),
        ("谢谢你的提问。", "zh", "", ["thanks"]),
        ("我认为故宫有9999间房屋。", "zh", "故宫有9999间房屋。", ["hedge"]),
        ("希望这对你有帮助!", "zh", "", ["wish"]),
    ],
)
def test_courtesy_and_remarks_are_set_aside_with_their_reason(
    sentence: str, lang: str, kept: str, reasons: list[str]
) -> None:
    rest, aside = set_aside(sentence, lang)
    assert rest == kept
    assert [piece.reason for piece in aside] == reasons
    assert all(piece.text and piece.text in sentence for piece in aside)


@pytest.mark.parametrize(
    ("sentence", "lang"),
    [
        ("Thanks to its port, Rotterdam became a major trading city.", "en"),  # "thanks" without punctuation
        ("History shows that Rome was founded in 753 BC.", "en"),  # "hi" inside a word
        ("Surely the bridge opened in 1932.", "en"),  # "sure" inside a word
        ("I doubt that Dostoevsky wrote it.", "en"),  # a hedge that changes the meaning is no lead-in
        ("It is a myth that the wall is visible from space.", "en"),
        ("Not sure who designed it.", "en"),  # a refusal is not courtesy: it is read (and declines) elsewhere
        ("Конечно же Москва больше Казани.", "ru"),  # no punctuation after "конечно"
        ("", "en"),
        ("İstanbul straddles two continents.", "en"),  # lower() changes the length: read as written
    ],
)
def test_claims_that_only_look_like_courtesy_are_kept_whole(sentence: str, lang: str) -> None:
    assert set_aside(sentence, lang) == (sentence, ())


def test_a_closer_with_not_is_not_a_refusal() -> None:
    answer = "Jørn Utzon designed the Sydney Opera House. Not sure if that helps!"
    assert not is_noncommittal(answer)
    assert is_noncommittal("I'm not sure who designed it.")
    read = read_answer("Who designed the Sydney Opera House?", answer)
    assert read.text == "Jørn Utzon designed the Sydney Opera House."
    assert read.skipped == (Skipped("Not sure if that helps!", "wish"),)


def test_a_hedged_answer_commits_to_its_claim() -> None:
    answer = "I'm not sure, but I think it was completed in 1889."
    assert not is_noncommittal(answer)
    assert read_answer("When was the Eiffel Tower completed?", answer).text == "The Eiffel Tower was completed in 1889."


def test_an_answer_of_courtesy_only_states_nothing_and_declines_nothing() -> None:
    read = read_answer("Who designed it?", "Great question! Hope this helps.")
    assert read.text == "" and not read.declined
    assert [piece.reason for piece in read.skipped] == ["praise of the question", "wish"]
