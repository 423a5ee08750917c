"""``ragmetrics`` run as a subprocess on real files, malformed ones included, with the default judge."""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import time
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from ragmetrics_core.metrics import METRICS
from tests.cli.conftest import RunCli, cli_command, cli_env, good_row, read_jsonl, write_jsonl


def _table(stdout: str) -> dict[str, list[str]]:
    """The summary table's rows by metric id: [mean, count, undetermined, arrow...]."""
    rows: dict[str, list[str]] = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) >= 5 and parts[0] in METRICS:
            rows[parts[0]] = parts[1:]
    return rows


def test_console_script_points_at_main() -> None:
    [script] = [ep for ep in entry_points(group="console_scripts") if ep.name == "ragmetrics"]
    assert script.value == "ragmetrics_core.cli:main"


def test_evaluate_jsonl_writes_results_report_and_summary(tmp_path: Path, run_cli: RunCli) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(4)])
    done = run_cli("evaluate", "in.jsonl", "--out", "out.jsonl", "--report", "report.html")
    assert done.returncode == 0, done.stderr
    rows = read_jsonl(tmp_path / "out.jsonl")
    assert len(rows) == 4 and all(row["judge"] == "embedded" and len(row["scores"]) == 15 for row in rows)
    assert all(row["scores"]["faithfulness"]["reason"] is not None for row in rows)
    table = _table(done.stdout)
    assert set(table) >= {"overall_precision", "faithfulness", "hallucination", "response_relevancy"}
    assert table["faithfulness"][1] == "4"  # count
    assert "↓" in " ".join(table["hallucination"])
    assert "judge usage: 0 LLM calls" in done.stdout and "estimated cost: $0" in done.stdout
    assert "4 samples: 4 evaluated, 0 resumed, 0 failed; errors: 0 bad input rows skipped" in done.stdout
    html = (tmp_path / "report.html").read_text("utf-8")
    assert html.count("<details class='sample'") == 4
    # piped stderr: no progress bar
    assert "sample/s" not in done.stderr and "%|" not in done.stderr


def test_malformed_rows_are_reported_and_skipped_and_the_rest_is_scored(tmp_path: Path, run_cli: RunCli) -> None:
    write_jsonl(
        tmp_path / "in.jsonl",
        [
            good_row(1),
            '{"user_input": "q", "response": ',
            {**good_row(2), "response": 7},
            good_row(3),
            {**good_row(4), "retrieved_contexts": {"text": "x"}},
        ],
    )
    done = run_cli("evaluate", "in.jsonl", "--out", "out.jsonl", "--metrics", "faithfulness,hallucination")
    assert done.returncode == 1, done.stderr
    assert "skipped bad row: in.jsonl:2: not valid JSON" in done.stderr
    assert "skipped bad row: in.jsonl:3: field 'response': expected a string (response), got number 7" in done.stderr
    assert "in.jsonl:5: field 'retrieved_contexts': expected a list of contexts, got an object" in done.stderr
    assert "errors: 3 bad input rows skipped" in done.stdout
    rows = read_jsonl(tmp_path / "out.jsonl")
    assert [row["input_line"] for row in rows] == [1, 4]
    assert set(rows[0]["scores"]) == {"faithfulness", "hallucination"}


