"""The HTML report: self-contained, escaped, and every claim links to chunks that exist."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from ragmetrics_core.batch import BatchRun, evaluate_file
from ragmetrics_core.formats import RowError
from ragmetrics_core.report import render_report, write_report
from ragmetrics_core.results import EvaluationResult
from tests.cli.conftest import RunCli, SentenceJudge, good_row, write_jsonl

XSS = "<script>alert('x')</script><img src=x onerror=alert(1)>"


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.hrefs: list[str] = []
        self.scripts = 0
        self.external: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        self.tags.append((tag, values))
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if tag == "a" and values.get("href"):
            self.hrefs.append(values["href"] or "")
        if tag == "script":
            self.scripts += 1
        for name in ("src", "href"):
            value = values.get(name) or ""
            if re.match(r"(https?:)?//", value):
                self.external.append(value)


def _parse(html: str) -> _Collector:
    collector = _Collector()
    collector.feed(html)
    return collector


def _run(tmp_path: Path, rows: list[dict[str, object]]) -> BatchRun:
    source = write_jsonl(tmp_path / "in.jsonl", rows)
    return evaluate_file(source, judge=SentenceJudge(), progress=False)


def test_report_is_self_contained_and_every_anchor_resolves(tmp_path: Path) -> None:
    run = _run(tmp_path, [good_row(i) for i in range(3)])
    path = write_report(run.results, tmp_path / "r" / "report.html", samples=run.samples, title="T")
    html = path.read_text("utf-8")
    parsed = _parse(html)
    assert parsed.external == [] and "<link" not in html and "@import" not in html and "url(" not in html
    assert parsed.scripts == 1  # the one inline script, no src
    assert all(values.get("src") is None for tag, values in parsed.tags if tag == "script")
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    internal = [href[1:] for href in parsed.hrefs if href.startswith("#")]
    assert internal and all(target in parsed.ids for target in internal)
    assert {"sample-1", "sample-1-chunk-1", "sample-1-claim-2", "summary", "diagnostic"} <= parsed.ids
    assert not {"sample-0", "sample-1-chunk-0", "sample-1-claim-0"} & parsed.ids  # numbered from 1, as labelled


def test_claims_are_coloured_by_category_and_linked_to_their_chunk(tmp_path: Path) -> None:
    run = _run(tmp_path, [good_row(1)])
    html = render_report(run.results, samples=run.samples)
    grounded = re.search(r"<li id='sample-1-claim-1' class='claim cat-grounded'>.*?</li>", html)
    assert grounded and "href='#sample-1-chunk-1'>chunk 1</a>" in grounded.group(0)
    hallucinated = re.search(r"<li id='sample-1-claim-2' class='claim cat-halluc'>.*?</li>", html)
    assert hallucinated and "no chunk supports it" in hallucinated.group(0)
    # the scripted judge gives plain verdicts: grounding 1 for the supported claim, 0 for the other
    assert "grounding 1.00" in grounded.group(0) and "grounding 0.00" in hallucinated.group(0)
    # the claim is highlighted inside the response, linking to its entry in the claim list
    assert "<a class='mark cat-halluc' href='#sample-1-claim-2'" in html
    assert "data-flags='hallucination'" in html


def test_user_text_is_escaped_everywhere(tmp_path: Path) -> None:
    row = {
        "user_input": f"Q {XSS}",
        "retrieved_contexts": [f"chunk {XSS}"],
        "response": f"Answer {XSS}.",
        "reference": f"Ref {XSS}.",
        "id": f"id-{XSS}",
    }
    run = _run(tmp_path, [row])
    errors = [RowError(f"file{XSS}.jsonl", f"bad {XSS}", line=3, field="response")]
    html = render_report(run.results, samples=run.samples, title=f"title {XSS}", errors=errors)
    parsed = _parse(html)
    assert parsed.scripts == 1
    assert not any(tag == "img" for tag, _ in parsed.tags)
    assert not any(name.startswith("on") for _, values in parsed.tags for name in values)
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in html


def test_report_without_samples_failed_results_and_no_ragchecker_metrics(tmp_path: Path) -> None:
    run = _run(tmp_path, [good_row(1)])
    failed = EvaluationResult(sample_id="broken", judge="j", scores={}, error="ValueError: bad evidence")
    html = render_report([*run.results, failed], samples=None)
    assert "The sample's texts are not in these results." in html
    assert "Evaluation failed: ValueError: bad evidence" in html
    assert "1 failed" in html
    only_ragas = evaluate_file(
        write_jsonl(tmp_path / "b.jsonl", [good_row(2)]),
        judge=SentenceJudge(),
        metrics=["context_recall"],
        progress=False,
    )
    assert "No RAGChecker metrics in these results." in render_report(only_ragas.results)
    assert "No scores." in render_report([])


def test_histograms_count_every_determined_score(tmp_path: Path) -> None:
    run = _run(tmp_path, [good_row(i) for i in range(4)])
    html = render_report(run.results, samples=run.samples)
    row = re.search(r"<tr><th scope='row'><code>hallucination</code></th><td>(<svg.*?</svg>)", html)
    assert row is not None
    titles = re.findall(r"<title>([\d.]+)–([\d.]+): (\d+) samples?</title>", row.group(1))
    assert sum(int(count) for *_, count in titles) == 4
    assert ("0.5", "0.6", "4") in titles


def test_report_and_summary_say_why_scores_are_undetermined_and_name_each_samples_input_line(
    tmp_path: Path, run_cli: RunCli
) -> None:
    lines = [
        json.dumps(good_row(0)),
        "",  # a blank line: the next sample is on line 3, not the second
        "not json",  # a bad row on line 3 is skipped; the next sample is on line 4
        json.dumps({**good_row(1), "reference": None}),
    ]
    (tmp_path / "in.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_cli("evaluate", "in.jsonl", "--report", "report.html")
    assert done.returncode == 1  # one bad row skipped
    recall = next(line for line in done.stdout.splitlines() if line.startswith("overall_recall "))
    assert recall.rstrip().endswith("no reference 1")
    html = (tmp_path / "report.html").read_text("utf-8")
    assert "<th>why undetermined</th>" in html and "no reference 1" in html
    # Labelled and linked in report order from 1 (so #sample-2 opens "#2"); the input line beside it when it differs.
    labels = re.findall(r"<details class='sample' id='(sample-\d+)'.*?<span class='idx' title='([^']*)'>#(\d+)</span> "
                        r"(<span class='line'>line \d+</span>)?", html)
    assert [(anchor, number, line) for anchor, _, number, line in labels] == [
        ("sample-1", "1", ""), ("sample-2", "2", "<span class='line'>line 4</span>")]
    assert "line 1 of the input" in labels[0][1] and "line 4 of the input" in labels[1][1]


def test_every_anchor_and_link_reads_as_its_label(tmp_path: Path) -> None:
    run = _run(tmp_path, [good_row(i) for i in range(25)])
    html = render_report(run.results, samples=run.samples)
    for number in (1, 19, 20, 25):
        block = re.search(rf"<details class='sample' id='sample-{number}' [^>]*><summary><span class='idx'[^>]*>"
                          rf"#(\d+)</span>", html)
        assert block is not None and block.group(1) == str(number)
    assert "id='sample-0'" not in html and "id='sample-26'" not in html
    chunk = re.search(r"<li id='sample-19-chunk-(\d+)' class='chunk'><div class='chunk-head'>chunk (\d+) ", html)
    assert chunk is not None and chunk.group(1) == chunk.group(2) == "1"
    claims = re.findall(r"<li id='sample-19-claim-(\d+)' class='claim[^']*'>", html)
    assert claims == [str(n) for n in range(1, len(claims) + 1)] and claims


def test_the_page_names_cjk_fonts_before_the_generic_family() -> None:
    html = render_report([])
    body = re.search(r"\nbody \{[^}]*font:14px/1\.5 ([^;]*);", html)
    assert body is not None
    families = [name.strip().strip('"') for name in body.group(1).split(",")]
    assert families[-1] == "sans-serif"
    # A Chinese, Japanese and Korean font on each platform, all before the generic family.
    for name in ("PingFang SC", "Microsoft YaHei", "Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei",
                 "Hiragino Sans", "Malgun Gothic"):
        assert name in families[:-1], name
