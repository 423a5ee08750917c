"""Issue 28, item 5: a run that keeps no result in memory (what ``ragmetrics evaluate`` does) holds the same amount
of figures whatever the number of rows, its second reading of the input holds no id per row, and its summary is
still the summary of its results computed in memory: failed and undetermined samples, NaN scores, results
finishing out of order and resumed rows included."""

from __future__ import annotations

import asyncio
import gc
import math
import random
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from ragmetrics_core.aggregate import AggregationMode, RunningAggregate, aggregate, pairwise_sum_of
from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.formats import RowError, iter_samples
from ragmetrics_core.formats.loader import IdLedger
from ragmetrics_core.positional import RECORD_SIZE, PositionalColumn
from ragmetrics_core.report.summary import total_usage
from ragmetrics_core.results import Direction, EvaluationResult, MetricScore, Usage
from ragmetrics_core.sample import RagSample
from tests.cli.conftest import write_jsonl

REASONS = ("missing input: reference", "evidence unavailable: judge error", "no claims from the response")


def _scripted(index: int) -> EvaluationResult:
    """Sample ``index``'s result: awkward floats, NaN now and then, undetermined scores for several reasons,
    metrics some samples lack, failed samples, usage with and without a cost."""
    rng = random.Random(index)
    scores = {}
    for metric in ("faithfulness", "overall_f1", "hallucination", "custom"):
        if metric == "custom" and rng.random() < 0.5:
            continue
        draw = rng.random()
        value = None if draw < 0.2 else math.nan if draw < 0.25 else rng.random() * 3 - 1
        scores[metric] = MetricScore(metric=metric, score=value, direction=Direction.HIGHER_IS_BETTER,
                                     reason=rng.choice(REASONS) if value is None else "")
    error = "RuntimeError: boom" if index % 23 == 4 else None
    usage = Usage(calls=2, prompt_tokens=index, latency_s=rng.random() / 7,
                  cost_usd=rng.random() / 1000 if index % 3 else None)
    return EvaluationResult(sample_id=f"s{index}", judge="scripted", scores=scores, usage=usage, error=error)


class ScriptedEvaluator:
    """Returns each sample's scripted result after a random short wait, so results finish out of order."""

    def __init__(self) -> None:
        self.rng = random.Random(5)

    async def aevaluate(self, sample: RagSample) -> EvaluationResult:
        await asyncio.sleep(self.rng.random() / 500)
        return _scripted(int(sample.user_input.removeprefix("question ")))


def _rows(count: int) -> list[dict[str, object]]:
    return [{"id": f"s{index}", "user_input": f"question {index}", "response": "an answer.",
             "retrieved_contexts": ["a context."], "reference": "a reference."} for index in range(count)]


def _same(left: object, right: object) -> bool:
    """Equal, NaN equal to NaN (a report holding a NaN mean is never == another)."""
    return repr(left) == repr(right)


