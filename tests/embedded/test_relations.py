"""Whom a sentence speaks of: the issue's relational cases, and the near misses the checks must leave alone."""

from __future__ import annotations

import time

import pytest

from ragmetrics_core import Evaluator, RagSample
from ragmetrics_core.evidence import Verdict
from ragmetrics_core.judges.embedded.entail import Premise, check
from ragmetrics_core.judges.embedded.terms import terms


def _faithfulness(question: str, contexts: list[str], response: str) -> float | None:
    sample = RagSample(user_input=question, retrieved_contexts=contexts, response=response)
    return Evaluator().evaluate(sample).score("faithfulness")


def test_a_fact_about_a_father_does_not_support_it_of_the_child() -> None:
    contexts = ["Marie Curie's father was born in Warsaw. Marie Curie was born in Paris."]
    assert _faithfulness("Where was Marie Curie born?", contexts, "Marie Curie was born in Warsaw.") == 0.0
    assert _faithfulness("Where was Marie Curie born?", contexts, "Marie Curie was born in Paris.") == 1.0
    father = "Marie Curie's father was born in Warsaw."
    assert _faithfulness("Where was her father born?", [father], "Marie Curie's father was born in Warsaw.") == 1.0


_TWO_EVENTS = ["The Eiffel Tower was completed in 1889.", "The Statue of Liberty was dedicated in 1886."]


@pytest.mark.parametrize(
    ("contexts", "response", "supported"),
    [
        # Two chunks, two events, two dates: the answer gives event A the date of event B.
        (_TWO_EVENTS, "The Eiffel Tower was completed in 1886.", False),
        (_TWO_EVENTS, "The Statue of Liberty was dedicated in 1889.", False),
        (_TWO_EVENTS, "The Eiffel Tower was completed in 1889.", True),
        (_TWO_EVENTS, "The Statue of Liberty was dedicated in 1886.", True),
        # The same in one chunk, and in Russian.
        ([" ".join(_TWO_EVENTS)], "The Eiffel Tower was completed in 1886.", False),
        ([" ".join(_TWO_EVENTS)], "The Eiffel Tower was completed in 1889.", True),
        (["Эйфелева башня была построена в 1889 году.", "Статуя Свободы была открыта в 1886 году."],
         "Эйфелева башня была построена в 1886 году.", False),
        (["Эйфелева башня была построена в 1889 году.", "Статуя Свободы была открыта в 1886 году."],
         "Эйфелева башня была построена в 1889 году.", True),
        # A founding year of another company.
        (["Apple was founded in 1976 by Steve Jobs.", "Microsoft was founded in 1975 by Bill Gates."],
         "Apple was founded in 1975.", False),
        (["Apple was founded in 1976 by Steve Jobs.", "Microsoft was founded in 1975 by Bill Gates."],
         "Microsoft was founded in 1975.", True),
        # A sentence naming others that points back to the subject ("it") still speaks of it.
        (["The Sydney Opera House was designed by Jørn Utzon. Queen Elizabeth II opened it in 1973."],
         "The Sydney Opera House opened in 1973.", True),
        # A sentence that names the subject among others speaks of it.
        (["The Eiffel Tower, built by Gustave Eiffel's company, was completed in 1889."],
         "The Eiffel Tower was completed in 1889.", True),
        # A sentence that names someone the claim names speaks of them, whatever word opens the claim.
        (["The 36-year-old passenger, Gary Terry of Davenport, Florida, was pronounced dead, Florida police said."],
         "Authorities identify the passenger as 36-year-old Gary Terry.", True),
        # A sentence about another subject opens with that subject: not a date, not a phrase without a name.
        (["Roma gangs sold babies in France. In July 2013, Marseille detectives received a tip about one sale."],
         "Roma gangs sold babies in 2013.", True),
        (["Ellanora Baidoo wants a divorce. The couple married in 2009 in a civil ceremony in New York."],
         "Ellanora Baidoo married in 2009.", True),
        # Whoever reports a number is not what it is said of.
        (["Ellanora Baidoo wants a divorce. Attorney Andrew Spinnell says the couple married in 2009."],
         "Ellanora Baidoo married in 2009.", True),
        # Near misses the other way: the other sentence opens with its own subject and shares no name.
        (["Ellanora Baidoo wants a divorce. Andrew Spinnell married in 2009 in New York."],
         "Ellanora Baidoo married in 2009.", False),
        (["Apple was founded in 1976 by Steve Jobs.", "Microsoft was founded in 1975 by Bill Gates."],
         "Apple was founded in 1975 by Steve Jobs.", False),
    ],
)
def test_a_date_said_of_another_subject_does_not_support_the_claim(
    contexts: list[str], response: str, supported: bool
) -> None:
    score = _faithfulness("", contexts, response)  # no question: the claim is the response as written
    assert score is not None
    assert (score >= 0.5) is supported, score


