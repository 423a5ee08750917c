"""Answers read with their question: short answers, yes/no, leading pronouns and refusals (issue cases)."""

from __future__ import annotations

import pytest

from ragmetrics_core import Evaluator, RagSample, aggregate
from ragmetrics_core.judges.embedded.answers import complete_answer, read_answer


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        ("What is the capital of France?", "Paris.", "The capital of France is Paris."),
        ("What is the capital of Australia?", "Canberra.", "The capital of Australia is Canberra."),
        ("When was the Eiffel Tower built?", "It was built in 1889.", "The Eiffel Tower was built in 1889."),
        ("When was the Eiffel Tower built?", "1889", "The Eiffel Tower was built in 1889."),
        ("Where was Marie Curie born?", "Warsaw", "Marie Curie was born in Warsaw."),
        ("Who wrote War and Peace?", "Leo Tolstoy", "Leo Tolstoy wrote War and Peace."),
        ("Is Paris the capital of France?", "Yes.", "Paris is the capital of France."),
        ("Is Paris the capital of France?", "No.", "Paris is not the capital of France."),
        ("When was Marie Curie born?", "She was born in 1867.", "Marie Curie was born in 1867."),
        ("Когда была построена Эйфелева башня?", "В 1889 году.", "В 1889 году была построена Эйфелева башня."),
        ("Когда родился Пушкин?", "Он родился в 1799 году.", "Пушкин родился в 1799 году."),
        ("埃菲尔铁塔是什么时候建成的？", "1889年。", "埃菲尔铁塔是1889年建成的。"),
        ("巴黎是法国的首都吗？", "不是。", "巴黎不是法国的首都。"),
    ],
)
def test_an_answer_that_leans_on_its_question_becomes_a_statement(question: str, answer: str, statement: str) -> None:
    assert complete_answer(question, answer) == statement


@pytest.mark.parametrize(
    ("question", "answer", "expected"),
    [
        ("What is the capital of France?", "The capital of France is Paris.", "The capital of France is Paris."),
        ("Tell me about Paris.", "Paris is the capital of France.", "Paris is the capital of France."),
        # Chat: the "yes" is a discourse marker, the rest says it in its own words; "they" has no named topic.
        ("Do you like dogs?", "Yes, they are great companions.", "they are great companions."),
        ("Is it true he died young?", "Yes.", ""),  # a vague subject: nothing checkable to state
    ],
)
def test_answers_that_stand_on_their_own_or_have_nothing_to_complete_are_kept(
    question: str, answer: str, expected: str
) -> None:
    assert complete_answer(question, answer) == expected


@pytest.mark.parametrize(
    "answer", ["I don't know.", "Не знаю.", "我不知道。", "The context does not mention the author."]
)
def test_a_refusal_states_nothing(answer: str) -> None:
    assert complete_answer("Who wrote War and Peace?", answer) == ""


def test_a_hedge_followed_by_a_statement_keeps_the_statement() -> None:
    assert "Tolstoy" in complete_answer("Who wrote War and Peace?", "I'm not sure, but I think Tolstoy wrote it.")


def _scores(question: str, contexts: list[str], response: str, reference: str | None) -> dict[str, float | None]:
    sample = RagSample(user_input=question, retrieved_contexts=contexts, response=response, reference=reference)
    return Evaluator().evaluate(sample).values()


def test_a_correct_answer_with_a_pronoun_gets_recall() -> None:
    scores = _scores("When was the Eiffel Tower built?", ["The Eiffel Tower was built in 1889 for the World's Fair."],
                     "It was built in 1889.", "The Eiffel Tower was built in 1889.")
    assert scores["overall_recall"] == pytest.approx(1.0)
    assert scores["faithfulness"] == pytest.approx(1.0)


def test_a_full_answer_against_a_short_reference_and_the_reverse() -> None:
    contexts = ["Paris is the capital of France."]
    full = _scores("What is the capital of France?", contexts, "The capital of France is Paris.", "Paris.")
    short = _scores("What is the capital of France?", contexts, "Paris", "The capital of France is Paris.")
    assert full["overall_precision"] == pytest.approx(1.0)
    assert short["overall_recall"] == pytest.approx(1.0)


