"""Exact formulations, optimal or certified, one module per family (resilsched.models)."""