def test_csv_in_with_column_mapping_and_csv_out(tmp_path: Path, run_cli: RunCli) -> None:
    with (tmp_path / "in.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["prompt", "docs", "output", "gold"])
        for i in range(3):
            row = good_row(i)
            writer.writerow(
                [row["user_input"], json.dumps(row["retrieved_contexts"]), row["response"], row["reference"]]
            )
        writer.writerow(["q", "[not a list", "a", "r"])
    done = run_cli(
        "evaluate",
        "in.csv",
        "--column",
        "user_input=prompt",
        "--column",
        "retrieved_contexts=docs",
        "--column",
        "reference=gold",
        "--out",
        "out.csv",
        "--metrics",
        "overall_precision,claim_recall",
    )
    assert done.returncode == 1
    assert "in.csv:5 (row 4): field 'docs': expected a list of contexts as a JSON array" in done.stderr
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 3
    assert all(float(row["claim_recall"]) == 1.0 for row in rows)
    assert rows[0]["user_input"] == "What is fact 0?" and rows[0]["judge"] == "embedded"


def test_stdin_input(tmp_path: Path, run_cli: RunCli) -> None:
    text = "\n".join(json.dumps(good_row(i)) for i in range(2)) + "\n"
    done = run_cli("evaluate", "-", "--out", "out.jsonl", "--metrics", "faithfulness", input=text)
    assert done.returncode == 0, done.stderr
    assert len(read_jsonl(tmp_path / "out.jsonl")) == 2


def test_stdin_json_array_and_ragchecker_by_content(tmp_path: Path, run_cli: RunCli, ragchecker_dir: Path) -> None:
    array = json.dumps([good_row(1), good_row(2)], indent=2)
    done = run_cli("evaluate", "-", "--metrics", "faithfulness", input=array)
    assert done.returncode == 0, done.stderr
    assert "2 samples: 2 evaluated" in done.stdout
    checked = (ragchecker_dir / "checking_outputs.json").read_text("utf-8")
    done = run_cli("evaluate", "-", input=checked)
    assert done.returncode == 0, done.stderr
    assert _table(done.stdout)["overall_f1"][0] == "0.683"
    csv_text = 'user_input,retrieved_contexts,response\nq,"[""The sky is blue.""]",The sky is blue.\n'
    done = run_cli("evaluate", "-", "--format", "csv", "--metrics", "faithfulness", input=csv_text)
    assert done.returncode == 0 and "1 sample: 1 evaluated" in done.stdout, done.stderr
    # the help says what standard input may hold, as the three runs above feed it (it once said "JSONL" only)
    helped = " ".join(run_cli("evaluate", "--help").stdout.split())
    assert "- for standard input (JSON lines or a JSON document, told apart by content; --format csv for CSV)" in helped
    assert "--progress always show a progress bar (default: only when stderr is a terminal)" in helped


def test_ragchecker_example_reproduces_its_figures(tmp_path: Path, run_cli: RunCli, ragchecker_dir: Path) -> None:
    source = str(ragchecker_dir / "checking_outputs.json")
    done = run_cli("evaluate", source, "--format", "ragchecker", "--out", "rc.jsonl")
    assert done.returncode == 0, done.stderr
    means = {metric: values[0] for metric, values in _table(done.stdout).items()}
    assert means == {
        "overall_precision": "0.764",
        "overall_recall": "0.625",
        "overall_f1": "0.683",
        "claim_recall": "0.614",
        "chunk_precision": "0.875",
        "context_utilization": "0.875",
        "noise_sensitivity_relevant": "0.191",
        "noise_sensitivity_irrelevant": "0.000",
        "hallucination": "0.045",
        "self_knowledge": "0.273",
        "faithfulness": "0.682",
    }


def test_report_subcommand_rebuilds_the_report_from_results(tmp_path: Path, run_cli: RunCli) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(2)])
    assert run_cli("evaluate", "in.jsonl", "--out", "out.jsonl").returncode == 0
    done = run_cli("report", "out.jsonl", "-o", "again.html", "--title", "<b>t</b>")
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "again.html").read_text("utf-8")
    assert "&lt;b&gt;t&lt;/b&gt;" in html and html.count("<details class='sample'") == 2
    assert "What is fact 1?" in html  # the samples' texts come from the results file


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["evaluate", "missing.jsonl"], "missing.jsonl: cannot open"),
        (["evaluate", "in.jsonl", "--metrics", "faithfulness,bogus"], "unknown metric(s) bogus"),
        (["evaluate", "in.jsonl", "--concurrency", "0"], "concurrency must be at least 1"),
        (["evaluate", "in.jsonl", "--column", "answer"], "FIELD=COLUMN"),
        (["evaluate", "in.jsonl", "--price", "1"], "--price takes two numbers"),
        (["evaluate", "in.jsonl", "--judge", "openai"], "RAGMETRICS_JUDGE_MODEL"),
        (["report", "nothing.jsonl", "-o", "r.html"], "nothing.jsonl: cannot open: No such file or directory"),
        (["evaluate", "in.jsonl", "--retry-failed"], "needs the results file"),
    ],
)
def test_usage_errors_exit_2_with_a_clear_message(
    tmp_path: Path, run_cli: RunCli, args: list[str], message: str
) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(1)])
    done = run_cli(*args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_metrics_subcommand_lists_every_metric_with_its_direction(run_cli: RunCli) -> None:
    done = run_cli("metrics")
    lines = done.stdout.strip().splitlines()
    assert done.returncode == 0 and len(lines) == 15
    assert any(line.startswith("hallucination") and "lower_is_better" in line for line in lines)


def test_forced_progress_bar_shows_rate_and_eta(tmp_path: Path, run_cli: RunCli) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(3)])
    done = run_cli("evaluate", "in.jsonl", "--progress", "--metrics", "faithfulness")
    assert done.returncode == 0
    assert "3/3" in done.stderr and "sample/s" in done.stderr and "<" in done.stderr