def test_yes_to_a_yes_no_question_is_judged() -> None:
    scores = _scores("Is Paris the capital of France?", ["Paris is the capital of France."], "Yes.",
                     "Yes, Paris is the capital of France.")
    assert scores["faithfulness"] == pytest.approx(1.0)
    assert scores["overall_recall"] == pytest.approx(1.0)


def test_a_refusal_is_noncommittal_not_a_hallucination() -> None:
    scores = _scores("Who wrote War and Peace?", ["War and Peace is a novel by Leo Tolstoy."], "I don't know.",
                     "Leo Tolstoy wrote War and Peace.")
    assert scores["hallucination"] is None
    assert scores["faithfulness"] is None
    assert scores["overall_recall"] == 0.0
    assert scores["response_relevancy"] == 0.0


QA_FILE = [
    ("What is the capital of France?", ["Paris is the capital and largest city of France."],
     "The capital of France is Paris.", "Paris"),
    ("When was the Eiffel Tower completed?", ["The Eiffel Tower was completed in 1889."], "It was completed in 1889.",
     "1889"),
    ("Who wrote War and Peace?", ["War and Peace is a novel by the Russian author Leo Tolstoy."],
     "Leo Tolstoy wrote War and Peace.", "Leo Tolstoy"),
    ("How many moons does Mars have?", ["Mars has two moons, Phobos and Deimos."], "Mars has two moons.", "Two"),
    ("Какая столица России?", ["Москва — столица России."], "Столица России — Москва.", "Москва"),
    ("Когда родился Пушкин?", ["Александр Пушкин родился в 1799 году в Москве."], "Пушкин родился в 1799 году.",
     "В 1799 году"),
    ("中国的首都是哪里？", ["北京是中国的首都。"], "中国的首都是北京。", "北京"),
    ("长城有多长？", ["长城全长约21196公里。"], "长城全长约21196公里。", "约21196公里"),
]


def test_a_ragas_style_qa_file_with_short_references_scores_its_correct_answers_as_correct() -> None:
    samples = [RagSample(user_input=q, retrieved_contexts=c, response=r, reference=ref) for q, c, r, ref in QA_FILE]
    results = Evaluator(metrics=["overall_precision", "overall_recall", "overall_f1"]).evaluate_many(samples)
    means = aggregate(results).means()
    assert means["overall_f1"] > 0.8  # 0.10 before answers were read with their question
    assert means["overall_recall"] > 0.9


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        ("Which is taller, the Eiffel Tower or Big Ben?", "The Eiffel Tower.",
         "The Eiffel Tower is taller than Big Ben."),
        ("Which is taller, the Eiffel Tower or Big Ben?", "Big Ben.", "Big Ben is taller than the Eiffel Tower."),
        ("Which is taller, the Eiffel Tower or Big Ben?", "The Eiffel Tower is taller.",
         "The Eiffel Tower is taller than Big Ben."),
        ("Who is older: Anna or Boris?", "Boris", "Boris is older than Anna."),
        ("Что выше, Эйфелева башня или Биг-Бен?", "Эйфелева башня.", "Эйфелева башня выше, чем Биг-Бен."),
        ("埃菲尔铁塔和大本钟哪个更高？", "埃菲尔铁塔。", "埃菲尔铁塔比大本钟更高。"),
        ("哪个更高，埃菲尔铁塔还是大本钟？", "大本钟。", "大本钟比埃菲尔铁塔更高。"),
    ],
)
def test_the_pick_of_a_comparison_is_said_with_than(question: str, answer: str, statement: str) -> None:
    assert complete_answer(question, answer) == statement


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # An answer with a verb of its own is never glued to the question, in any language.
        ("Who designed the Sydney Opera House?", "Bananas are rich in potassium."),
        ("Which is taller, the Eiffel Tower or Big Ben?", "The Eiffel Tower is taller than Big Ben."),
        ("Which is taller, the Eiffel Tower or Big Ben?", "Neither is in London."),
        ("Кто написал «Войну и мир»?", "Бананы богаты калием."),
        ("Когда была построена Эйфелева башня?", "Эйфелева башня была построена в 1889 году."),
        ("故宫有多少个房间？", "故宫有9999间房屋。"),
        ("长城有多长？", "长城全长约21196公里。"),
        ("谁设计了悉尼歌剧院？", "香蕉富含钾。"),
    ],
)
def test_a_full_sentence_is_kept_as_written(question: str, answer: str) -> None:
    assert complete_answer(question, answer) == answer


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        ("How many moons does Mars have?", "Two.", "Mars has Two moons."),
        ("When did Tolstoy write War and Peace?", "Between 1863 and 1869.",
         "Tolstoy wrote War and Peace between 1863 and 1869."),
        ("When did the museum open?", "In 1793.", "The museum opened in 1793."),
        ("В каком году основали Москву?", "В 1147 году.", "В 1147 году основали Москву."),
        ("Является ли Москва столицей России?", "Да.", "Москва является столицей России."),
        ("Является ли Казань столицей России?", "Нет.", "Казань не является столицей России."),
        ("故宫有多少个房间？", "9999", "故宫有9999个房间。"),
        ("故宫有多少个房间？", "9999间。", "故宫有9999间房间。"),
        ("长城在上海吗？", "不是。", "长城不在上海。"),
        ("谁设计了悉尼歌剧院？", "约恩·乌松。", "约恩·乌松设计了悉尼歌剧院。"),
    ],
)
def test_a_fragment_is_put_into_its_question_correctly_formed(question: str, answer: str, statement: str) -> None:
    assert complete_answer(question, answer) == statement


