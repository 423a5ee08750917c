"""The seed examples (ragas noise-sensitivity page in EN/RU/ZH, the Java suite's cases) through the real engine."""

from __future__ import annotations

import pytest

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.metrics import ContextPrecisionStrategy, MetricOptions
from ragmetrics_core.sample import RagSample

LIC_EN = RagSample(
    user_input="What is the Life Insurance Corporation of India (LIC) known for?",
    response="The Life Insurance Corporation of India (LIC) is the largest insurance company in India, known for its "
    "vast portfolio of investments. LIC contributes to the financial stability of the country.",
    reference="The Life Insurance Corporation of India (LIC) is the largest insurance company in India, established in "
    "1956 through the nationalization of the insurance industry. It is known for managing a large portfolio of "
    "investments.",
    retrieved_contexts=[
        "The Life Insurance Corporation of India (LIC) was established in 1956 following the nationalization of the "
        "insurance industry in India.",
        "LIC is the largest insurance company in India, with a vast network of policyholders and huge investments.",
        "As the largest institutional investor in India, LIC manages substantial funds, contributing to the financial "
        "stability of the country.",
        "The Indian economy is one of the fastest-growing major economies in the world, thanks to sectors like "
        "finance, technology, manufacturing etc.",
    ],
)

LIC_ZH = RagSample(
    user_input="印度人寿保险公司(LIC)以什么闻名?",
    response="印度人寿保险公司(LIC)是印度最大的保险公司,以其庞大的投资组合而闻名。LIC 为国家的金融稳定做出了贡献。",
    reference="印度人寿保险公司(LIC)是印度最大的保险公司,成立于 1956 年,通过保险业国有化建立。"
    "它以管理庞大的投资组合而闻名。",
    retrieved_contexts=[
        "印度人寿保险公司(LIC)成立于 1956 年,是在印度保险业国有化后建立的。",
        "LIC 是印度最大的保险公司,拥有庞大的保单持有人网络,并在金融领域发挥重要作用。",
        "作为印度最大的机构投资者,LIC 管理着庞大资金,为国家的金融稳定做出了贡献。",
        "印度经济是世界上增长最快的主要经济体之一,这得益于金融、技术、制造业等行业。",
    ],
)

EIFFEL_RU_CONTEXTS = [
    "Эйфелева башня была завершена в 1889 году.",
    "Погода в Париже весной мягкая.",
    "В башне 1665 ступеней.",
]


def _scores(evaluator: Evaluator, sample: RagSample) -> dict[str, float | None]:
    return evaluator.evaluate(sample).values()


@pytest.mark.parametrize("sample", [LIC_EN, LIC_ZH], ids=["english", "chinese"])
def test_lic_noise_sensitivity(evaluator: Evaluator, sample: RagSample) -> None:
    scores = _scores(evaluator, sample)
    assert scores["noise_sensitivity_relevant"] == pytest.approx(1 / 3, abs=1e-9)
    assert scores["noise_sensitivity_irrelevant"] == 0.0


def test_russian_eiffel_noise_sensitivity(evaluator: Evaluator) -> None:
    with_noise = RagSample(
        user_input="Когда была построена Эйфелева башня?",
        reference="Эйфелева башня была построена в 1889 году.",
        response="Эйфелева башня была построена в 1889 году. В Париже весной мягкая погода.",
        retrieved_contexts=EIFFEL_RU_CONTEXTS,
    )
    without_noise = with_noise.model_copy(update={"response": "Эйфелева башня была построена в 1889 году."})
    noisy = _scores(evaluator, with_noise)
    clean = _scores(evaluator, without_noise)
    assert (noisy["noise_sensitivity_relevant"] or 0) + (noisy["noise_sensitivity_irrelevant"] or 0) > 0
    assert clean["noise_sensitivity_relevant"] == 0.0
    assert clean["noise_sensitivity_irrelevant"] == 0.0


def test_java_context_entity_recall(evaluator: Evaluator) -> None:
    high = RagSample(
        reference="The Eiffel Tower is located in Paris, France. It was completed in 1889 for the World's Fair.",
        retrieved_contexts=[
            "The Eiffel Tower, located in Paris, France, is one of the most iconic landmarks.",
            "Completed in 1889, it was constructed for the 1889 World's Fair.",
            "Millions of visitors are attracted to it each year.",
        ],
    )
    poor = RagSample(
        reference="Albert Einstein was born in Ulm, Germany on March 14, 1879. "
        "He won the Nobel Prize in Physics in 1921.",
        retrieved_contexts=[
            "Physics is a fundamental science that studies matter and energy.",
            "Scientists have made many important discoveries throughout history.",
        ],
    )
    high_score = _scores(evaluator, high)["context_entity_recall"]
    poor_score = _scores(evaluator, poor)["context_entity_recall"]
    assert high_score is not None and high_score >= 0.7
    assert poor_score is not None and poor_score <= 0.3


