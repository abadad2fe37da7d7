from django import forms

MAX_UPLOAD_BYTES = 2 * 1024 * 1024


class UploadForm(forms.Form):
    title = forms.CharField(max_length=200, required=False, label="Title (optional)")
    file = forms.FileField(required=False, label="A file")
    text = forms.CharField(
        required=False,
        label="Or paste it here",
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
    )

    def clean_file(self):
        f = self.cleaned_data.get("file")
        if f and f.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                f"That file is {f.size / 1024 / 1024:.1f} MB; the limit is 2 MB."
            )
        return f

    def clean(self):
        data = super().clean()
        if not data.get("file") and not (data.get("text") or "").strip() and not self.errors:
            raise forms.ValidationError("Choose a file or paste a transcript, a log or a message.")
        return data


class LiveForm(forms.Form):
    """The parameters of a live run; combinations the API rejects are refused before sending."""

    scenario = forms.ChoiceField(label="Scenario")
    prompt = forms.CharField(
        required=False,
        max_length=4000,
        label="The customer's message (leave empty for the scenario's own)",
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    model = forms.CharField(max_length=100, label="Model")
    tool_choice = forms.ChoiceField(
        choices=[
            ("auto", "auto"),
            ("any", "any"),
            ("tool", "tool (a named tool)"),
            ("none", "none"),
        ],
        initial="auto",
        label="tool_choice",
    )
    tool_name = forms.ChoiceField(required=False, label="Tool to force (with tool_choice tool)")
    disable_parallel = forms.BooleanField(required=False, label="disable_parallel_tool_use")
    max_tokens = forms.IntegerField(min_value=1, max_value=16384, initial=1024, label="max_tokens")
    thinking = forms.BooleanField(required=False, label="Extended thinking")
    budget_tokens = forms.IntegerField(
        min_value=1024, max_value=16000, initial=2048, required=False, label="budget_tokens"
    )
    tool_mode = forms.ChoiceField(
        choices=[
            ("automatic", "Automatic: the demo tools run"),
            ("manual", "Manual: I write each tool result"),
        ],
        initial="automatic",
        widget=forms.RadioSelect,
        label="Tools",
    )
    max_turns = forms.IntegerField(min_value=1, initial=12, label="Turn cap (API calls)")
    token_budget = forms.IntegerField(min_value=1000, initial=60000, label="Token budget")
    wall_clock_s = forms.IntegerField(min_value=1, initial=180, label="Wall clock (seconds)")
    max_identical_calls = forms.IntegerField(
        min_value=1, initial=2, label="Identical calls allowed"
    )

    def __init__(self, *args, scenarios=(), tool_names=(), default_model="", **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["scenario"].choices = [(s.slug, s.title) for s in scenarios]
        self.fields["tool_name"].choices = [("", "—")] + [(n, n) for n in tool_names]
        self.fields["model"].initial = default_model

    def clean(self):
        from studyapp.agentloop import catalogue, runner

        data = super().clean()
        if self.errors:
            return data
        choice = {"type": data["tool_choice"]}
        if choice["type"] == "tool":
            if not data.get("tool_name"):
                raise forms.ValidationError("tool_choice tool needs the name of the tool to force.")
            choice["name"] = data["tool_name"]
        if data.get("disable_parallel"):
            if choice["type"] == "none":
                raise forms.ValidationError(
                    'disable_parallel_tool_use can\'t go with tool_choice none: {"type": "none"} '
                    "has no such field."
                )
            choice["disable_parallel_tool_use"] = True
        thinking = None
        if data.get("thinking"):
            budget = data.get("budget_tokens") or 2048
            if budget >= data["max_tokens"]:
                raise forms.ValidationError(
                    f"budget_tokens ({budget:,}) must be less than max_tokens "
                    f"({data['max_tokens']:,}): thinking counts toward max_tokens."
                )
            thinking = {"type": "enabled", "budget_tokens": budget}
        try:
            catalogue.validate_tool_choice(choice, extended_thinking=thinking is not None)
            guards = runner.Guards.from_dict(
                {
                    k: data[k]
                    for k in ("max_turns", "token_budget", "wall_clock_s", "max_identical_calls")
                }
            )
        except (catalogue.ToolChoiceError, runner.RunnerError) as e:
            raise forms.ValidationError(str(e)) from None
        data["options"] = {
            "model": data["model"].strip(),
            "max_tokens": data["max_tokens"],
            "tool_choice": choice,
            "thinking": thinking,
            "guards": guards,
            "tool_mode": data["tool_mode"],
        }
        return data


class ForkForm(forms.Form):
    at_step = forms.IntegerField(min_value=0, label="Keep the first N steps")
    tool_choice = forms.ChoiceField(
        required=False,
        choices=[("", "unchanged"), ("auto", "auto"), ("any", "any"), ("none", "none")],
        label="New tool_choice",
    )
    max_tokens = forms.IntegerField(
        required=False, min_value=1, max_value=16384, label="New max_tokens"
    )
