"""``ragmetrics_core.evaluate(data)`` on every dataset shape a ragas user brings, and clear errors otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ragmetrics_core import Evaluator, InputError, RagSample, evaluate, evaluate_file, load_samples

ROWS = [
    {
        "user_input": "When was the Eiffel Tower completed?",
        "retrieved_contexts": ["The Eiffel Tower was completed in 1889.", "Paris is the capital of France."],
        "response": "The Eiffel Tower was completed in 1889.",
        "reference": "It was completed in 1889.",
    },
    {
        "user_input": "What is the capital of France?",
        "retrieved_contexts": ["Paris is the capital of France."],
        "response": "Paris.",
        "reference": "The capital of France is Paris.",
    },
]
OLD_NAMES = [
    {"question": r["user_input"], "contexts": r["retrieved_contexts"], "answer": r["response"],
     "ground_truth": r["reference"]}
    for r in ROWS
]
METRICS = ["faithfulness", "overall_recall"]


class SingleTurnSample:
    """Stands in for ragas' SingleTurnSample (a pydantic model with these fields)."""

    def __init__(self, **fields: Any) -> None:
        self.user_input = fields.get("user_input")
        self._fields = fields

    def model_dump(self) -> dict[str, Any]:
        return {"retrieved_contexts": None, "rubrics": None, **self._fields}


class EvaluationDataset:
    """Stands in for ragas' EvaluationDataset: a list of samples under ``samples``."""

    def __init__(self, samples: list[SingleTurnSample]) -> None:
        self.samples = samples

    def __iter__(self) -> Any:
        return iter(self.samples)


def _inputs(tmp_path: Path) -> dict[str, Any]:
    datasets = pytest.importorskip("datasets")
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in ROWS), encoding="utf-8")
    samples = [SingleTurnSample(**row) for row in ROWS]
    return {
        "DataFrame": pd.DataFrame(ROWS),
        "DataFrame, old ragas names": pd.DataFrame(OLD_NAMES),
        "datasets.Dataset": datasets.Dataset.from_list(ROWS),
        "EvaluationDataset": EvaluationDataset(samples),
        "list of SingleTurnSample": samples,
        "list of dicts": ROWS,
        "list of RagSample": [RagSample(**row) for row in ROWS],
        "path": path,
        "path as str": str(path),
    }


def test_evaluate_takes_every_dataset_shape_and_scores_them_alike(tmp_path: Path) -> None:
    expected = [result.values() for result in Evaluator(metrics=METRICS).evaluate_many([RagSample(**r) for r in ROWS])]
    assert expected[1]["overall_recall"] == pytest.approx(1.0)  # "Paris." is read with its question
    for name, data in _inputs(tmp_path).items():
        run = evaluate(data, metrics=METRICS, progress=False)
        assert [result.values() for result in run.results] == expected, name
        frame = run.to_pandas()
        assert list(frame["faithfulness"]) == [values["faithfulness"] for values in expected], name
        assert set(run.summary().metrics) == set(METRICS), name


def test_load_samples_and_evaluate_file_read_a_dataframe_too() -> None:
    assert [s.response for s in load_samples(pd.DataFrame(OLD_NAMES))] == [r["response"] for r in ROWS]
    assert len(evaluate_file(pd.DataFrame(ROWS), metrics=METRICS, progress=False).results) == 2


@pytest.mark.parametrize("data", [42, {"user_input": "q", "response": "a"}, b"bytes", 3.5])
def test_an_unsupported_type_raises_a_type_error_saying_what_is_accepted(data: object) -> None:
    with pytest.raises(TypeError, match=r"pandas DataFrame.*datasets\.Dataset.*EvaluationDataset"):
        evaluate(data)


def test_evaluate_many_refuses_a_dataframe_instead_of_scoring_its_column_names() -> None:
    with pytest.raises(TypeError, match=r"evaluate_many takes RagSample objects.*ragmetrics_core.evaluate"):
        Evaluator().evaluate_many(pd.DataFrame(ROWS))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="an item of type dict"):
        Evaluator().evaluate_many(ROWS)  # type: ignore[arg-type]


def test_a_bad_row_raises_before_anything_is_judged_unless_skipped() -> None:
    rows = [*ROWS, {"user_input": "q", "retrieved_contexts": ["c"]}]  # no response
    with pytest.raises(InputError, match=r"<list>: row 3: field .response.: no response column"):
        evaluate(rows, metrics=METRICS)
    run = evaluate(rows, metrics=METRICS, skip_bad_rows=True, progress=False)
    assert len(run.results) == 2 and len(run.errors) == 1


@pytest.mark.parametrize("content", ["", "\n\n"])
def test_data_without_a_row_fails_clearly_as_the_cli_does(tmp_path: Path, content: str) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=r"empty\.jsonl: no samples to evaluate \(the input is empty"):
        evaluate(path)
    with pytest.raises(InputError, match=r"^<DataFrame>: no samples to evaluate"):
        evaluate(pd.DataFrame(columns=["user_input", "response"]))
    with pytest.raises(InputError, match=r"^<list>: no samples to evaluate"):
        evaluate([])
    # Rows that were all bad and skipped on request are not "no rows": the run says what it skipped.
    run = evaluate([{"user_input": "q"}], skip_bad_rows=True, progress=False)
    assert run.total == 0 and len(run.errors) == 1


