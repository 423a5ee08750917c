"""``write_report``: one self-contained HTML file (inline CSS, JS and SVG; nothing fetched at view time).

Sections: a summary table with a score histogram per metric; RAGChecker's diagnostic view (overall,
retriever and generator metrics side by side, and the response claims by category); and one collapsible
drill-down per sample in which every response claim is coloured by its category and linked to the chunks
that support or contradict it. All user text is HTML-escaped. The figures cover every sample; the drill-down
shows the first :data:`~ragmetrics_core.report.data.DETAIL_LIMIT` (by default) and says so when there are more.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from html import escape
from importlib import resources
from pathlib import Path

from ragmetrics_core.aggregate import AggregationMode, MetricAggregate, RunningAggregate
from ragmetrics_core.formats.errors import RowError
from ragmetrics_core.report.data import DETAIL_LIMIT, ReportData, report_data
from ragmetrics_core.report.summary import DIAGNOSTIC_GROUPS
from ragmetrics_core.report.svg import goodness_colour, histogram, score_bar, stacked_bar
from ragmetrics_core.results import ClaimExplanation, Direction, EvaluationResult, MetricScore
from ragmetrics_core.sample import RagSample
from ragmetrics_core.scrub import mask_known_secrets
from ragmetrics_core.summary_format import format_usage, undetermined_reasons

__all__: list[str] = []  # internal: no public names here (docs/architecture.md, "The surface")

CATEGORIES: tuple[tuple[str, str, str], ...] = (
    # (category id, label, css class)
    ("correct_grounded", "correct, grounded in a chunk", "cat-grounded"),
    ("correct_self_knowledge", "correct, from the model's own knowledge", "cat-self"),
    ("noise_relevant", "wrong, taken from a relevant chunk (noise)", "cat-noise-rel"),
    ("noise_irrelevant", "wrong, taken from an irrelevant chunk (noise)", "cat-noise-irr"),
    ("hallucination", "wrong and in no chunk (hallucination)", "cat-halluc"),
)
_CATEGORY_CLASS = {category: css for category, _, css in CATEGORIES}
_CATEGORY_LABEL = {category: label for category, label, _ in CATEGORIES}
# Short names for the diagnostic view (RAGChecker's own wording); the metric id is the tooltip.
_DIAGNOSTIC_LABELS = {
    "overall_precision": "precision",
    "overall_recall": "recall",
    "overall_f1": "F1",
    "claim_recall": "claim recall",
    "chunk_precision": "context precision",
    "context_utilization": "context utilization",
    "noise_sensitivity_relevant": "noise in relevant",
    "noise_sensitivity_irrelevant": "noise in irrelevant",
    "hallucination": "hallucination",
    "self_knowledge": "self-knowledge",
    "faithfulness": "faithfulness",
}
# Shown in each sample's one-line summary, when present.
_HEADLINE = ("overall_f1", "faithfulness", "hallucination", "claim_recall", "response_relevancy")


def write_report(
    results: Sequence[EvaluationResult],
    path: str | Path,
    *,
    samples: Mapping[str, RagSample] | None = None,
    title: str = "ragmetrics report",
    aggregate_mode: AggregationMode | str = AggregationMode.DETERMINED,
    errors: Sequence[RowError] = (),
    lines: Mapping[str, int] | None = None,
    max_samples: int | None = DETAIL_LIMIT,
) -> Path:
    """Write the HTML report for ``results`` to ``path`` and return the path.

    ``samples`` (by sample id) supplies the question, contexts, response and reference shown in the
    drill-down; results whose sample is missing show their scores and claims only. ``errors`` lists input
    rows that were skipped. ``lines`` (by sample id) numbers each sample by its line in the input file.
    The figures cover every result; the first ``max_samples`` are shown in full (``None``: all of them).
    """
    data = report_data(results, samples=samples, lines=lines, errors=errors, max_samples=max_samples)
    return write_report_data(data, path, title=title, aggregate_mode=aggregate_mode)


def write_report_data(
    data: ReportData,
    path: str | Path,
    *,
    title: str = "ragmetrics report",
    aggregate_mode: AggregationMode | str = AggregationMode.DETERMINED,
) -> Path:
    """Write the report of ``data`` (see :mod:`ragmetrics_core.report.data`) to ``path`` and return the path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    page = render_report_data(data, title=title, aggregate_mode=aggregate_mode)
    target.write_text(mask_known_secrets(page), encoding="utf-8")  # no secret the process holds leaves in it
    return target


