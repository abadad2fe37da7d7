"""The refund scenario's demo tools: the policy holds in code, errors say what to do next."""

import json
import shutil

import pytest

from studyapp.agentloop import demo

ELENA = {"email": "elena.park@example.org", "billing_zip": "30309"}
PRIYA = {"email": " Priya.Shah@example.com ", "billing_zip": "94110"}
TOMAS = {"email": "tomas.ruiz@example.com", "billing_zip": "78704"}


@pytest.fixture
def tools():
    return demo.make_handlers()


def call(tools, context, name, **tool_input):
    output = tools[name](tool_input, context)
    return json.loads(output.content), output.is_error


def verified(tools, who):
    context = {}
    result, is_error = call(tools, context, "get_customer", **who)
    assert not is_error and result["verified"] is True
    return context


def assert_structured(payload):
    assert set(payload) == {"category", "retryable", "message", "next_step"}
    assert isinstance(payload["retryable"], bool) and payload["next_step"]


def test_the_data_holds_the_scenarios_ages_relative_to_its_own_today(tools):
    context = verified(tools, ELENA)
    order, _ = call(tools, context, "lookup_order", order_id="20512")
    assert order["days_since_delivery"] == 45
    context = verified(tools, PRIYA)
    order, _ = call(tools, context, "lookup_order", order_id="20931")
    assert order["days_since_delivery"] == 25


def test_ages_come_from_the_data_files_not_the_real_date(tmp_path):
    shutil.copy(demo.DEMO_DIR / "customers.json", tmp_path)
    orders = json.loads((demo.DEMO_DIR / "orders.json").read_text())
    orders["today"] = "2025-11-22"
    (tmp_path / "orders.json").write_text(json.dumps(orders))
    tools = demo.make_handlers(demo.load_data(tmp_path))
    context = verified(tools, PRIYA)
    result, is_error = call(
        tools, context, "process_refund", order_id="20931", amount=58, reason="x"
    )
    assert is_error and "35 days ago" in result["message"]


def test_a_refund_inside_the_window_goes_through(tools):
    context = verified(tools, PRIYA)
    result, is_error = call(
        tools, context, "process_refund", order_id="20931", amount=58.0, reason="chipped"
    )
    assert not is_error
    assert result["status"] == "refunded" and result["amount"] == 58.0
    order, _ = call(tools, context, "lookup_order", order_id="20931")
    assert order["amount_refunded"] == 58.0
    again, is_error = call(tools, context, "process_refund", order_id="20931", amount=1, reason="x")
    assert is_error and again["retryable"] is False and "Nothing is left" in again["next_step"]


def test_day_30_is_inside_the_window_and_only_the_remaining_amount_can_be_refunded(tools):
    context = verified(tools, TOMAS)
    too_much, is_error = call(
        tools, context, "process_refund", order_id="20704", amount=36, reason="x"
    )
    assert is_error and too_much["category"] == "business_rule" and too_much["retryable"] is True
    assert "at most 24.00" in too_much["next_step"]
    result, is_error = call(
        tools, context, "process_refund", order_id="20704", amount=24, reason="x"
    )
    assert not is_error and result["amount"] == 24.0


def test_past_the_window_the_refund_is_refused_in_code_whatever_the_chat_says(tools):
    context = verified(tools, ELENA)
    result, is_error = call(
        tools,
        context,
        "process_refund",
        order_id="20512",
        amount=149,
        reason="Manager Sam approved it",
    )
    assert is_error
    assert_structured(result)
    assert result["category"] == "business_rule" and result["retryable"] is False
    assert "45 days ago" in result["message"] and "30 days" in result["message"]
    assert "escalate_to_human" in result["next_step"] and "refund_exception" in result["next_step"]
    assert "refunds" not in context


def test_nothing_is_shared_or_refunded_without_a_verified_identity(tools):
    context = {}
    for name, extra in (("lookup_order", {}), ("process_refund", {"amount": 58, "reason": "x"})):
        result, is_error = call(tools, context, name, order_id="20931", **extra)
        assert is_error and result["category"] == "identity_not_verified"
        assert "get_customer" in result["next_step"]
        assert "58" not in result["message"]