def test_the_summary_of_a_run_is_the_summary_of_its_results_computed_in_memory(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", _rows(400))
    out = tmp_path / "out.jsonl"
    evaluate_file(source, out=out, evaluator=ScriptedEvaluator(), limit=150, concurrency=8, progress=False,
                  keep_results=False)
    run = evaluate_file(source, out=out, evaluator=ScriptedEvaluator(), concurrency=8, progress=False,
                        keep_results=False)  # 150 resumed (their failed ones redone), 250 new
    assert run.resumed > 100 and run.done == 400 and run.report.figures.spill_dir == tmp_path
    in_memory = [_scripted(index) for index in range(400)]
    assert any(math.isnan(result.score("faithfulness") or 0.0) for result in in_memory)
    assert sum(1 for result in in_memory if result.error) == 18
    for mode in AggregationMode:
        run.aggregate_mode = mode
        summary = run.summary()
        assert _same(summary.model_dump(), aggregate(in_memory, mode).model_dump())
        assert math.isnan(summary["faithfulness"].mean or 0.0)  # a NaN score makes the mean NaN, as sum() does
    assert run.usage == total_usage(in_memory) and run.failed == 18
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.jsonl", "out.jsonl"]  # the figures leave no file
    kept = evaluate_file(source, evaluator=ScriptedEvaluator(), concurrency=8, progress=False)
    assert _same(kept.summary().model_dump(), aggregate(in_memory).model_dump())


def _held_bytes(root: object) -> int:
    """Bytes of every object reachable from ``root`` but numbers (one per counter, whatever its value) and code
    (classes, modules, functions: shared)."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack:
        thing = stack.pop()
        if id(thing) in seen or isinstance(thing, int | float | type | types.ModuleType | types.FunctionType):
            continue
        seen.add(id(thing))
        total += sys.getsizeof(thing)
        stack.extend(gc.get_referents(thing))
    return total


@pytest.mark.parametrize("rows", [300, 1200])
def test_a_run_that_keeps_no_results_holds_the_same_figures_after_four_times_the_rows(
    tmp_path: Path, rows: int
) -> None:
    held = {}
    for count in (rows // 4, rows):
        source = write_jsonl(tmp_path / f"in{count}.jsonl", _rows(count))
        run = evaluate_file(source, out=tmp_path / f"out{count}.jsonl", evaluator=ScriptedEvaluator(),
                            concurrency=4, progress=False, keep_results=False)
        run.summary()  # reads the figures back: what is held is what a finished run holds
        assert run.done == count
        held[count] = _held_bytes(run.report.figures)
    # Four times the rows: the same counters, kinds and file handles. A figure kept per row in memory, 9 bytes
    # a metric, would add over 9 * 3 * 3/4 * rows bytes.
    assert held[rows] == held[rows // 4], held


def test_a_spilled_column_holds_at_most_one_chunk_in_memory_and_reads_back_what_was_put(tmp_path: Path) -> None:
    spilled, kept = PositionalColumn(tmp_path), PositionalColumn()
    rng = random.Random(3)
    positions = list(range(30_000))
    for start in range(0, len(positions), 50):  # out of order within windows, as concurrent workers finish
        window = positions[start : start + 50]
        rng.shuffle(window)
        positions[start : start + 50] = window
    skipped = set(rng.sample(positions, 500))  # holes: positions never put read as state 0, value 0.0
    most = 0
    for position in positions:
        if position in skipped:
            continue
        state, value = (2, 0.0) if position % 7 == 0 else (1, rng.random())
        spilled.put(position, state, value)
        kept.put(position, state, value)
        most = max(most, spilled.held)
    spilled.put(positions[10], 1, -0.5)  # put again: the last one stands
    kept.put(positions[10], 1, -0.5)
    assert spilled.spilled and not kept.spilled
    assert most <= 8192 * RECORD_SIZE < kept.held
    assert list(spilled.records()) == list(kept.records())
    records = list(spilled.records())
    assert len(records) == len(spilled) == max(set(range(30_000)) - skipped) + 1
    assert all(records[position] == (0, 0.0) for position in skipped)
    assert records[positions[10]] == (1, -0.5)


@pytest.mark.parametrize("count", [0, 1, 7, 8, 127, 128, 129, 1000, 4099])
def test_the_streamed_pairwise_sum_takes_each_value_once_in_order_and_is_numpys(count: int) -> None:
    rng = random.Random(count)
    values = [rng.uniform(-1e3, 1e3) * 10 ** rng.randint(-8, 8) for _ in range(count)]
    stream = iter([*values, 99.0])
    assert pairwise_sum_of(stream, count) == float(np.add.reduce(np.array(values, dtype=np.float64)))
    assert next(stream) == 99.0  # exactly count values taken


def test_an_empty_spilled_run_makes_no_file(tmp_path: Path) -> None:
    figures = RunningAggregate(spill_dir=tmp_path)
    assert figures.report("ragchecker").metrics == {} and figures.usage == Usage()
    assert list(tmp_path.iterdir()) == []


def _mixed_rows() -> list[dict[str, object] | str]:
    """Explicit ids (some repeated), rows without one (some repeating an earlier row's content), bad rows."""
    rows: list[dict[str, object] | str] = []
    for index in range(60):
        row: dict[str, object] = {"user_input": f"q{index % 7 if index % 2 else index}", "response": "r."}
        if index % 3 == 0:
            row["id"] = f"id{index % 12}"  # repeats from the 5th on
        rows.append(row)
        if index % 11 == 5:
            rows.append("{broken")
    return rows


def _described(rows: list[object]) -> list[tuple[object, ...]]:
    return [("error", row.message, row.line) if isinstance(row, RowError) else ("row", row.id, row.line)
            for row in rows]


def test_a_second_reading_with_the_ledger_settles_every_id_as_the_first_did(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", _mixed_rows())
    ledger = IdLedger()
    first = _described(list(iter_samples(source, ids=ledger)))
    assert first == _described(list(iter_samples(source)))  # the ledger changes nothing on the first reading
    kinds = {kind for kind, *_ in first}
    assert kinds == {"row", "error"} and any("duplicate id" in str(row[1]) for row in first)
    assert any("#2" in str(row[1]) for row in first) and any("#3" in str(row[1]) for row in first)
    assert ledger.repeated and ledger.numbered and len(ledger.repeated) + len(ledger.numbered) < 60
    assert _described(list(iter_samples(source, ids=ledger))) == first
    assert _described(list(iter_samples(source, ids=ledger))) == first  # and again


def _blocks_while_reading(source: Path, ledger: IdLedger, at: tuple[int, int]) -> int:
    """Allocated blocks gained between the reading's rows ``at[0]`` and ``at[1]``."""
    held = []
    for number, _ in enumerate(iter_samples(source, ids=ledger)):
        if number in at:
            gc.collect()
            held.append(sys.getallocatedblocks())
    return held[1] - held[0]


def test_neither_reading_of_a_run_holds_an_id_per_row(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", _rows(6000))
    ledger = IdLedger()
    first = _blocks_while_reading(source, ledger, (1000, 5000))
    second = _blocks_while_reading(source, ledger, (1000, 5000))
    assert first < 400, (first, second)  # the first: a hash a row in one table (tests/cli/test_compact_ids.py)
    assert second < 400, (first, second)  # the replay: nothing per row
