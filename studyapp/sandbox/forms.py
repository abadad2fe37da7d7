from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.i18n import generated

from .words import said

MAX_UPLOAD_BYTES = 2 * 1024 * 1024


class UploadForm(forms.Form):
    title = forms.CharField(max_length=200, required=False, label=_("Title (optional)"))
    file = forms.FileField(required=False, label=_("A file"))
    text = forms.CharField(
        required=False,
        label=_("Or paste it here"),
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
    )

    def clean_file(self):
        f = self.cleaned_data.get("file")
        if f and f.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                _("That file is %(size).1f MB; the limit is 2 MB.") % {"size": f.size / 1024 / 1024}
            )
        return f

    def clean(self):
        data = super().clean()
        if not data.get("file") and not (data.get("text") or "").strip() and not self.errors:
            raise forms.ValidationError(
                _("Choose a file or paste a transcript, a log or a message.")
            )
        return data


THINKING_CHOICES = [
    ("default", _("The model's default (leave thinking out)")),
    ("off", _("Off: what this model accepts to turn it off")),
    ("adaptive", _('Adaptive: {"type": "adaptive"}')),
    ("enabled", _('Manual, exam era: {"type": "enabled", "budget_tokens": N}')),
]


class GreyableSelect(forms.Select):
    """A select whose options in ``disabled_values`` are shown but can't be chosen."""

    def __init__(self, *args, disabled_values=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.disabled_values = set(disabled_values)

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        if value in self.disabled_values:
            option["attrs"]["disabled"] = True
        return option


#: What per_catalogue() built, by name, language, day and the catalogue's entries.
_built: dict[tuple, tuple] = {}


def per_catalogue(name: str, build, *args):
    """``build(*args)``, computed once per language, day and set of model catalogue entries
    instead of on every page: the live pages' model tables and pickers are the catalogue's
    texts (about a hundred gettext calls a page). An entry replaced in the catalogue (a test
    edits one) is a new key; the entries are kept with what was built, so their ids stay
    theirs while the key is kept."""
    import datetime as dt

    from django.utils.translation import get_language

    from studyapp.agentloop import models

    live = models.live_models()
    rules = [models.get_model(a) for a in args]
    key = (name, get_language(), dt.date.today(), *map(id, live), None, *map(id, rules), *args)
    kept = _built.get(key)
    if kept is None:
        if len(_built) >= 512:
            _built.clear()
        kept = _built[key] = (live, rules, build(*args))
    return kept[2]


def model_limits(model: str) -> tuple[list[str], str]:
    """Start-form values ``model`` rejects (tool_choice and thinking) and why, in one sentence."""
    return per_catalogue("model-limits", _model_limits, model)


def _model_limits(model: str) -> tuple[list[str], str]:
    from studyapp.agentloop import models

    rules = models.get_model(model)
    if rules is None:
        return [], ""
    rejected, why = [], []
    if rules.forced_tool_choice == models.FORCED_NO:
        rejected += ["any", "tool"]
        why.append("forced tool_choice (use auto with strict tools)")
    if models.thinking_off(model) is None:
        rejected.append("off")
        why.append("turning thinking off (it always thinks)")
    for mode in ("enabled", "adaptive"):
        if mode not in rules.thinking_modes:
            rejected.append(mode)
            why.append({"enabled": "manual thinking", "adaptive": "adaptive thinking"}[mode])
    return rejected, (f"{model} rejects " + ", ".join(why) + ".") if why else ""


def _every_model_limits() -> dict[str, tuple[list[str], str]]:
    from studyapp.agentloop import models

    return {m.id: _model_limits(m.id) for m in models.live_models()}


class ModelSelect(forms.Select):
    """The model picker; each option says what that model rejects (site.js greys it out)."""

    def get_context(self, name, value, attrs):
        # what every offered model rejects, looked up once per render, not once per option
        self._limits = per_catalogue("every-model-limits", _every_model_limits)
        return super().get_context(name, value, attrs)

    def create_option(self, name, value, label, selected, index, subindex=None, attrs=None):
        option = super().create_option(name, value, label, selected, index, subindex, attrs)
        limits = getattr(self, "_limits", {})
        rejected, why = limits[value] if value in limits else model_limits(value)
        option["attrs"]["data-rejects"] = " ".join(rejected)
        option["attrs"]["data-why"] = why
        return option


def model_choices():
    return list(per_catalogue("model-choices", _model_choices))


def _model_choices():
    from studyapp.agentloop import models

    return [(m.id, f"{m.id} ({m.status_text()})") for m in models.live_models()]


def model_thinking(model: str, choice: str, budget: int) -> dict | None:
    """The thinking value to send for a form choice, or ValidationError naming the model."""
    from studyapp.agentloop import models

    if choice == "default":
        return None
    if choice == "adaptive":
        return {"type": "adaptive"}
    if choice == "enabled":
        return {"type": "enabled", "budget_tokens": budget}
    off = models.thinking_off(model)
    if off is None:
        rules = models.get_model(model)
        if rules:
            words = _(
                '%(model)s cannot turn thinking off: it always thinks, and thinking {"type": '
                '"disabled"} is a 400 there. Keep thinking on, or pick a model that can turn it '
                'off (claude-haiku-5-5 accepts {"type": "disabled"}, claude-sonnet-5-5 {"type": '
                '"between_tools"}).'
            )
        else:
            words = _("%(model)s cannot turn thinking off: rules unknown for this model.")
        raise forms.ValidationError(words % {"model": model})
    return off or None


class LiveForm(forms.Form):
    """The parameters of a live run; what the chosen model rejects is refused before sending."""

    scenario = forms.ChoiceField(label=_("Scenario"))
    prompt = forms.CharField(
        required=False,
        max_length=4000,
        label=_("The customer's message (leave empty for the scenario's own)"),
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    # A free value behind a select: a retired or unknown id posted anyway gets a message that
    # names the model, not a generic "not one of the choices".
    model = forms.CharField(max_length=100, label=_("Model"), widget=ModelSelect())
    tool_choice = forms.ChoiceField(
        choices=[
            ("auto", "auto"),
            ("any", "any"),
            ("tool", _("tool (a named tool)")),
            ("none", "none"),
        ],
        initial="auto",
        label="tool_choice",
    )
    tool_name = forms.ChoiceField(required=False, label=_("Tool to force (with tool_choice tool)"))
    disable_parallel = forms.BooleanField(required=False, label="disable_parallel_tool_use")
    max_tokens = forms.IntegerField(min_value=1, max_value=16384, initial=1024, label="max_tokens")
    thinking = forms.ChoiceField(choices=THINKING_CHOICES, initial="default", label=_("Thinking"))
    budget_tokens = forms.IntegerField(
        min_value=1024, max_value=16000, initial=2048, required=False, label="budget_tokens"
    )
    tool_mode = forms.ChoiceField(
        choices=[
            ("automatic", _("Automatic: the demo tools run")),
            ("manual", _("Manual: I write each tool result")),
        ],
        initial="automatic",
        widget=forms.RadioSelect,
        label=_("Tools"),
    )
    max_turns = forms.IntegerField(min_value=1, initial=12, label=_("Turn cap (API calls)"))
    token_budget = forms.IntegerField(min_value=1000, initial=60000, label=_("Token budget"))
    wall_clock_s = forms.IntegerField(min_value=1, initial=180, label=_("Wall clock (seconds)"))
    max_identical_calls = forms.IntegerField(
        min_value=1, initial=2, label=_("Identical calls allowed")
    )
    api_key = forms.CharField(
        required=False,
        max_length=300,
        strip=True,
        label=_("Your own API key (optional)"),
        help_text=_(
            "Kept only in your session, sealed, for this run; never saved, logged or shown "
            "again. Without one, signed-in accounts use the server's key and its daily allowance."
        ),
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
    )

    def __init__(self, *args, scenarios=(), tool_names=(), default_model="", **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["scenario"].choices = [(s.slug, generated(s.title)) for s in scenarios]
        self.fields["tool_name"].choices = [("", "—")] + [(n, n) for n in tool_names]
        self.fields["model"].widget.choices = model_choices()
        self.fields["model"].widget.attrs.pop("maxlength", None)  # not an attribute of <select>
        self.fields["model"].initial = default_model

    def clean(self):
        from studyapp.agentloop import catalogue, runner

        from . import keys

        data = super().clean()
        try:
            data["api_key"] = keys.clean_key(data.get("api_key", ""))
        except keys.KeyError_ as e:
            self.add_error("api_key", str(e))
        if self.errors:
            return data
        model = data["model"].strip()
        choice = {"type": data["tool_choice"]}
        if choice["type"] == "tool":
            if not data.get("tool_name"):
                raise forms.ValidationError(
                    _("tool_choice tool needs the name of the tool to force.")
                )
            choice["name"] = data["tool_name"]
        if data.get("disable_parallel"):
            if choice["type"] == "none":
                raise forms.ValidationError(
                    _(
                        "disable_parallel_tool_use can't go with tool_choice none: "
                        '{"type": "none"} has no such field.'
                    )
                )
            choice["disable_parallel_tool_use"] = True
        budget = data.get("budget_tokens") or 2048
        if data["thinking"] == "enabled" and budget >= data["max_tokens"]:
            raise forms.ValidationError(
                _(
                    "budget_tokens (%(budget)s) must be less than max_tokens "
                    "(%(max_tokens)s): thinking counts toward max_tokens."
                )
                % {"budget": f"{budget:,}", "max_tokens": f"{data['max_tokens']:,}"}
            )
        thinking = model_thinking(model, data["thinking"], budget)
        try:
            catalogue.validate_tool_choice(
                choice, extended_thinking=bool(thinking and thinking["type"] == "enabled")
            )
            guards = runner.Guards.from_dict(
                {
                    k: data[k]
                    for k in ("max_turns", "token_budget", "wall_clock_s", "max_identical_calls")
                }
            )
        except (catalogue.ToolChoiceError, runner.RunnerError) as e:
            raise forms.ValidationError(said(e)) from None
        request = {"model": model, "max_tokens": data["max_tokens"], "tool_choice": choice}
        if thinking:
            request["thinking"] = thinking
        problem = runner.model_refusal({**request, "messages": [{"role": "user", "content": "."}]})
        if problem:
            raise forms.ValidationError(problem)
        data["options"] = {
            "model": model,
            "max_tokens": data["max_tokens"],
            "tool_choice": choice,
            "thinking": thinking,
            "guards": guards,
            "tool_mode": data["tool_mode"],
        }
        return data


class OwnKeyForm(forms.Form):
    """Bring your own API key for one run (or forget it)."""

    api_key = forms.CharField(
        max_length=300,
        strip=True,
        label=_("Your own API key"),
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
    )

    def clean_api_key(self):
        from . import keys

        try:
            key = keys.clean_key(self.cleaned_data["api_key"])
        except keys.KeyError_ as e:
            raise forms.ValidationError(str(e)) from None
        if not key:
            raise forms.ValidationError(_("Paste the key, or leave the form."))
        return key


FORK_TOOL_CHOICES = [
    ("", pgettext_lazy("fork setting", "unchanged")),
    ("auto", "auto"),
    ("any", "any"),
    ("none", "none"),
]
FORK_THINKING = [
    ("", pgettext_lazy("fork setting", "unchanged")),
    ("on", pgettext_lazy("thinking", "on")),
    ("off", pgettext_lazy("thinking", "off")),
]


def fork_limits(model: str) -> tuple[set[str], set[str], list[tuple[str, str]]]:
    """What the fork form greys out for ``model``: (tool_choice, thinking values, reasons)."""
    from studyapp.agentloop import models

    tool_off: set[str] = set()
    thinking_off: set[str] = set()
    reasons: list[tuple[str, str]] = []
    for v in models.check_request(model, {"tool_choice": {"type": "any"}}):
        if v.is_error:
            tool_off.add("any")
            reasons.append(("tool_choice any", v.sentence))
    if models.get_model(model) is not None:
        if models.thinking_off(model) is None:
            thinking_off.add("off")
            reasons.append(
                (
                    "thinking off",
                    _('%(model)s always thinks: thinking {"type": "disabled"} is a 400.')
                    % {"model": model},
                )
            )
        if models.thinking_on(model) is None:
            thinking_off.add("on")
            reasons.append(
                ("thinking on", _("%(model)s has no thinking mode to turn on.") % {"model": model})
            )
    return tool_off, thinking_off, reasons


class ForkForm(forms.Form):
    """Fork a live run; only what the run's model accepts can be chosen (the rest is greyed)."""

    at_step = forms.IntegerField(min_value=0, label=_("Keep the first N steps"))
    model = forms.CharField(required=False, label=_("New model"), widget=forms.Select())
    tool_choice = forms.ChoiceField(
        required=False, choices=FORK_TOOL_CHOICES, label=_("New tool_choice")
    )
    thinking = forms.ChoiceField(required=False, choices=FORK_THINKING, label=_("Thinking"))
    max_tokens = forms.IntegerField(
        required=False, min_value=1, max_value=16384, label=_("New max_tokens")
    )

    def __init__(self, *args, model: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.run_model = model
        tool_off, thinking_off, self.greyed = fork_limits(model)
        self.fields["model"].widget.choices = [("", "unchanged")] + model_choices()
        self.fields["tool_choice"].widget = GreyableSelect(
            choices=FORK_TOOL_CHOICES, disabled_values=tool_off
        )
        self.fields["thinking"].widget = GreyableSelect(
            choices=FORK_THINKING, disabled_values=thinking_off
        )

    def changes(self) -> dict:
        """The runner.fork changes this form asks for (the runner checks the model's rules)."""
        from studyapp.agentloop import models

        data = self.cleaned_data
        out: dict = {}
        model = (data.get("model") or "").strip()
        if model:
            out["model"] = model
        target = model or self.run_model
        if data.get("tool_choice"):
            out["tool_choice"] = {"type": data["tool_choice"]}
        if data.get("max_tokens"):
            out["max_tokens"] = data["max_tokens"]
        if data.get("thinking") == "off":
            out["thinking"] = None  # the runner sends what the model accepts, or refuses
        elif data.get("thinking") == "on":
            on = models.thinking_on(target)
            if on is None:
                raise forms.ValidationError(
                    _("%(model)s has no thinking mode to turn on.") % {"model": target}
                )
            out["thinking"] = on or {"type": "adaptive"}
        return out