def render_report(
    results: Sequence[EvaluationResult],
    *,
    samples: Mapping[str, RagSample] | None = None,
    title: str = "ragmetrics report",
    aggregate_mode: AggregationMode | str = AggregationMode.DETERMINED,
    errors: Sequence[RowError] = (),
    lines: Mapping[str, int] | None = None,
    max_samples: int | None = DETAIL_LIMIT,
) -> str:
    """The report as an HTML string (see :func:`write_report`)."""
    data = report_data(results, samples=samples, lines=lines, errors=errors, max_samples=max_samples)
    return render_report_data(data, title=title, aggregate_mode=aggregate_mode)


def render_report_data(
    data: ReportData,
    *,
    title: str = "ragmetrics report",
    aggregate_mode: AggregationMode | str = AggregationMode.DETERMINED,
) -> str:
    """The report of ``data`` as an HTML string."""
    figures = data.figures
    summaries = list(figures.report(aggregate_mode).metrics.values())
    judges = sorted(figures.judges)
    generated = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    skipped = len(data.errors) if data.skipped is None else data.skipped
    facts = [
        f"{figures.added} sample{'s' if figures.added != 1 else ''}",
        f"judge: {', '.join(judges) or 'n/a'}",
        f"aggregation: {aggregate_mode}",
        f"generated {generated}",
    ]
    if figures.failed:
        facts.append(f"{figures.failed} failed")
    if skipped:
        facts.append(f"{skipped} bad input row{'s' if skipped != 1 else ''} skipped")
    body = "\n".join(
        [
            f"<header><h1>{escape(title)}</h1><p class='facts'>{escape(' · '.join(facts))}</p>"
            f"<p class='facts'>{escape(format_usage(figures.usage))}</p></header>",
            _nav(),
            _summary_section(figures, summaries),
            _diagnostic_section(figures, summaries),
            _samples_section(data),
            _errors_section(data.errors, skipped),
        ]
    )
    template = resources.files("ragmetrics_core.report").joinpath("template.html").read_text(encoding="utf-8")
    return template.replace("<!--TITLE-->", escape(title)).replace("<!--BODY-->", body)


def _nav() -> str:
    return (
        "<nav><a href='#summary'>Summary</a><a href='#diagnostic'>Diagnostic view</a>"
        "<a href='#samples'>Samples</a></nav>"
    )


def _arrow(direction: Direction) -> str:
    if direction is Direction.HIGHER_IS_BETTER:
        return "<span class='dir' title='higher is better'>↑ higher</span>"
    return "<span class='dir' title='lower is better'>↓ lower</span>"


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _summary_section(figures: RunningAggregate, summaries: Sequence[MetricAggregate]) -> str:
    rows: list[str] = []
    for summary in summaries:
        rows.append(
            f"<tr><th scope='row'><code>{escape(summary.metric)}</code></th>"
            f"<td>{histogram(figures.determined_values(summary.metric), summary.direction)}</td>"
            f"<td class='num'>{_fmt(summary.mean)}</td><td class='num'>{summary.count}</td>"
            f"<td class='num'>{summary.undetermined}</td><td>{_arrow(summary.direction)}</td>"
            f"<td class='why'>{escape(undetermined_reasons(summary))}</td></tr>"
        )
    table = (
        "<table class='summary'><thead><tr><th>metric</th><th>distribution (0 → 1)</th><th>mean</th>"
        "<th>count</th><th>undetermined</th><th>direction</th><th>why undetermined</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
        if rows
        else "<p>No scores.</p>"
    )
    return f"<section id='summary'><h2>Summary</h2>{table}</section>"