def test_ctrl_c_leaves_valid_partial_output_and_a_rerun_resumes(tmp_path: Path) -> None:
    total = 5000
    write_jsonl(tmp_path / "in.jsonl", [good_row(i) for i in range(total)])
    command = cli_command(
        "evaluate", "in.jsonl", "--out", "out.jsonl", "--report", "partial.html", "--concurrency", "2"
    )
    process = subprocess.Popen(
        command, cwd=tmp_path, env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out = tmp_path / "out.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not out.exists() or out.read_text("utf-8").count("\n") < 5):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    rows = read_jsonl(out)  # every line is complete JSON
    done = len(rows)
    assert 5 <= done < total
    assert f"{done} samples: {done} evaluated" in stdout
    assert (tmp_path / "partial.html").read_text("utf-8").count("<details class='sample'") == done

    rerun = subprocess.run(
        cli_command("evaluate", "in.jsonl", "--out", "out.jsonl", "--limit", str(done + 10)),
        cwd=tmp_path,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert rerun.returncode == 0, rerun.stderr
    assert f"{done + 10} samples: 10 evaluated, {done} resumed, 0 failed" in rerun.stdout
    rows = read_jsonl(out)
    assert len(rows) == done + 10 == len({row["sample_id"] for row in rows})


def test_scoring_option_chooses_graded_or_binary_scores(tmp_path: Path, run_cli: RunCli) -> None:
    # "The Eiffel Tower is 330 metres tall": one chunk says "The tower is 330 metres tall", another names the
    # tower, so the claim is supported jointly but not verbatim: binary counts it fully, graded in part.
    write_jsonl(tmp_path / "in.jsonl", [{
        "user_input": "How tall is the Eiffel Tower?",
        "response": "The Eiffel Tower is 330 metres tall.",
        "reference": "The Eiffel Tower is 330 metres tall.",
        "retrieved_contexts": ["The Eiffel Tower is a wrought-iron tower in Paris.",
                               "The tower is 330 metres tall, about the height of an 81-storey building."],
    }])
    scores: dict[str, float] = {}
    for scoring in ("graded", "binary"):
        done = run_cli("evaluate", "in.jsonl", "--out", f"{scoring}.jsonl", "--metrics", "context_recall",
                       "--scoring", scoring)
        assert done.returncode == 0, done.stderr
        [row] = read_jsonl(tmp_path / f"{scoring}.jsonl")
        scores[scoring] = row["scores"]["context_recall"]["score"]
    assert scores["binary"] == 1.0
    assert 0.5 <= scores["graded"] < 1.0
    assert run_cli("evaluate", "in.jsonl", "--scoring", "fuzzy").returncode == 2


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("empty.jsonl", ""),
        ("blank.jsonl", "\n\n"),
        ("header_only.csv", "user_input,response,retrieved_contexts\n"),
        ("empty.json", ""),
        ("blank.json", " \r\n\n"),
    ],
)
def test_an_input_without_samples_exits_non_zero_with_one_line(
    tmp_path: Path, run_cli: RunCli, name: str, content: str
) -> None:
    (tmp_path / name).write_text(content, encoding="utf-8")
    done = run_cli("evaluate", name)
    assert done.returncode == 2
    assert done.stdout == ""
    [line] = done.stderr.strip().splitlines()
    assert name in line and "no samples" in line


@pytest.mark.parametrize("option", ["--out", "--report"])
@pytest.mark.parametrize("where", ["a directory", "below a file"])
def test_an_output_that_cannot_be_written_fails_before_any_sample_is_judged(
    tmp_path: Path, run_cli: RunCli, option: str, where: str
) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(0)])
    (tmp_path / "results").mkdir()
    target = "results" if where == "a directory" else "in.jsonl/out.jsonl"
    done = run_cli("evaluate", "in.jsonl", option, target)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"ragmetrics: error: {option} {target}: cannot write")
    assert ("Is a directory" if where == "a directory" else "Not a directory") in line
    assert done.stdout == ""  # refused up front: no summary, nothing judged
    assert sorted(path.name for path in tmp_path.iterdir()) == ["in.jsonl", "results"]