@pytest.mark.parametrize(
    ("question", "answer", "statement"),
    [
        # "it" stands for what the question asks about, wherever it stands.
        ("Who designed the Sydney Opera House, and when did it open?",
         "Jørn Utzon designed it, and it opened in 1973.",
         "Jørn Utzon designed the Sydney Opera House, and the Sydney Opera House opened in 1973."),
        ("When was the Eiffel Tower built?", "It was built in 1889. Its height is 330 metres.",
         "The Eiffel Tower was built in 1889. The Eiffel Tower's height is 330 metres."),
        # An expletive "it" stands for nothing.
        ("When was the Eiffel Tower built?", "It is said that it was built in 1889.",
         "It is said that the Eiffel Tower was built in 1889."),
        # No topic in the question: the pronoun stays.
        ("Tell me something about Paris.", "It has a tower.", "It has a tower."),
        # A question's words after its verb that open with a preposition or a pronoun are no topic: the pronoun stays.
        ("What happened in Dakar?", "A fire broke out in the market. Its roof collapsed.",
         "A fire broke out in the market. Its roof collapsed."),
        ("Who is his father?", "It is John.", "It is John."),
        # "he"/"she" only for a name the question asks about.
        ("When was the Eiffel Tower built?", "He built it in 1889.", "He built the Eiffel Tower in 1889."),
        ("Кто написал «Войну и мир» и когда его опубликовали?", "Его опубликовали в 1869 году.",
         "«Войну и мир» опубликовали в 1869 году."),
        ("Когда родился Пушкин?", "Его жена родилась в 1812 году.", "Его жена родилась в 1812 году."),  # possessive
        ("悉尼歌剧院是谁设计的，什么时候开放？", "约恩·乌松设计了它。", "约恩·乌松设计了悉尼歌剧院。"),
        ("鲁迅出生于哪一年？", "他出生于1881年。", "鲁迅出生于1881年。"),
    ],
)
def test_a_pronoun_stands_for_what_the_question_asks_about(question: str, answer: str, statement: str) -> None:
    assert complete_answer(question, answer) == statement


def test_the_reading_of_a_pair_is_memoised_and_huge_pairs_are_not_kept() -> None:
    question, answer = "Who designed the Sydney Opera House?", "Jørn Utzon."
    assert read_answer(question, answer) is read_answer(question, answer)
    huge = "The tower is tall. " * 2000
    assert read_answer(question, huge) is not read_answer(question, huge)
    assert read_answer(question, huge) == read_answer(question, huge)


@pytest.mark.parametrize("answer", ["", "   ", "?!", "…", "\u200b"])
def test_empty_or_signless_answers_state_nothing(answer: str) -> None:
    read = read_answer("Who designed the Sydney Opera House?", answer)
    assert not read.text.strip(" ?!…\u200b") and not read.completed