def _diagnostic_section(figures: RunningAggregate, summaries: Sequence[MetricAggregate]) -> str:
    by_metric = {summary.metric: summary for summary in summaries}
    columns: list[str] = []
    for group, metrics in DIAGNOSTIC_GROUPS:
        items: list[str] = []
        for metric in metrics:
            summary = by_metric.get(metric)
            if summary is None:
                continue
            percent = "—" if summary.mean is None else f"{100 * summary.mean:.1f}"
            items.append(
                f"<li><span class='m' title='{escape(metric)}'>{escape(_DIAGNOSTIC_LABELS.get(metric, metric))}</span> "
                f"{score_bar(summary.mean, summary.direction)}"
                f"<span class='num'>{percent}</span> {_arrow(summary.direction)}</li>"
            )
        if items:
            columns.append(f"<div class='diag-col'><h3>{group}</h3><ul>{''.join(items)}</ul></div>")
    if not columns:
        return (
            "<section id='diagnostic'><h2>Diagnostic view</h2><p>No RAGChecker metrics in these results.</p></section>"
        )
    counts = figures.response_claims
    parts = [(label, counts.get(category, 0), css) for category, label, css in CATEGORIES]
    breakdown = stacked_bar(parts)
    legend = _legend()
    claims = f"<h3 class='claims-title'>Response claims by category</h3>{breakdown}{legend}" if breakdown else ""
    return (
        "<section id='diagnostic'><h2>Diagnostic view</h2>"
        "<p class='hint'>Means × 100, as RAGChecker reports them. Retriever metrics judge what was "
        "retrieved; generator metrics judge what the model did with it.</p>"
        f"<div class='diag'>{''.join(columns)}</div>{claims}</section>"
    )


def _legend() -> str:
    items = "".join(f"<li><span class='swatch {css}'></span>{escape(label)}</li>" for _, label, css in CATEGORIES)
    return f"<ul class='legend'>{items}<li><span class='swatch cat-none'></span>not categorised</li></ul>"


def _samples_section(data: ReportData) -> str:
    metrics: dict[str, None] = {}
    for row in data.detail:
        metrics.update(dict.fromkeys(row.result.scores))
    options = "".join(f"<option value='{escape(metric)}'>{escape(metric)}</option>" for metric in metrics)
    controls = (
        "<div class='controls'>"
        "<label>sort by <select id='sort'><option value=''>input order</option>"
        f"{options}</select></label>"
        "<label><input type='checkbox' id='desc'> descending</label>"
        "<label>show <select id='filter'><option value=''>all samples</option>"
        "<option value='hallucination'>with hallucinated claims</option>"
        "<option value='noise'>with noise claims</option>"
        "<option value='failed'>failed</option></select></label>"
        "<input type='search' id='search' placeholder='search text'>"
        "<button type='button' id='expand'>expand all</button>"
        "<button type='button' id='collapse'>collapse all</button>"
        "</div>"
    )
    items = "".join(_sample(row.position, row.result, row.sample, row.line) for row in data.detail)
    return (
        f"<section id='samples'><h2>Samples</h2>{_cap_note(data)}{controls}{_legend()}"
        f"<div id='sample-list'>{items}</div></section>"
    )


def _cap_note(data: ReportData) -> str:
    """Say so when the drill-down shows only some samples, and where the rest are."""
    total = data.figures.added
    if len(data.detail) >= total:
        return ""
    where = (
        f" Every sample's full result is in <code>{escape(str(data.results_path))}</code>."
        if data.results_path is not None
        else ""
    )
    return (
        f"<p class='hint capped'>Showing the first {len(data.detail):,} of {total:,} samples in detail; the summary "
        f"and the diagnostic view cover all {total:,}.{where}</p>"
    )


