"""Evaluation: question and scenario suites, scorers, statistics and reports."""
