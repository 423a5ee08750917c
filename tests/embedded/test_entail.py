"""Entailment and contradiction, one premise against one claim, in English, Russian and Chinese."""

from __future__ import annotations

import pytest

from ragmetrics_core.evidence import Verdict
from ragmetrics_core.judges.embedded.entail import Premise, check
from ragmetrics_core.judges.embedded.normalize import terms


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