def _sample(index: int, result: EvaluationResult, sample: RagSample | None, line: int | None) -> str:
    # Every anchor is numbered as its label reads, from 1: "#3" is sample-3, its "chunk 1" sample-3-chunk-1.
    number = index + 1
    anchor = f"sample-{number}"
    flags = _flags(result)
    data_scores = " ".join(
        f"data-s-{escape(metric)}='{score.score:.6f}'"
        for metric, score in result.scores.items()
        if score.score is not None
    )
    summary = _summary_line(number, anchor, result, sample, line)
    body = [
        f"<p class='sid'>sample id <code>{escape(result.sample_id or '')}</code> · judge "
        f"<code>{escape(result.judge)}</code></p>"
    ]
    if result.error:
        body.append(f"<p class='error'>Evaluation failed: {escape(result.error)}</p>")
    body.append(_texts(anchor, result, sample))
    body.append(_claims(anchor, result))
    if sample is not None:
        body.append(_chunks(anchor, result, sample))
    body.append(_scores_table(result))
    return (
        f"<details class='sample' id='{anchor}' data-index='{index}' "
        f"data-flags='{' '.join(flags)}' {data_scores}>"
        f"{summary}<div class='body'>{''.join(body)}</div></details>"
    )


def _flags(result: EvaluationResult) -> list[str]:
    """What the report's filters select a sample by: a hallucinated or noise-copied claim, a failed evaluation."""
    categories = {claim.category for claim in result.explanations if claim.source == "response"}
    return [
        flag
        for flag, present in (
            ("hallucination", "hallucination" in categories),
            ("noise", bool(categories & {"noise_relevant", "noise_irrelevant"})),
            ("failed", result.error is not None),
        )
        if present
    ]


def _summary_line(
    number: int, anchor: str, result: EvaluationResult, sample: RagSample | None, line: int | None
) -> str:
    """The sample's closed row: its number (and input line), question, headline badges and one dot per claim."""
    question = sample.user_input if sample is not None else ""
    headline = "".join(_badge(result.scores[metric]) for metric in _HEADLINE if metric in result.scores)
    dots = "".join(
        f"<span class='dot {_CATEGORY_CLASS.get(claim.category or '', 'cat-none')}' "
        f"title='{escape(_CATEGORY_LABEL.get(claim.category or '', 'not categorised'))}'></span>"
        for claim in result.explanations
        if claim.source == "response"
    )
    where = f"line {line} of the input" if line is not None else "its place in the input"
    at_line = f"<span class='line'>line {line}</span> " if line is not None and line != number else ""
    return (
        f"<summary><span class='idx' title='sample {number} of this report ({escape(where)}); link: #{anchor}'>"
        f"#{number}</span> {at_line}"
        f"<span class='q'>{escape(_clip(question, 110) or '(no question)')}</span>"
        f"<span class='badges'>{headline}</span><span class='dots'>{dots}</span></summary>"
    )


def _badge(score: MetricScore) -> str:
    if score.score is None:
        return f"<span class='badge undetermined' title='{escape(score.reason)}'>{escape(score.metric)} —</span>"
    colour = goodness_colour(score.score, score.direction)
    calibrated = "" if score.probability is None else f" <small>p {score.probability:.2f}</small>"
    return (
        f"<span class='badge' style='border-color:{colour}' title='{escape(score.reason)}'>"
        f"{escape(score.metric)} <b style='color:{colour}'>{score.score:.2f}</b>{calibrated}</span>"
    )


