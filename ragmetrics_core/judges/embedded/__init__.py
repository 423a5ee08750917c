"""The embedded offline judge (the default): rule-based claim extraction and entailment for EN, RU and ZH."""

from ragmetrics_core.judges.embedded.judge import EmbeddedJudge

__all__ = ["EmbeddedJudge"]
