"""Starting a live run through the sandbox's form, shared by the live-mode test modules."""

from studyapp.sandbox.models import LiveRun

#: What the live form posts: the refund scenario on Haiku 5.5.
FORM = {
    "scenario": "refund-25-days",
    "prompt": "",
    "model": "claude-haiku-5-5",
    "tool_choice": "auto",
    "thinking": "default",
    "tool_name": "",
    "max_tokens": 1024,
    "budget_tokens": 2048,
    "tool_mode": "automatic",
    "max_turns": 6,
    "token_budget": 60000,
    "wall_clock_s": 120,
    "max_identical_calls": 2,
}


def create(client, **changes):
    """Start a live run with ``changes`` to the form; the run the redirect points at."""
    response = client.post("/sandbox/live/", {**FORM, **changes})
    assert response.status_code == 302, response.content.decode()[-1500:]
    return LiveRun.objects.latest("pk")