def _texts(anchor: str, result: EvaluationResult, sample: RagSample | None) -> str:
    if sample is None:
        return "<p class='hint'>The sample's texts are not in these results.</p>"
    reference = (
        f"<h4>Reference</h4><blockquote>{escape(sample.reference)}</blockquote>"
        if sample.reference
        else "<h4>Reference</h4><p class='hint'>none given</p>"
    )
    return (
        f"<h4>Question</h4><blockquote>{escape(sample.user_input) or '<i>empty</i>'}</blockquote>"
        f"<h4>Response</h4><blockquote class='response'>{_highlight(anchor, sample.response, result)}"
        "</blockquote>"
        f"{reference}"
    )


def _highlight(anchor: str, response: str, result: EvaluationResult) -> str:
    """The response with each claim that appears in it verbatim marked in its category's colour."""
    spans: list[tuple[int, int, ClaimExplanation]] = []
    for claim in result.explanations:
        if claim.source != "response" or not claim.text.strip():
            continue
        start = response.find(claim.text)
        if start < 0:
            continue
        end = start + len(claim.text)
        if all(end <= s or start >= e for s, e, _ in spans):
            spans.append((start, end, claim))
    spans.sort(key=lambda span: span[0])
    pieces: list[str] = []
    cursor = 0
    for start, end, claim in spans:
        pieces.append(escape(response[cursor:start]))
        css = _CATEGORY_CLASS.get(claim.category or "", "cat-none")
        pieces.append(
            f"<a class='mark {css}' href='#{anchor}-claim-{claim.index + 1}' "
            f"title='{escape(_CATEGORY_LABEL.get(claim.category or '', 'not categorised'))}'>"
            f"{escape(response[start:end])}</a>"
        )
        cursor = end
    pieces.append(escape(response[cursor:]))
    return "".join(pieces) or "<i>empty</i>"


def _claims(anchor: str, result: EvaluationResult) -> str:
    response_claims = [claim for claim in result.explanations if claim.source == "response"]
    reference_claims = [claim for claim in result.explanations if claim.source == "reference"]
    parts: list[str] = []
    if response_claims:
        items = "".join(_response_claim(anchor, claim) for claim in response_claims)
        parts.append(f"<h4>Response claims</h4><ol class='claims'>{items}</ol>")
    if reference_claims:
        items = "".join(_reference_claim(anchor, claim) for claim in reference_claims)
        parts.append(f"<h4>Reference claims</h4><ol class='claims ref'>{items}</ol>")
    if not parts:
        return "<p class='hint'>No claims in this result (none extracted, or the results file kept only scores).</p>"
    return "".join(parts)


def _chunk_links(anchor: str, chunks: Sequence[int], kind: str) -> str:
    if not chunks:
        return ""
    links = ", ".join(f"<a href='#{anchor}-chunk-{chunk + 1}'>chunk {chunk + 1}</a>" for chunk in chunks)
    return f"<span class='{kind}'>{'supported by' if kind == 'sup' else 'contradicted by'} {links}</span>"


def _response_claim(anchor: str, claim: ClaimExplanation) -> str:
    css = _CATEGORY_CLASS.get(claim.category or "", "cat-none")
    label = _CATEGORY_LABEL.get(claim.category or "", "not categorised")
    reference = (
        f"<span class='verdict'>reference: {escape(claim.against_reference.value)}</span>"
        if claim.against_reference is not None
        else ""
    )
    if claim.grounding is not None:
        reference += f"<span class='verdict'>grounding {claim.grounding:.2f}</span>"
    links = _chunk_links(anchor, claim.supporting_chunks, "sup") + _chunk_links(
        anchor, claim.contradicting_chunks, "con"
    )
    if not claim.supporting_chunks and not claim.contradicting_chunks:
        links = "<span class='none'>no chunk supports it</span>"
    rationale = f"<div class='why'>{escape(claim.rationale)}</div>" if claim.rationale else ""
    return (
        f"<li id='{anchor}-claim-{claim.index + 1}' class='claim {css}'><span class='tag'>{escape(label)}</span> "
        f"{escape(claim.text)}<div class='meta'>{reference}{links}</div>{rationale}</li>"
    )