@pytest.mark.parametrize("out", ["out.jsonl", "out.csv"])
def test_a_resume_asking_for_metrics_the_results_lack_is_refused_naming_them(
    tmp_path: Path, run_cli: RunCli, out: str
) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(0), good_row(1)])
    assert run_cli("evaluate", "in.jsonl", "--out", out, "--metrics", "faithfulness,context_recall").returncode == 0
    before = (tmp_path / out).read_bytes()
    done = run_cli("evaluate", "in.jsonl", "--out", out, "--metrics", "faithfulness,hallucination")
    assert done.returncode == 2 and done.stdout == ""  # not a summary that silently leaves hallucination out
    [line] = done.stderr.strip().splitlines()
    assert f"{out}:" in line
    assert "hold no hallucination (written with other metrics: faithfulness, context_recall)" in line
    assert line.endswith("resume with those metrics or write to a new --out")
    assert (tmp_path / out).read_bytes() == before
    again = run_cli("evaluate", "in.jsonl", "--out", out, "--metrics", "faithfulness")
    if out.endswith(".jsonl"):  # fewer metrics than the rows hold: every sample is there with the one asked for
        assert again.returncode == 0, again.stderr
        assert "0 evaluated, 2 resumed" in again.stdout
    else:  # a CSV header has a column per metric: its rows and this run's would not line up
        assert again.returncode == 2 and "different columns" in again.stderr
    assert (tmp_path / out).read_bytes() == before


def test_a_file_in_another_encoding_is_scored_with_a_warning_naming_its_first_bad_line(
    tmp_path: Path, run_cli: RunCli
) -> None:
    text = "user_input,retrieved_contexts,response\nq,Tea is hot.,Tea is hot.\n"
    text += "q,Le café est ouvert.,Le café est ouvert.\n"
    (tmp_path / "excel.csv").write_bytes(text.encode("cp1252"))  # Excel's "CSV (Comma delimited)"
    done = run_cli("evaluate", "excel.csv", "--metrics", "faithfulness")
    assert done.returncode == 0, done.stderr
    assert "2 samples: 2 evaluated" in done.stdout  # read and scored, as before ...
    [line] = done.stderr.strip().splitlines()  # ... and said once, not per reading or per row
    assert line.startswith("ragmetrics: warning: excel.csv:3: not valid UTF-8") and "U+FFFD" in line
    (tmp_path / "excel.xlsx").write_bytes(b"PK\x03\x04\xff\xfe")  # refused by its extension: that error alone
    done = run_cli("evaluate", "excel.xlsx")
    assert done.returncode == 2 and "warning" not in done.stderr and "cannot tell the format" in done.stderr
    (tmp_path / "utf8.csv").write_text(text.replace("café", "кафе 咖啡"), encoding="utf-8")
    done = run_cli("evaluate", "utf8.csv", "--metrics", "faithfulness")
    assert done.returncode == 0 and done.stderr == ""


@pytest.mark.parametrize(
    ("args", "clash"),
    [
        (["evaluate", "in.jsonl", "--report", "in.jsonl"], "--report in.jsonl is the input file"),
        (["evaluate", "in.jsonl", "--report", "./in.jsonl", "--out", "x.jsonl"], "--report ./in.jsonl is the input"),
        (["evaluate", "in.jsonl", "--out", "done.jsonl", "--report", "done.jsonl"], "--report done.jsonl is the --out"),
        (["evaluate", "in.jsonl", "--out", "in.jsonl"], "--out in.jsonl is the input file"),
        (["report", "done.jsonl", "-o", "done.jsonl"], "--out done.jsonl is the results file"),
    ],
)
def test_an_output_that_is_an_input_is_refused_before_it_is_overwritten(
    tmp_path: Path, run_cli: RunCli, args: list[str], clash: str
) -> None:
    # a slip of the flag (--report where --out was meant) must not replace the data with an HTML page
    write_jsonl(tmp_path / "in.jsonl", [good_row(0)])
    assert run_cli("evaluate", "in.jsonl", "--out", "done.jsonl").returncode == 0
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    done = run_cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert f"ragmetrics: error: {clash}" in done.stderr
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


def test_report_to_a_path_that_cannot_be_written_is_an_error_without_traceback(
    tmp_path: Path, run_cli: RunCli
) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(0)])
    assert run_cli("evaluate", "in.jsonl", "--out", "out.jsonl").returncode == 0
    (tmp_path / "taken").mkdir()
    done = run_cli("report", "out.jsonl", "-o", "taken")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "ragmetrics: error:" in done.stderr and "taken" in done.stderr


