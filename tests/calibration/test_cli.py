"""``ragmetrics calibrate`` and ``ragmetrics evaluate --calibration``, run as the user runs them (subprocess, the
embedded judge), on labelled rows whose scores the judge gives at three levels."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from subprocess import CompletedProcess
from typing import Any

import pytest

from ragmetrics_core.calibration import Calibration
from tests.calibration.conftest import make_calibration

RunCli = Callable[..., CompletedProcess[str]]
STREETS = ["Oak", "Elm", "Pine", "Maple", "Cedar", "Birch", "Willow", "Ash", "Cherry", "Walnut"]


def labelled_rows(per_kind: int = 30, *, label: Callable[[str, int], object] | None = None) -> list[dict[str, Any]]:
    """Per street a copied answer (the judge scores 1.0; labelled yes but every tenth), one with a wrong hour (0.21;
    yes one time in ten) and one with an unsupported second sentence (0.5; yes three times in ten)."""
    rows: list[dict[str, Any]] = []
    for index in range(per_kind):
        street, hour = f"{STREETS[index % 10]} {index}", 6 + index % 5
        context = f"The shop on {street} Street opens at {hour} o'clock and sells bread."
        answers = {
            "copied": (f"The shop on {street} Street opens at {hour} o'clock.", index % 10 != 0),
            "wrong": (f"The shop on {street} Street opens at {hour + 3} o'clock and sells cars.", index % 10 == 0),
            "invented": (f"The shop on {street} Street sells bread. It was founded by pirates.", index % 10 < 3),
        }
        for kind, (response, yes) in answers.items():
            rows.append({
                "id": f"{kind}-{index}", "question": "When does the shop open?", "contexts": [context],
                "answer": response, "faithful": label(kind, index) if label else ("yes" if yes else "no"),
            })
    return rows


def write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_calibrate_then_evaluate_with_the_calibration(tmp_path: Path, run_cli: RunCli) -> None:
    rows = labelled_rows()
    rows += [{"id": f"empty-{i}", "question": "q", "contexts": [], "answer": "An answer.", "faithful": "yes"}
             for i in range(3)]  # no contexts: faithfulness undetermined, skipped and counted
    rows += [{"id": f"unlabelled-{i}", "question": "q", "contexts": ["c"], "answer": "c."} for i in range(2)]
    source = write(tmp_path / "labelled.jsonl", rows)
    done = run_cli("calibrate", str(source), "-o", "calibration.json", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "label column 'faithful': 93 labelled of 95 samples (2 unlabelled, 0 failed" in done.stdout
    assert "Brier raw → calibrated" in done.stdout and "calibration: calibration.json" in done.stdout
    calibration = Calibration.load(tmp_path / "calibration.json")
    entry = calibration.metrics["faithfulness"]
    assert calibration.judge == "embedded" and calibration.label == "faithful" and calibration.scoring == "graded"
    assert entry.n == 90 and entry.undetermined == 3 and entry.positives == 27 + 3 + 9
    assert calibration.fitted_on is not None and calibration.fitted_on.unlabelled == 2
    copied, invented, wrong = (calibration.probability("faithfulness", s) for s in (1.0, 0.5, 0.2084))
    assert copied is not None and invented is not None and wrong is not None
    assert 0.7 < copied <= 1.0 and wrong < invented < copied and wrong < 0.35
    assert entry.calibrated.brier[0] < entry.raw.brier[0]  # the raw 0.21 and 0.5 overstate their share of yes

    new = write(tmp_path / "new.jsonl", labelled_rows(2))
    scored = run_cli("evaluate", str(new), "--metrics", "faithfulness,context_utilization", "--calibration",
                     "calibration.json", "-o", "out.jsonl", "--no-progress")
    assert scored.returncode == 0, scored.stderr
    results = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    by_id = {row["sample_id"]: row["scores"] for row in results}
    for row in by_id.values():
        faithfulness = row["faithfulness"]
        assert faithfulness["probability"] == calibration.probability("faithfulness", faithfulness["score"])
    assert by_id["copied-1"]["faithfulness"]["probability"] == pytest.approx(copied)
    assert by_id["wrong-1"]["faithfulness"]["probability"] < 0.35
    assert "probability" not in by_id["copied-1"]["context_utilization"]


def test_scores_already_in_a_results_file_are_not_judged_again(tmp_path: Path, run_cli: RunCli) -> None:
    source = write(tmp_path / "labelled.jsonl", labelled_rows(20))
    scored = run_cli("evaluate", str(source), "--metrics", "faithfulness", "-o", "scores.jsonl", "--no-progress")
    assert scored.returncode == 0, scored.stderr
    before = (tmp_path / "scores.jsonl").read_text(encoding="utf-8")
    done = run_cli("calibrate", str(source), "--results", "scores.jsonl", "-o", "c.json", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "scores.jsonl").read_text(encoding="utf-8") == before  # every row resumed, none appended
    assert Calibration.load(tmp_path / "c.json").metrics["faithfulness"].n == 60


@pytest.mark.parametrize("results", ["scores.jsonl", "scores.csv"])
def test_scores_of_every_metric_from_evaluate_calibrate_one_as_documented(
    tmp_path: Path, run_cli: RunCli, results: str
) -> None:
    # calibration.md: `ragmetrics evaluate labelled.jsonl -o scores.jsonl`, then `calibrate --results scores.jsonl`;
    # evaluate scored all fifteen metrics, calibrate asks for faithfulness: the rows hold it, nothing is judged
    source = write(tmp_path / "labelled.jsonl", labelled_rows(20))
    scored = run_cli("evaluate", str(source), "-o", results, "--no-progress")
    assert scored.returncode == 0, scored.stderr
    before = (tmp_path / results).read_bytes()
    done = run_cli("calibrate", str(source), "--results", results, "-o", "c.json", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / results).read_bytes() == before
    assert Calibration.load(tmp_path / "c.json").metrics["faithfulness"].n == 60


@pytest.mark.parametrize(
    ("rows", "extra", "message"),
    [
        (labelled_rows(10), (), r"faithfulness: 30 labelled samples with a determined score; .* at least 50"),
        (labelled_rows(30, label=lambda kind, index: "yes"), (), "all 90 labels are yes"),
        (labelled_rows(30, label=lambda kind, index: "maybe" if index == 4 else "no"), (),
         r"labels that are not yes/no: sample copied-4: faithful expected .*'maybe'"),
        (labelled_rows(30), ("--label", "verdict"), "none of the 90 samples has a label \\(verdict\\)"),
        (labelled_rows(30), ("--metrics", "faithfulness,nope"), "unknown metric"),
    ],
)
def test_data_that_cannot_be_calibrated_is_a_usage_error_naming_why(
    tmp_path: Path, run_cli: RunCli, rows: list[dict[str, Any]], extra: tuple[str, ...], message: str
) -> None:
    source = write(tmp_path / "labelled.jsonl", rows)
    done = run_cli("calibrate", str(source), "-o", "c.json", "--no-progress", *extra)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("ragmetrics: error: ") and re.search(message, done.stderr)
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize(("out", "clash"), [("labelled.jsonl", "the labelled file"), ("scores.jsonl", "the --results")])
def test_calibration_written_over_its_own_input_is_refused(
    tmp_path: Path, run_cli: RunCli, out: str, clash: str
) -> None:
    source = write(tmp_path / "labelled.jsonl", labelled_rows(20))
    done = run_cli("calibrate", str(source), "--results", "scores.jsonl", "-o", out, "--no-progress")
    assert done.returncode == 2 and f"--out {out} is {clash}" in done.stderr
    assert source.read_text(encoding="utf-8") == "".join(json.dumps(row) + "\n" for row in labelled_rows(20))
    assert not (tmp_path / "scores.jsonl").exists()  # refused before any sample was judged


def test_evaluate_refuses_a_calibration_it_cannot_use(tmp_path: Path, run_cli: RunCli) -> None:
    source = write(tmp_path / "in.jsonl", labelled_rows(1))
    future = json.loads(make_calibration(judge="embedded").to_json())
    future["version"] = 7
    (tmp_path / "future.json").write_text(json.dumps(future), encoding="utf-8")
    make_calibration(judge="openai:gpt-4o-mini").save(tmp_path / "other.json")
    for path, message in [
        ("future.json", "version 7 was written by a newer ragmetrics"),
        ("other.json", "fitted on judge 'openai:gpt-4o-mini', not the embedded judge"),
        ("missing.json", "cannot read the calibration file"),
    ]:
        done = run_cli("evaluate", str(source), "--calibration", path, "--no-progress")
        assert done.returncode == 2 and message in done.stderr, done.stderr


def test_a_csv_file_with_pass_fail_labels_and_a_csv_results_cache(tmp_path: Path, run_cli: RunCli) -> None:
    import csv

    source = tmp_path / "labelled.csv"
    with source.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "question", "contexts", "answer", "verdict"])
        for row in labelled_rows(20):
            writer.writerow([row["id"], row["question"], json.dumps(row["contexts"]), row["answer"],
                             "PASS" if row["faithful"] == "yes" else "fail"])
    done = run_cli("calibrate", str(source), "--label", "verdict", "--results", "scores.csv", "-o", "c.json",
                   "--no-progress")
    assert done.returncode == 0, done.stderr
    calibration = Calibration.load(tmp_path / "c.json")
    assert calibration.label == "verdict" and calibration.metrics["faithfulness"].n == 60
    assert calibration.metrics["faithfulness"].positives == 18 + 2 + 6
    assert (tmp_path / "scores.csv").read_text(encoding="utf-8").count("\n") == 61  # the header and 60 rows
