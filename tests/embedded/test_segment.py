"""Sentence splitting in English, Russian and Chinese."""

from __future__ import annotations

import pytest

from ragmetrics_core.judges.embedded.segment import MAX_SENTENCES, language, sentences


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Dr. Smith paid $3.14 for the U.S. edition, e.g. the blue one. Then he left.",
            ["Dr. Smith paid $3.14 for the U.S. edition, e.g. the blue one.", "Then he left."],
        ),
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ("Wait... and then it rained! Did it? Yes.", ["Wait... and then it rained!", "Did it?", "Yes."]),
        ("J. K. Rowling wrote it. It sold well.", ["J. K. Rowling wrote it.", "It sold well."]),
        ("i believe it was. the tradition is old", ["i believe it was.", "the tradition is old"]),
        ("They sell pens, paper, etc. The shop opens at 9.", ["They sell pens, paper, etc.", "The shop opens at 9."]),
        ('Annie Zaleski of "The A.V. Club" praised it. J.R.R. Tolkien agreed. So did we.',
         ['Annie Zaleski of "The A.V. Club" praised it.', "J.R.R. Tolkien agreed.", "So did we."]),
        ("The panel dates from c. 1491. It is fine.", ["The panel dates from c. 1491.", "It is fine."]),
        # Highlights joined without their periods: a closed quotation before a capitalised word ends a sentence.
        ("Parents called the changes 'unreasonable' One parent quit his job.",
         ["Parents called the changes 'unreasonable'", "One parent quit his job."]),
        ('Video "shows two men on a beach" Police say hundreds walked past.',
         ['Video "shows two men on a beach"', "Police say hundreds walked past."]),
        # Not before a lower-case word, not a quotation ending in a comma, not an apostrophe.
        ('He read "War and Peace" twice. "It is long," Anna said. The players\' Union agreed.',
         ['He read "War and Peace" twice.', '"It is long," Anna said.', "The players' Union agreed."]),
    ],
    ids=["abbreviations-decimals", "quotes", "ellipsis-question", "initials", "lower-case-chat", "etc",
         "runs-of-initials", "circa", "quotation-then-capital", "double-quotation-then-capital",
         "quotations-inside-sentences"],
)
def test_english(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


def test_russian_abbreviations_decimals_and_quotes() -> None:
    text = "Это было в 1889 г. в Париже, т.е. давно. Число 1,5 мало. «Что делать?» — спросил он. Новая фраза."
    assert sentences(text) == [
        "Это было в 1889 г. в Париже, т.е. давно.",
        "Число 1,5 мало.",
        "«Что делать?» — спросил он.",
        "Новая фраза.",
    ]


def test_russian_initials_and_final_abbreviation() -> None:
    assert sentences("Дж. Р. Р. Толкин написал книгу и т.д. Это факт.") == [
        "Дж. Р. Р. Толкин написал книгу и т.д.",
        "Это факт.",
    ]


def test_chinese_terminators_and_quotes() -> None:
    text = "印度人寿保险公司成立于1956年。它很大！真的吗？是的；当然。“你好。”"
    expected = ["印度人寿保险公司成立于1956年。", "它很大!", "真的吗?", "是的;", "当然。", "“你好。”"]
    assert sentences(text) == expected


def test_lines_and_list_items() -> None:
    text = "Items:\n- one thing\n- two things\nA line that\nwraps here."
    assert sentences(text) == ["Items:", "one thing", "two things", "A line that wraps here."]


def test_empty_and_whitespace() -> None:
    assert sentences("") == []
    assert sentences("   \n\t ") == []


def test_sentence_cap() -> None:
    assert len(sentences("Go. " * (MAX_SENTENCES + 50))) == MAX_SENTENCES


@pytest.mark.parametrize(
    ("text", "expected"),
    [("The tower", "en"), ("Эйфелева башня", "ru"), ("埃菲尔铁塔", "zh"), ("LIC 是印度最大的公司", "zh"), ("", "en")],
)
def test_language(text: str, expected: str) -> None:
    assert language(text) == expected
