"""LLM calls and prompt tokens per sample for all fifteen metrics: ragmetrics' judge vs ragas and RAGChecker.

Runs the real judge (official ``openai`` client over HTTP) against the fake OpenAI-compatible server from
``tests/llm`` and counts what the server received. Tokens are the server's estimate, UTF-8 bytes / 4
rounded up per message (no tokenizer files are available offline); the same rule applies to every row.

ragas and RAGChecker are not run: their call counts come from their formulas for the same samples
(ragas: 6K + 12 for its six metrics; RAGChecker: 2 + (K+1)(⌈R/5⌉ + ⌈G/5⌉) for its ten, with R and G the
claims our extraction found), and their prompt sizes are not measured here.

Usage: ``python benchmarks/judge_cost.py``
"""

from __future__ import annotations

import asyncio
import math
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.openai import OpenAIJudge, OpenAIJudgeConfig
from ragmetrics_core.metrics import METRICS
from ragmetrics_core.sample import RagSample
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.llm.samples import synthetic_sample

CHUNK_COUNTS = (2, 4, 8)
CLAIM_SHAPES = ((4, 3), (6, 5), (12, 10))  # (response claims, reference claims) per sample


@dataclass
class Measured:
    chat_calls: int
    embedding_calls: int
    prompt_tokens: int
    completion_tokens: int
    undetermined: int
    response_claims: int
    reference_claims: int


async def measure(server: FakeOpenAIServer, sample: RagSample, check_mode: str) -> Measured:
    server.reset()
    config = OpenAIJudgeConfig(
        model="judge", base_url=server.base_url, api_key="sk-benchmark", embedding_model="embed", check_mode=check_mode
    )
    result = await Evaluator(judge=OpenAIJudge(config)).aevaluate(sample)
    chat = [r for r in server.calls() if r.task != "embeddings"]
    return Measured(
        chat_calls=len(chat),
        embedding_calls=len(server.calls("embeddings")),
        prompt_tokens=sum(r.prompt_tokens for r in chat),
        completion_tokens=sum(r.completion_tokens for r in chat),
        undetermined=sum(score.score is None for score in result.scores.values()),
        response_claims=len(result.evidence.response_claims or []),
        reference_claims=len(result.evidence.reference_claims or []),
    )


def ragas_calls(k: int) -> int:
    return 6 * k + 12


def ragchecker_calls(k: int, r: int, g: int) -> int:
    return 2 + (k + 1) * (math.ceil(r / 5) + math.ceil(g / 5))


async def main() -> None:
    header = (
        f"{'K':>2} {'R':>3} {'G':>3} | {'joint calls':>11} {'prompt tok':>10} {'compl tok':>9} | "
        f"{'per-chunk calls':>15} {'prompt tok':>10} | {'ragas calls':>11} {'RAGChecker':>10} | "
        f"{'ragas/ours':>10} {'RAGChecker/ours':>15}"
    )
    print(f"All {len(METRICS)} metrics per sample; + 1 embeddings call in every ragmetrics row.")
    print(header)
    print("-" * len(header))
    ratios: list[float] = []
    with FakeOpenAIServer() as server:
        for k in CHUNK_COUNTS:
            for response_claims, reference_claims in CLAIM_SHAPES:
                sample = synthetic_sample(k, response_claims, reference_claims)
                joint = await measure(server, sample, "joint")
                per_chunk = await measure(server, sample, "per_chunk")
                if joint.undetermined or per_chunk.undetermined or joint.embedding_calls != 1:
                    raise SystemExit(f"K={k}: some metrics were undetermined; the figures would not be comparable")
                ragas = ragas_calls(k)
                ragchecker = ragchecker_calls(k, joint.response_claims, joint.reference_claims)
                ratios.append(joint.chat_calls / ragas)
                print(
                    f"{k:>2} {joint.response_claims:>3} {joint.reference_claims:>3} | "
                    f"{joint.chat_calls:>11} {joint.prompt_tokens:>10} {joint.completion_tokens:>9} | "
                    f"{per_chunk.chat_calls:>15} {per_chunk.prompt_tokens:>10} | {ragas:>11} {ragchecker:>10} | "
                    f"{ragas / joint.chat_calls:>10.1f} {ragchecker / joint.chat_calls:>15.1f}"
                )
    worst = max(ratios)
    verdict = "meets" if worst <= 0.2 else "MISSES"
    print(f"\nOur calls / ragas' calls: at most {worst:.3f} (target <= 0.2: {verdict}).")
    print("Tokens: UTF-8 bytes / 4 per message, counted by the server. ragas/RAGChecker: formula counts only.")


if __name__ == "__main__":
    asyncio.run(main())
