"""Readers and writers of evaluation data formats."""
