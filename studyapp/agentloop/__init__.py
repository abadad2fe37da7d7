"""The rules of the agentic loop, as plain Python: no Django imports in this package."""