def test_a_role_the_contexts_give_to_another_name_is_not_supported() -> None:
    contexts = ["Canberra is the capital city of Australia.", "Sydney is the largest city in Australia."]
    question = "What is the capital of Australia?"
    assert _faithfulness(question, contexts, "Sydney is the capital of Australia.") == 0.0
    assert _faithfulness(question, contexts, "Canberra is the capital of Australia.") == 1.0
    assert _faithfulness(question, contexts, "Sydney is the largest city in Australia.") == 1.0


@pytest.mark.parametrize(
    ("claim", "premise", "verdict"),
    [
        # The role given to someone else: a contradiction, whichever side the name stands on.
        ("Sydney is the capital of Australia", "Canberra is the capital city of Australia.", Verdict.CONTRADICTED),
        ("Sydney is the capital of Australia", "The capital of Australia is Canberra.", Verdict.CONTRADICTED),
        ("The capital of Australia is Sydney", "Canberra is the capital of Australia.", Verdict.CONTRADICTED),
        # The sentence names the claim's subject too ("Canberra, not Sydney, is …" reads differently): left alone.
        ("Canberra is the capital of Australia", "Canberra is the capital of Australia.", Verdict.ENTAILED),
        # Another role for the same name, sharing a relation word: a paraphrase the lexical check grades.
        ("Paris is the capital of France", "Paris is the capital and largest city of France.", Verdict.ENTAILED),
        # An owned thing that is not a person ("Haidara's knee injury will keep him out"): still about Haidara.
        ("Massadio Haidara has been ruled out for the season",
         "Massadio Haidara's knee injury has ruled him out for the season.", Verdict.ENTAILED),
        # A name inside the subject is not the subject: Tanzania is not said to be the highest mountain, so the
        # premise does not give Tanzania's role to Kilimanjaro (only "in Tanzania" is missing).
        ("Mount Kilimanjaro in Tanzania is the highest mountain in Africa",
         "Mount Kilimanjaro is the highest mountain in Africa.", Verdict.ENTAILED),
        # A clause of its own after "and".
        ("Mombasa is the capital of Kenya", "Kenya is in East Africa, and Nairobi is the capital of Kenya.",
         Verdict.CONTRADICTED),
        # The claim is itself about the relative.
        ("Marie Curie's father was born in Warsaw", "Marie Curie's father was born in Warsaw.", Verdict.ENTAILED),
    ],
)
def test_verdicts_on_one_sentence(claim: str, premise: str, verdict: Verdict) -> None:
    assert check(terms(claim), Premise.from_text(premise)).verdict is verdict


def test_the_rationale_says_whom_the_sentence_speaks_of() -> None:
    father = Premise.from_text("Marie Curie's father was born in Warsaw.")
    relative = check(terms("Marie Curie was born in Warsaw"), father)
    assert relative.verdict is Verdict.NEUTRAL and relative.support == 0.0
    assert "Marie Curie's father" in relative.rationale
    largest = Premise.from_text("Sydney is the largest city in Australia.")
    role = check(terms("Sydney is the capital of Australia"), largest)
    assert role.verdict is Verdict.NEUTRAL and role.support == 0.0
    assert "largest city in Australia" in role.rationale


