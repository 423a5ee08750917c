"""ragmetrics core."""
