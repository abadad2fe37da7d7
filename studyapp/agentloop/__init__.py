"""The rules of the agentic loop, as plain Python: no Django imports in this package.

It imports nothing of ours; every app may import it (tests/test_import_direction.py)."""