def test_a_megabyte_sentence_of_roles_is_read_in_bounded_time() -> None:
    # A lazy "the R is X" scanned to the end of an unpunctuated text from every "the" was quadratic (128 KB: 92 s).
    filler = "the capital of Australia is " * 36_000  # 1 MB, one sentence
    sample = RagSample(user_input="What is the capital of Australia?", response="Sydney is the capital of Australia.",
                       retrieved_contexts=[f"Canberra is {filler}", f"Sydney is {filler}"])
    started = time.perf_counter()
    result = Evaluator().evaluate(sample)
    assert time.perf_counter() - started < 60  # a hang guard, as for the other 1 MB inputs; seconds in practice
    assert result.error is None and result.score("faithfulness") is not None


@pytest.mark.parametrize(
    ("contexts", "wrong", "right"),
    [
        (["Канберра — столица Австралии.", "Сидней — крупнейший город Австралии."],
         "Сидней — столица Австралии.", "Канберра — столица Австралии."),
        (["Столица Австралии — Канберра.", "Сидней является крупнейшим городом Австралии."],
         "Сидней является столицей Австралии.", "Канберра является столицей Австралии."),
        (["堪培拉是澳大利亚的首都。", "悉尼是澳大利亚最大的城市。"],
         "悉尼是澳大利亚的首都。", "堪培拉是澳大利亚的首都。"),
        (["澳大利亚的首都是堪培拉。", "悉尼是澳大利亚最大的城市。"],
         "澳大利亚的首都是悉尼。", "澳大利亚的首都是堪培拉。"),
    ],
)
def test_the_capital_case_in_russian_and_chinese(contexts: list[str], wrong: str, right: str) -> None:
    assert _faithfulness("", contexts, wrong) == 0.0
    assert _faithfulness("", contexts, right) == 1.0


@pytest.mark.parametrize(
    ("claim", "premise", "verdict"),
    [
        # Two names joined by a dash ("Пушкин — Александр Сергеевич") are no role.
        ("Пушкин — великий русский поэт", "Пушкин — Александр Сергеевич.", Verdict.NEUTRAL),
        # Another role for the same name that shares the relation word: left to the lexical check.
        ("Москва — столица России", "Москва — столица и крупнейший город России.", Verdict.ENTAILED),
    ],
)
def test_russian_and_chinese_near_misses(claim: str, premise: str, verdict: Verdict) -> None:
    assert check(terms(claim), Premise.from_text(premise)).verdict is verdict


@pytest.mark.parametrize("adverb", ["также", "сейчас", "всё ещё", "все еще"])
def test_a_russian_adverb_before_the_role_is_not_part_of_it(adverb: str) -> None:
    premise = Premise.from_text(f"Канберра является {adverb} столицей Австралии.")
    found = check(terms("Сидней является столицей Австралии."), premise)
    assert found.verdict is Verdict.CONTRADICTED
    assert "gives 'столицей Австралии' to Канберра, not Сидней" in found.rationale


def test_a_chinese_pronoun_or_demonstrative_is_not_a_name_given_the_role() -> None:
    # "这座城市是澳大利亚的首都" does not say which city: no name is given the role, so no contradiction (the lexical
    # check grades the rest).
    verdict = check(terms("悉尼是澳大利亚的首都"), Premise.from_text("这座城市是澳大利亚的首都。")).verdict
    assert verdict is not Verdict.CONTRADICTED
    assert check(terms("悉尼是澳大利亚的首都"), Premise.from_text("他们说，这是澳大利亚的首都。")).verdict is not (
        Verdict.CONTRADICTED)
