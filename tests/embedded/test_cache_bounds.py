"""Issue 28, item 5: the embedded judge's memo caches are bounded *in all*, so a long batch run over ever new words
stops growing once they are full. Before, they could hold some 420,000 entries (about 95 MB when full), which a
CLI run over real-looking data kept filling up to 200,000 rows: its memory seemed to grow with the rows."""

from __future__ import annotations

import functools
import gc
import importlib
import pkgutil
from typing import Any

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges import embedded
from ragmetrics_core.judges.embedded import tokens
from ragmetrics_core.sample import RagSample

CACHE_ENTRY_BUDGET = 90_000
"""Entries all the judge's caches may hold together (docs/embedded_judge.md gives the memory this is)."""
CLOSED_KEYS = {"_phrases": 3}
"""Caches without a size bound because their keys are a closed set: here one entry per language (en, ru, zh)."""


def _judge_caches() -> list[functools._lru_cache_wrapper[Any]]:
    for module in pkgutil.walk_packages(embedded.__path__, embedded.__name__ + "."):
        importlib.import_module(module.name)
    return [
        cache for cache in gc.get_objects()
        if isinstance(cache, functools._lru_cache_wrapper) and cache.__module__.startswith(embedded.__name__)
    ]


def _held() -> int:
    return sum(cache.cache_info().currsize for cache in _judge_caches()) + len(tokens.TOKEN_INFOS)


def _new_word(number: int) -> str:
    letters = ""
    while True:
        number, digit = divmod(number, 26)
        letters += chr(97 + digit)
        if not number:
            return "zq" + letters


def _sample(first: int) -> RagSample:
    """Four contexts of 100 words no sample before used, and a response and reference made of them."""
    contexts = []
    for chunk in range(4):
        start = first + chunk * 100
        words = [_new_word(number) for number in range(start, start + 100)]
        contexts.append(". ".join(" ".join(words[cut : cut + 10]).capitalize() for cut in range(0, 100, 10)) + ".")
    response = contexts[0].split(". ")[0] + ". " + contexts[2].split(". ")[3] + "."
    return RagSample(user_input=f"What is {_new_word(first)}?", retrieved_contexts=contexts, response=response,
                     reference=contexts[1].split(". ")[0] + ".")


def test_every_cache_has_a_bound_and_together_they_fit_the_budget() -> None:
    caches = _judge_caches()
    assert len(caches) >= 5  # the word, term and sentence caches are found
    unbounded = [cache.__qualname__ for cache in caches if cache.cache_info().maxsize is None]
    assert set(unbounded) <= set(CLOSED_KEYS)
    bounds = sum(cache.cache_info().maxsize or CLOSED_KEYS[cache.__qualname__] for cache in caches)
    bounds += tokens.TOKEN_INFO_LIMIT
    assert bounds <= CACHE_ENTRY_BUDGET


def test_a_long_run_of_new_words_leaves_the_caches_within_the_budget_and_the_scores_unchanged() -> None:
    evaluator = Evaluator(metrics=["faithfulness", "context_utilization"])
    probe = _sample(10**7)
    cold = evaluator.evaluate(probe).scores
    seen_most = 0
    for number in range(100):  # 40,000 distinct words: before, the caches held 3 entries a word
        evaluator.evaluate(_sample(number * 400))
        seen_most = max(seen_most, _held())
    assert seen_most <= CACHE_ENTRY_BUDGET
    assert all(cache.cache_info().currsize <= CLOSED_KEYS[cache.__qualname__]
               for cache in _judge_caches() if cache.cache_info().maxsize is None)
    assert seen_most > CACHE_ENTRY_BUDGET // 3  # the caches did fill: the bound was reached, not avoided
    assert evaluator.evaluate(probe).scores == cold  # full caches give the scores empty ones gave
