"""Optimal online policies on small instances (issue 26)."""
