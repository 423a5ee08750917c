"""The embedded judge on the claim case table: claims as a person writes them down, and the scores a person
expects (faithful, correct, relevant), in English, Russian and Chinese."""

from __future__ import annotations

import pytest

from ragmetrics_core.engine import Evaluator
from tests.claim_cases import Case, cases, claim_problems, score_problems

CASES = cases()


def _marked(case: Case) -> object:
    """A row whose scores meet a known limit of the lexical checker fails its score test, strictly: the day it
    passes, the mark must go."""
    limit = case.row.get("known_limit")
    marks = [pytest.mark.xfail(reason=limit, strict=True)] if limit else []
    return pytest.param(case, id=case.id, marks=marks)


def test_the_table_has_sixty_ordinary_rows_in_three_languages() -> None:
    by_language = {lang: sum(1 for case in CASES if case.row["lang"] == lang) for lang in ("en", "ru", "zh")}
    assert sum(by_language.values()) == len(CASES) >= 60
    assert min(by_language.values()) >= 15


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_the_claims_are_those_a_person_writes_down(case: Case, evaluator: Evaluator) -> None:
    result = evaluator.evaluate(case.sample)
    problems = claim_problems(case, result)
    assert not problems, "; ".join(problems)


@pytest.mark.parametrize("case", [_marked(case) for case in CASES])
def test_the_scores_say_what_a_person_expects(case: Case, evaluator: Evaluator) -> None:
    result = evaluator.evaluate(case.sample)
    problems = score_problems(case, result)
    assert not problems, "; ".join(problems)
