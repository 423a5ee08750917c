"""Entailment and contradiction, one premise against one claim, in English, Russian and Chinese."""

from __future__ import annotations

import pytest

from ragmetrics_core.evidence import Verdict
from ragmetrics_core.judges.embedded.entail import Premise, check
from ragmetrics_core.judges.embedded.terms import terms


def _verdict(claim: str, premise: str) -> tuple[Verdict, str]:
    result = check(terms(claim), Premise.from_text(premise))
    assert result.confidence is not None and 0.0 <= result.confidence <= 1.0
    return result.verdict, result.rationale or ""


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("The first Super Bowl was held on January 15, 1967",
         "The first Super Bowl was held on January 15, 1967, at the Los Angeles Memorial Coliseum."),
        ("LIC is the largest insurance company in India",
         "LIC is the largest insurance company in India, with a vast network of policyholders."),
        ("Photosynthesis is the process by which plants use sunlight",
         "Photosynthesis is a biological process where plants convert light energy."),
        ("The tower was completed in 1889", "Tourists love it. Completed in 1889, the tower is tall."),
        ("Эйфелева башня была построена в 1889 году", "Эйфелева башня была завершена в 1889-м году."),
        ("В Париже весной мягкая погода", "Погода в Париже весной мягкая."),
        ("埃菲尔铁塔建于1889年", "埃菲尔铁塔于1889年建成,位于巴黎。"),
        ("LIC 为国家的金融稳定做出了贡献", "作为印度最大的机构投资者,LIC 管理着庞大资金,为国家的金融稳定做出了贡献。"),
    ],
    ids=["en-exact", "en-subset", "en-paraphrase", "en-window", "ru-year-synonym", "ru-word-order", "zh-order",
         "zh-clause"],
)
def test_entailed(claim: str, premise: str) -> None:
    verdict, rationale = _verdict(claim, premise)
    assert verdict is Verdict.ENTAILED, rationale
    assert "covered by" in rationale


@pytest.mark.parametrize(
    ("claim", "premise"),
    [
        ("John has a part-time job at the university library",
         "John often stays late in the library to work on his projects."),
        ("LIC contributes to the financial stability of the country",
         "The Life Insurance Corporation of India is the largest insurance company in India."),
        ("The tower has 1665 steps", "The tower was completed in 1889."),
        ("Башня находится в Лондоне", "Эйфелева башня была построена в 1889 году."),
        ("铁塔有1665级台阶", "埃菲尔铁塔位于巴黎。"),
    ],
    ids=["en-hallucination", "en-unrelated", "en-missing-number", "ru-unrelated", "zh-unrelated"],
)
def test_neutral(claim: str, premise: str) -> None:
    verdict, rationale = _verdict(claim, premise)
    assert verdict is Verdict.NEUTRAL, rationale


@pytest.mark.parametrize(
    ("claim", "premise", "signal"),
    [
        ("The tower was built in 1889", "The tower was built in 1890.", "number 1889 not in premise"),
        ("The Nile is 7,000 km long", "The Nile is 6,650 km long.", "premise says 6,650"),
        ("The tower was not built in 1889", "The tower was built in 1889.", "negation"),
        ("The tower was built in 1889", "The tower was never built in 1889.", "negation"),
        ("Germany defeated Brazil in 2014", "Brazil defeated Germany in 2014.", "swapped"),
        ("Эйфелева башня построена в 1889 году", "Эйфелева башня построена в 1890 году.", "1889"),
        ("Эйфелева башня построена в 1889 году", "Эйфелева башня не была построена в 1889 году.", "negation"),
        ("埃菲尔铁塔建于1889年", "埃菲尔铁塔建于1890年。", "1889"),
        ("埃菲尔铁塔位于巴黎", "埃菲尔铁塔不位于巴黎。", "negation"),
    ],
    ids=["en-year", "en-quantity", "en-negated-claim", "en-negated-premise", "en-swap", "ru-year", "ru-negation",
         "zh-year", "zh-negation"],
)
def test_contradicted(claim: str, premise: str, signal: str) -> None:
    verdict, rationale = _verdict(claim, premise)
    assert verdict is Verdict.CONTRADICTED, rationale
    assert signal in rationale


def test_negation_elsewhere_in_the_premise_does_not_contradict() -> None:
    verdict, rationale = _verdict(
        "it was one of the longest concert tours in rock history",
        "it was not only the band's longest tour, but one of the longest concert tours in rock history.",
    )
    assert verdict is Verdict.ENTAILED, rationale


def test_claim_spread_over_two_sentences_is_entailed_jointly() -> None:
    premise = "Marie Curie was born in Warsaw. She studied physics in Paris. In 1903 Curie won the Nobel Prize."
    verdict, rationale = _verdict("Marie Curie, born in Warsaw, won the Nobel Prize in 1903", premise)
    assert verdict is Verdict.ENTAILED, rationale
    assert "+" in rationale or "," in rationale


def test_empty_premise_and_contentless_claim() -> None:
    assert _verdict("The tower is tall", "")[0] is Verdict.NEUTRAL
    assert _verdict("it is", "The tower is tall.")[0] is Verdict.NEUTRAL