def _reference_claim(anchor: str, claim: ClaimExplanation) -> str:
    found = claim.against_reference
    css = "ref-hit" if found is not None and found.value == "entailed" else "ref-miss"
    answered = "" if found is None else f"<span class='verdict'>in the response: {escape(found.value)}</span>"
    links = _chunk_links(anchor, claim.supporting_chunks, "sup") or "<span class='none'>in no chunk</span>"
    return (
        f"<li id='{anchor}-ref-{claim.index + 1}' class='claim {css}'>{escape(claim.text)}"
        f"<div class='meta'>{answered}{links}</div></li>"
    )


def _chunks(anchor: str, result: EvaluationResult, sample: RagSample) -> str:
    if not sample.retrieved_contexts:
        return "<h4>Retrieved chunks</h4><p class='hint'>none</p>"
    relevant: set[int] = set()
    supports: dict[int, list[ClaimExplanation]] = {}
    contradicts: dict[int, list[ClaimExplanation]] = {}
    for claim in result.explanations:
        if claim.source == "reference":
            relevant.update(claim.supporting_chunks)
        else:
            for chunk in claim.supporting_chunks:
                supports.setdefault(chunk, []).append(claim)
            for chunk in claim.contradicting_chunks:
                contradicts.setdefault(chunk, []).append(claim)
    known_relevance = any(claim.source == "reference" for claim in result.explanations)
    items: list[str] = []
    for index, context in enumerate(sample.retrieved_contexts):
        tags: list[str] = []
        if known_relevance:
            tags.append(
                "<span class='rel'>relevant</span>" if index in relevant else "<span class='irr'>irrelevant</span>"
            )
        if context.id:
            tags.append(f"<code>{escape(context.id)}</code>")
        if context.score is not None:
            tags.append(f"<span class='hint'>score {context.score:.3f}</span>")
        backlinks = "".join(
            f"<a class='back {kind}' href='#{anchor}-claim-{claim.index + 1}'>claim {claim.index + 1}</a>"
            for kind, claims in (("sup", supports.get(index, [])), ("con", contradicts.get(index, [])))
            for claim in claims
        )
        items.append(
            f"<li id='{anchor}-chunk-{index + 1}' class='chunk'><div class='chunk-head'>chunk {index + 1} "
            f"{' '.join(tags)} {backlinks}</div><div class='chunk-text'>{escape(context.text)}</div></li>"
        )
    return f"<h4>Retrieved chunks</h4><ol class='chunks'>{''.join(items)}</ol>"


def _scores_table(result: EvaluationResult) -> str:
    if not result.scores:
        return ""
    # A calibrated result adds P(yes) from the user's labels (ragmetrics calibrate); others keep three columns.
    calibrated = any(score.probability is not None for score in result.scores.values())
    rows = "".join(
        f"<tr><td><code>{escape(metric)}</code></td><td class='num'>{_fmt(score.score)}</td>"
        + (f"<td class='num'>{_fmt(score.probability)}</td>" if calibrated else "")
        + f"<td>{escape(score.label or '')}</td><td>{escape(score.reason)}</td></tr>"
        for metric, score in result.scores.items()
    )
    probability = "<th title='P(label = yes), from the calibration'>P(yes)</th>" if calibrated else ""
    return (
        f"<h4>Scores</h4><table class='scores'><thead><tr><th>metric</th><th>score</th>{probability}<th>label</th>"
        f"<th>reason</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def _errors_section(errors: Sequence[RowError], skipped: int) -> str:
    if not errors:
        return ""
    items = "".join(f"<li><code>{escape(str(error))}</code></li>" for error in errors)
    more = f"<p class='hint'>The first {len(errors):,} of {skipped:,} are listed.</p>" if skipped > len(errors) else ""
    return f"<section id='errors'><h2>Skipped input rows</h2>{more}<ul>{items}</ul></section>"


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
