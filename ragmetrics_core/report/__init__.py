"""Reporting: the summary table the CLI prints and the self-contained HTML report."""

from ragmetrics_core.aggregate import MetricAggregate
from ragmetrics_core.report.html import render_report, write_report
from ragmetrics_core.report.summary import format_table, format_usage, summarize, total_usage

__all__ = [
    "MetricAggregate",
    "format_table",
    "format_usage",
    "render_report",
    "summarize",
    "total_usage",
    "write_report",
]