def test_a_missing_year_contradicts_only_where_the_rest_of_the_claim_is() -> None:
    claim = "The Eiffel Tower in Paris was completed in 1889"
    # The chunk holds little of the claim besides another year: neutral, decided without a window search.
    verdict, rationale = _verdict(claim, "The bridge over the river was opened in 1902. Paris grew quickly.")
    assert verdict is Verdict.NEUTRAL, rationale
    assert rationale.startswith("at most"), rationale
    # The chunk holds the rest of the claim with another year: contradicted.
    verdict, rationale = _verdict(claim, "The Eiffel Tower in Paris was completed in 1887.")
    assert verdict is Verdict.CONTRADICTED, rationale
    assert "1889" in rationale and "1887" in rationale


def test_both_sides_negating_the_same_term_is_one_negation_scoped_differently() -> None:
    premise = "The NFL has no written rule against female players."
    verdict, rationale = _verdict("There is no rule against them playing", premise)
    assert verdict is Verdict.ENTAILED, rationale
    verdict, rationale = _verdict("The NFL has a written rule against female players", premise)
    assert verdict is Verdict.CONTRADICTED, rationale


def _support(claim: str, premise: str) -> float:
    result = check(terms(claim), Premise.from_text(premise))
    assert result.support is not None
    assert (result.support >= 0.5) == (result.verdict is Verdict.ENTAILED), result
    return result.support


def test_support_grades_the_verdict() -> None:
    premise = "The Eiffel Tower was completed in 1889 by Gustave Eiffel's company for the World's Fair in Paris."
    stated = _support("The Eiffel Tower was completed in 1889 for the World's Fair", premise)
    mostly = _support("The Eiffel Tower was completed in 1889 in Paris by a Belgian steel company", premise)
    partly = _support("The Eiffel Tower in Paris was built by a Belgian steel company for tourists", premise)
    little = _support("The Eiffel Tower in Paris was painted by Belgian artists for tourists", premise)
    assert stated == 1.0 > mostly >= 0.5 > partly > little > 0.0
    assert _support("The Eiffel Tower was completed in 1890", premise) == 0.0  # contradicted
    assert _support("Bananas are yellow", premise) == 0.0
    assert _support("it is", premise) == 0.0  # too little content
    assert _support("The tower is tall", "") == 0.0


def test_thin_evidence_is_graded_below_a_specific_statement() -> None:
    # Fully covered either way, but two content words can match by accident where six rarely do.
    short = _support("They live in harmony", "The villagers and the dragons live in harmony on the island.")
    long = _support("The villagers and the dragons live in harmony on the island",
                    "The villagers and the dragons live in harmony on the island.")
    assert 0.5 <= short < long == 1.0
    # A window that borrows a sentence from elsewhere says less than one passage stating the claim.
    passage = "Marie Curie was born in Warsaw and won the Nobel Prize in 1903."
    pieced = "Marie Curie was born in Warsaw. She studied physics in Paris. In 1903 Curie won the Nobel Prize."
    claim = "Marie Curie, born in Warsaw, won the Nobel Prize in 1903"
    assert 0.5 <= _support(claim, pieced) < _support(claim, passage)


def test_support_falls_with_the_weight_a_window_leaves_uncovered_not_only_with_its_share() -> None:
    premise = "The Eiffel Tower was completed in 1889 by Gustave Eiffel's company for the World's Fair in Paris."
    # One word the premise lacks ("Belgian") in a short claim: 82 % covered, within the allowance.
    short = _support("The Eiffel Tower was completed in 1889 by a Belgian company", premise)
    # A longer copy of the premise covers a larger share (85 %) yet adds a detail of its own ("with Belgian steel"):
    # more unstated content, more room for a hallucination, so less support though both stay entailed.
    detailed = _support(
        "The Eiffel Tower was completed in 1889 by Gustave Eiffel's company for the World's Fair in Paris with "
        "Belgian steel",
        premise,
    )
    assert 0.5 <= detailed < short < 1.0
    # A full copy leaves nothing uncovered and keeps full support.
    assert _support("The Eiffel Tower was completed in 1889 by Gustave Eiffel's company", premise) == 1.0


def test_a_term_the_window_also_asserts_is_not_denied_by_a_negation_in_another_of_its_sentences() -> None:
    claim = "Walmart criticised the religious freedom law and the governor"
    both = (
        "Walmart criticised the religious freedom law in Arkansas. Crowds gathered. The governor did not sign the law."
    )
    verdict, rationale = _verdict(claim, both)
    assert verdict is not Verdict.CONTRADICTED, rationale
    assert "sentences 1, 3" in rationale, rationale  # the window still joins the two sentences
    # Where no sentence of the window asserts the term, the negation still contradicts.
    verdict, rationale = _verdict("The governor signed the law", "The governor did not sign the law.")
    assert verdict is Verdict.CONTRADICTED, rationale
    assert "negation" in rationale


def test_a_lone_chinese_character_of_the_claim_is_found_inside_a_premise_word() -> None:
    # "以外" leaves "外" a segment of its own in the claim; the premise has it only inside "外面".
    result = check(terms("公园以外"), Premise.from_text("这是公园外面的地方。"))
    assert result.verdict is Verdict.ENTAILED, result.rationale
    assert "外" not in result.rationale, result.rationale
