"""Helpers for running the mock inside test suites."""
