"""Scoring predictions: static metrics joined with execution, relevance cases, domain checks."""
