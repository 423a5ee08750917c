"""Samples for the LLM-judge tests and the cost benchmark (English, Russian, Chinese; K chunks)."""

from __future__ import annotations

from ragmetrics_core.sample import RagSample

ENGLISH = RagSample(
    id="en",
    user_input="Who wrote Hamlet and when?",
    response="Shakespeare wrote Hamlet. Hamlet was written around 1600. Hamlet is set in Denmark.",
    reference="Shakespeare wrote Hamlet. Hamlet was written around 1600.",
    retrieved_contexts=[
        "Shakespeare wrote Hamlet.",
        "Hamlet was written around 1600 in London.",
        "Copenhagen is the capital of Denmark.",
    ],
)

RUSSIAN = RagSample(
    id="ru",
    user_input="Кто написал роман «Война и мир»?",
    response="Лев Толстой написал роман «Война и мир». Роман опубликован в 1869 году.",
    reference="Лев Толстой написал роман «Война и мир». Роман опубликован в 1869 году.",
    retrieved_contexts=[
        "Лев Толстой написал роман «Война и мир».",
        "Роман опубликован в 1869 году в Москве.",
    ],
)

CHINESE = RagSample(
    id="zh",
    user_input="谁写了红楼梦？",
    response="曹雪芹写了红楼梦。红楼梦是中国古典小说。",
    reference="曹雪芹写了红楼梦。",
    retrieved_contexts=["曹雪芹写了红楼梦。", "红楼梦是中国古典小说。"],
)

_CITIES = ["Lyon", "Porto", "Turin", "Ghent", "Graz", "Bergen", "Utrecht", "Split", "Brno", "Kaunas"]


def synthetic_sample(k: int, response_claims: int = 6, reference_claims: int = 5) -> RagSample:
    """A sample with ``k`` chunks: the reference's facts spread over the first chunks, the rest noise.

    The response repeats some reference facts, adds one that only a chunk supports, and one made up.
    """
    facts = [
        f"{_CITIES[i % len(_CITIES)]} has {100 + 7 * i} thousand inhabitants"
        for i in range(max(response_claims, reference_claims) + 2)
    ]
    reference = ". ".join(facts[:reference_claims]) + "."
    grounded = facts[: max(0, response_claims - 2)]
    response_facts = [*grounded, facts[reference_claims], "Every city has a river"][:response_claims]
    chunks = [
        ". ".join(facts[j::k]) + "." if facts[j::k] else f"Chunk {j + 1} is about the weather in spring."
        for j in range(k)
    ]
    return RagSample(
        id=f"k{k}",
        user_input="How many people live in these cities?",
        response=". ".join(response_facts) + ".",
        reference=reference,
        retrieved_contexts=chunks,
    )