RAGAS_CSV = (
    "question,contexts,answer,ground_truth\n"
    '"When was the Eiffel Tower completed?","[""The Eiffel Tower was completed in 1889."", ""Paris is in France.""]",'
    '"It was completed in 1889.","The Eiffel Tower was completed in 1889."\n'
    "\"What is the capital of France?\",\"['Paris is the capital of France.', 'Lyon is a city.']\",\"Paris.\",\n"
    '"Who wrote Hamlet?",Hamlet is a play by Shakespeare.,"Shakespeare.","Shakespeare wrote Hamlet."\n'
)


def test_a_csv_read_by_pandas_gives_the_samples_the_cli_reads_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "ragas.csv"
    path.write_text(RAGAS_CSV, encoding="utf-8")
    from_file = load_samples(path)  # what `ragmetrics evaluate ragas.csv` reads
    from_frame = load_samples(pd.read_csv(path))
    assert [s.context_texts for s in from_frame] == [
        ["The Eiffel Tower was completed in 1889.", "Paris is in France."],  # a JSON array
        ["Paris is the capital of France.", "Lyon is a city."],  # a Python list literal, as pandas writes one
        ["Hamlet is a play by Shakespeare."],  # plain text: one context
    ]
    assert from_frame[1].reference is None  # an empty cell (NaN in the frame) is no reference
    assert [s.model_dump() for s in from_frame] == [s.model_dump() for s in from_file]
    run = evaluate(pd.read_csv(path), metrics=METRICS, progress=False)
    assert [r.values() for r in run.results] == [r.values() for r in evaluate(path, metrics=METRICS).results]


def test_an_id_column_with_a_gap_gives_the_ids_the_cli_reads(tmp_path: Path) -> None:
    # pandas reads a number column with an empty cell as floats (7.0, NaN, 9.0): the ids stay 7 and 9, as in the file
    path = tmp_path / "ids.csv"
    path.write_text("id,user_input,response\n7,q1,a1\n,q2,a2\n9,q3,a3\n", encoding="utf-8")
    from_file = [sample.id for sample in load_samples(path)]
    from_frame = [sample.id for sample in load_samples(pd.read_csv(path))]
    assert from_frame == from_file
    assert [from_file[0], from_file[2]] == ["7", "9"]  # the row without an id gets its content hash in both
    with pytest.raises(InputError, match=r"row 1: field 'id': expected a string or integer id, got number 7\.5"):
        load_samples(pd.DataFrame({"id": [7.5], "user_input": ["q"], "response": ["a"]}))


def test_metrics_given_as_one_string_is_a_clear_type_error() -> None:
    # a str is a Sequence[str]: without the check it would be read letter by letter ("unknown metric(s) f, a, i")
    with pytest.raises(TypeError, match=r"a list of metric ids, e\.g\. metrics=\['faithfulness'\], not a string"):
        evaluate(ROWS, metrics="faithfulness", progress=False)
    with pytest.raises(TypeError, match="not a string"):
        Evaluator(metrics="faithfulness")


def test_a_bad_cell_is_named_by_the_same_row_from_the_file_and_from_the_frame(tmp_path: Path) -> None:
    path = tmp_path / "ragas.csv"
    path.write_text(RAGAS_CSV + '"Q4","[unclosed","A4","G4"\n', encoding="utf-8")
    with pytest.raises(InputError) as from_file:
        load_samples(path)
    with pytest.raises(InputError) as from_frame:
        load_samples(pd.read_csv(path))
    problem = "field 'contexts': expected a list of contexts as a JSON array or a Python list literal"
    assert str(from_file.value) == f"{path}:5 (row 4): {problem}"  # line 5 of the file, its 4th row under the header
    assert str(from_frame.value) == f"<DataFrame>: row 4: {problem}"  # df.iloc[3]


def test_a_frame_that_repeats_a_column_is_refused_naming_it() -> None:
    frame = pd.DataFrame([["q", "first answer", "second answer"]], columns=["user_input", "response", "response"])
    with pytest.raises(InputError, match=r"<DataFrame>: the header repeats column 'response'; name each once"):
        evaluate(frame)


@pytest.mark.parametrize("missing", [None, float("nan"), pd.NaT, pd.NA])
def test_an_empty_response_cell_is_a_missing_response_in_its_row(missing: object) -> None:
    frame = pd.DataFrame({"user_input": ["q1", "q2"], "response": ["An answer.", missing], "reference": ["r", "r"]},
                         dtype=object)
    empty_cell = r"^<DataFrame>: row 2: field 'response': missing response \(the cell is empty\)$"
    with pytest.raises(InputError, match=empty_cell):
        evaluate(frame)
    rows = [{"user_input": "q", "response": "An answer."}, {"user_input": "q", "response": missing}]
    with pytest.raises(InputError, match=r"^<list>: row 2: field 'response': missing response \(null\)$"):
        evaluate(rows)


def test_nat_is_a_missing_value_like_nan() -> None:
    frame = pd.DataFrame({
        "user_input": ["q1", "q2"],
        "retrieved_contexts": [["Paris is the capital of France."], pd.NaT],
        "response": ["Paris is the capital of France.", "Paris."],
        "reference": [pd.NaT, float("nan")],
        "checked_at": [pd.NaT, pd.Timestamp("2026-01-02")],
    }, dtype=object)
    samples = load_samples(frame)
    assert [s.reference for s in samples] == [None, None]
    assert [s.context_texts for s in samples] == [["Paris is the capital of France."], []]
    assert "checked_at" not in samples[0].metadata and "checked_at" in samples[1].metadata