def test_java_context_precision(judge: object) -> None:
    reference_based = Evaluator(
        judge=judge,  # type: ignore[arg-type]
        metrics=["context_precision"],
        options=MetricOptions(context_precision_strategy=ContextPrecisionStrategy.REFERENCE),
    )
    response_based = Evaluator(
        judge=judge,  # type: ignore[arg-type]
        metrics=["context_precision"],
        options=MetricOptions(context_precision_strategy=ContextPrecisionStrategy.RESPONSE),
    )
    good = RagSample(
        user_input="What is photosynthesis?",
        reference="Photosynthesis is the process by which plants use sunlight, carbon dioxide, and water to produce "
        "glucose and oxygen.",
        retrieved_contexts=[
            "Photosynthesis is a biological process where plants convert light energy.",
            "The process involves: 6CO2 + 6H2O + light → C6H12O6 + 6O2.",
            "Plants are autotrophs that produce their own food.",
        ],
    )
    poor_ordering = RagSample(
        user_input="What is quantum computing?",
        response="Quantum computing uses quantum mechanical phenomena.",
        retrieved_contexts=[
            "The price of groceries has increased this year.",
            "Quantum computers use quantum bits (qubits).",
            "Quantum computing leverages superposition and entanglement.",
        ],
    )
    good_score = reference_based.evaluate(good).values()["context_precision"]
    poor_score = response_based.evaluate(poor_ordering).values()["context_precision"]
    assert good_score is not None and good_score >= 0.8
    assert poor_score is not None and poor_score <= 0.7


def test_java_context_recall(evaluator: Evaluator) -> None:
    sample = RagSample(
        user_input="Tell me about photosynthesis",
        reference="Photosynthesis converts light energy to chemical energy. It occurs in chloroplasts. The process "
        "requires CO₂, water, and sunlight. Oxygen is released as a byproduct.",
        retrieved_contexts=[
            "Photosynthesis is a process where plants convert sunlight into chemical energy.",
            "Chloroplasts are organelles in plant cells where photosynthesis occurs.",
            "During photosynthesis, oxygen is produced as a waste product.",
            "The process requires carbon dioxide, water, and light energy.",
        ],
    )
    score = _scores(evaluator, sample)["context_recall"]
    assert score is not None and score >= 0.9


def test_java_faithfulness(evaluator: Evaluator) -> None:
    perfect = RagSample(
        user_input="When was the first Super Bowl?",
        response="The first Super Bowl was held on January 15, 1967.",
        retrieved_contexts=[
            "The first Super Bowl was held on January 15, 1967, at the Los Angeles Memorial Coliseum."
        ],
    )
    hallucinated = RagSample(
        user_input="What courses is John taking?",
        response="John is taking Data Structures, Algorithms, and Artificial Intelligence. He also has a part-time "
        "job at the university library.",
        retrieved_contexts=[
            "John is a student at XYZ University pursuing a Computer Science degree. He is enrolled in Data "
            "Structures, Algorithms, and Database Management. John often stays late in the library to work on his "
            "projects."
        ],
    )
    perfect_score = _scores(evaluator, perfect)["faithfulness"]
    hallucinated_score = _scores(evaluator, hallucinated)["faithfulness"]
    assert perfect_score is not None and perfect_score >= 0.9
    assert hallucinated_score is not None and hallucinated_score <= 0.7


def test_java_noise_sensitivity(evaluator: Evaluator) -> None:
    sample = RagSample(
        user_input="What causes earthquakes?",
        response="Earthquakes are caused by tectonic plate movement.",
        reference="Earthquakes are caused by movement of tectonic plates. Plates suddenly shift and release energy.",
        retrieved_contexts=[
            "Tectonic plates are large sections of Earth's crust that move slowly.",
            "When tectonic plates collide, they can cause earthquakes.",
            "Seismic waves are energy released during earthquakes.",
            "Best time to visit Japan is during cherry blossom season.",
        ],
    )
    score = _scores(evaluator, sample)["noise_sensitivity_relevant"]
    assert score is not None and score <= 0.3


@pytest.mark.parametrize(
    ("user_input", "response", "low", "high"),
    [
        ("Where is France located and what is its capital?",
         "France is located in Western Europe, and its capital is Paris.", 0.85, 1.0),
        ("Where is France located and what is its capital?", "France is located in Western Europe.", 0.5, 0.8),
        ("What is the capital of France?", "I don't know what the capital of France is.", 0.0, 0.0999),
    ],
    ids=["complete", "incomplete", "noncommittal"],
)
def test_java_response_relevancy(
    evaluator: Evaluator, user_input: str, response: str, low: float, high: float
) -> None:
    score = _scores(evaluator, RagSample(user_input=user_input, response=response))["response_relevancy"]
    assert score is not None and low <= score <= high