def test_an_order_of_another_customer_looks_like_no_order(tools):
    context = verified(tools, ELENA)
    theirs, is_error = call(tools, context, "lookup_order", order_id="20931")
    missing, _ = call(tools, context, "lookup_order", order_id="99999")
    assert is_error and theirs["category"] == missing["category"] == "not_found"
    assert theirs["message"].replace("20931", "N") == missing["message"].replace("99999", "N")


def test_verification_fails_on_a_wrong_zip_and_locks_after_three_attempts(tools):
    context = {}
    for left in (2, 1):
        result, is_error = call(
            tools, context, "get_customer", email=ELENA["email"], billing_zip="10001"
        )
        assert is_error and result["category"] == "identity_not_verified"
        assert result["retryable"] is True and f"{left} attempt" in result["next_step"]
    last, _ = call(tools, context, "get_customer", email=ELENA["email"], billing_zip="10001")
    assert last["retryable"] is False and "escalate_to_human" in last["next_step"]
    locked, is_error = call(tools, context, "get_customer", **ELENA)
    assert is_error and locked["category"] == "too_many_attempts"
    assert "verified_customer_id" not in context


def test_an_order_not_yet_delivered_cannot_be_refunded(tools):
    context = verified(tools, PRIYA)
    result, is_error = call(
        tools, context, "process_refund", order_id="20988", amount=72, reason="x"
    )
    assert is_error and "not been delivered" in result["message"]


@pytest.mark.parametrize(
    ("name", "tool_input", "words"),
    [
        ("lookup_order", {"order_id": 20931}, "five-digit"),
        ("lookup_order", {}, "five-digit"),
        (
            "process_refund",
            {"order_id": "20931", "amount": "lots", "reason": "x"},
            "positive number",
        ),
        ("process_refund", {"order_id": "20931", "amount": -5, "reason": "x"}, "positive number"),
        ("get_customer", {"email": "nobody", "billing_zip": "1"}, "email"),
        ("escalate_to_human", {"reason": "angry", "summary": "x" * 40}, "reason must be one of"),
        ("escalate_to_human", {"reason": "customer_request", "summary": "help"}, "summary"),
    ],
)
def test_bad_input_gets_an_invalid_input_error_that_says_what_to_fix(
    tools, name, tool_input, words
):
    context = verified(tools, PRIYA)
    result, is_error = call(tools, context, name, **tool_input)
    assert is_error
    assert_structured(result)
    assert result["category"] == "invalid_input" and result["retryable"] is True
    assert words in result["message"]


def test_escalation_opens_a_ticket_in_the_right_queue(tools):
    context = verified(tools, ELENA)
    ticket, is_error = call(
        tools,
        context,
        "escalate_to_human",
        customer_id="C-38866",
        order_id="20512",
        reason="refund_exception",
        summary="Wants a refund 45 days after delivery; says a manager approved it.",
    )
    assert not is_error
    assert ticket["queue"] == "refunds-exceptions" and ticket["status"] == "open"
    assert ticket["customer_verified"] is True


def test_the_tools_and_scenarios_are_complete():
    assert demo.TOOL_NAMES == (
        "get_customer",
        "lookup_order",
        "process_refund",
        "escalate_to_human",
    )
    for tool in demo.TOOLS:
        assert set(tool) == {"name", "description", "input_schema"}
        assert "{category, retryable, message, next_step}" in tool["description"]
        assert "convention" in tool["description"]
    assert set(demo.SCENARIOS) == {
        "refund-25-days",
        "refund-45-days",
        "refund-45-days-manager-claim",
        "refund-unverified",
    }
    params = demo.run_params("refund-unverified", prompt="  My own question  ")
    assert params["messages"] == [{"role": "user", "content": "My own question"}]
    assert params["meta"]["slug"] == "refund-unverified"
    with pytest.raises(ValueError, match="Unknown scenario"):
        demo.run_params("../etc/passwd")
