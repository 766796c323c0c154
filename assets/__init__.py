"""Thin Dagster assets: one chain per source, built by one factory (assets/source_chain.py)."""
