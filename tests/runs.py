"""A run of the live runner against the fake API with three echo tools, shared by the runner's
test modules."""

import json

from studyapp.agentloop import runner

ECHO_TOOLS = [
    {
        "name": name,
        "description": f"{name} (test tool)",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
    for name in ("lookup", "weather", "write_file")
]


def echo(tool_input, context):
    return runner.ToolOutput(json.dumps({"echo": tool_input}))


HANDLERS = {t["name"]: echo for t in ECHO_TOOLS}

# Every runner feature runs on two current models with different rules and on one 4.x model:
# Sonnet 5.5 (no forced tool_choice, thinking on by default and bound to its prefix), Haiku 5.5
# (forced choice accepted, bound thinking) and Opus 4.6 (thinking off by default, not bound).
RUNNER_MODELS = ("claude-sonnet-5-5", "claude-haiku-5-5", "claude-opus-4-6")
#: The model new_run uses; tests/test_runner.py sets it for each of RUNNER_MODELS in turn.
CURRENT = {"model": RUNNER_MODELS[0]}


def new_run(api, **kwargs):
    """A new run of CURRENT's model with the echo tools; ``kwargs`` replace its parameters."""
    params = {
        "model": CURRENT["model"],
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "Help me."}],
        "tools": ECHO_TOOLS,
        "tool_choice": {"type": "auto"},
        "handlers": HANDLERS,
        "meta": {"slug": "test-run", "title": "Test run"},
        **kwargs,
    }
    return runner.Run.new(api.client() if api is not None else None, **params)
