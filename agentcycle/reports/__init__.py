"""Renderers of session summaries, failure diagnoses and evaluation reports."""