@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize("args", [("metrics",), ("evaluate", "in.jsonl"), ("--help",), ("evaluate", "--help")])
def test_a_reader_that_goes_away_gets_no_traceback(tmp_path: Path, args: tuple[str, ...], buffered: bool) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(0)])
    env = cli_env()
    env.pop("PYTHONUNBUFFERED", None)
    if not buffered:
        env["PYTHONUNBUFFERED"] = "1"
    process = subprocess.Popen(
        cli_command(*args), cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # gone before the first line is written, as `| head -5` is after its fifth
    stderr = process.stderr.read()
    code = process.wait(timeout=120)
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr and "Exception ignored" not in stderr
    if "--help" in args and not buffered:
        assert code == 0  # argparse itself ignores a failed write of the help text and exits 0
    else:
        assert code == 141, stderr  # 128 + SIGPIPE, as a shell reports a closed pipe


@pytest.mark.parametrize("out", ["out.jsonl", "out.csv"])
def test_a_failing_run_leaves_no_empty_output_file_and_keeps_an_earlier_one(
    tmp_path: Path, run_cli: RunCli, out: str
) -> None:
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    claims = tmp_path / out.replace(".csv", ".claims.csv")
    done = run_cli("evaluate", "empty.jsonl", "--out", out)
    assert done.returncode == 2 and "no samples" in done.stderr
    assert not (tmp_path / out).exists() and not claims.exists()
    # An earlier run's results are never removed, whatever this run does.
    write_jsonl(tmp_path / "in.jsonl", [good_row(0)])
    assert run_cli("evaluate", "in.jsonl", "--out", out).returncode == 0
    before = (tmp_path / out).read_bytes()
    assert run_cli("evaluate", "empty.jsonl", "--out", out).returncode == 2
    assert (tmp_path / out).read_bytes() == before


def test_retry_failed_says_how_many_new_samples_it_left(tmp_path: Path, run_cli: RunCli) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(0)])
    assert run_cli("evaluate", "in.jsonl", "--out", "out.jsonl").returncode == 0
    write_jsonl(tmp_path / "in.jsonl", [good_row(0), good_row(1), good_row(2)])
    done = run_cli("evaluate", "in.jsonl", "--out", "out.jsonl", "--retry-failed")
    assert done.returncode == 0, done.stderr
    assert "1 sample: 0 evaluated, 1 resumed" in done.stdout
    assert "--retry-failed: 2 samples never evaluated left for a run without it" in done.stdout
    assert len(read_jsonl(tmp_path / "out.jsonl")) == 1


def test_one_sample_is_counted_in_the_singular(tmp_path: Path, run_cli: RunCli) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(0)])
    done = run_cli("evaluate", "in.jsonl")
    assert done.returncode == 0, done.stderr
    assert "1 sample: 1 evaluated" in done.stdout


def test_out_naming_a_csv_that_is_not_a_results_file_is_refused_cleanly(tmp_path: Path, run_cli: RunCli) -> None:
    write_jsonl(tmp_path / "in.jsonl", [good_row(0)])
    (tmp_path / "other.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    done = run_cli("evaluate", "in.jsonl", "--out", "other.csv")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "other.csv:1" in line and "not a ragmetrics results file" in line
    assert (tmp_path / "other.csv").read_text(encoding="utf-8") == "a,b\n1,2\n"  # untouched


def test_a_csv_without_a_response_column_is_one_error_about_the_header(tmp_path: Path, run_cli: RunCli) -> None:
    rows = "".join(f"q{i},c{i}\n" for i in range(20_000))
    (tmp_path / "in.csv").write_text("question,contexts\n" + rows, encoding="utf-8")
    done = run_cli("evaluate", "in.csv")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "in.csv:1" in line and "no response column" in line and "question, contexts" in line


def test_a_csv_header_that_repeats_a_column_is_refused(tmp_path: Path, run_cli: RunCli) -> None:
    (tmp_path / "in.csv").write_text("user_input,response,response\nq,a,b\n", encoding="utf-8")
    done = run_cli("evaluate", "in.csv")
    assert done.returncode == 2
    [line] = done.stderr.strip().splitlines()
    assert "repeats column 'response'" in line


def test_a_non_finite_context_score_is_a_bad_row_and_never_reaches_the_output(tmp_path: Path, run_cli: RunCli) -> None:
    bad = '{"user_input": "q", "response": "a", "retrieved_contexts": [{"text": "c", "score": NaN}]}'
    write_jsonl(tmp_path / "in.jsonl", [good_row(0), bad])
    done = run_cli("evaluate", "in.jsonl", "--out", "out.jsonl")
    assert done.returncode == 1
    assert "retrieved_contexts[0].score" in done.stderr and "finite" in done.stderr
    for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines():
        json.loads(line, parse_constant=lambda name: pytest.fail(f"bare {name} in the output"))
