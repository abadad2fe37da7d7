"""Sign-up; log-in and log-out are Django's own views."""

from django.contrib.auth import login, password_validation
from django.contrib.auth.forms import UserCreationForm
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.views.decorators.http import require_http_methods

#: language -> Django's list of the password rules, as HTML
_PASSWORD_HELP: dict[str | None, SafeString] = {}


def _password_help() -> SafeString:
    """The rules of AUTH_PASSWORD_VALIDATORS as Django lists them under the password field,
    built once per language: UserCreationForm's own help text is a lazy string that asks every
    validator again each time it is read, and the sign-up page reads it three times."""
    lang = get_language()
    if lang not in _PASSWORD_HELP:
        # format_html built it, every rule escaped
        rules = str(password_validation.password_validators_help_text_html())
        _PASSWORD_HELP[lang] = mark_safe(rules)  # noqa: S308
    return _PASSWORD_HELP[lang]


@receiver(setting_changed)
def _rules_changed(*, setting, **kwargs):
    if setting == "AUTH_PASSWORD_VALIDATORS":
        _PASSWORD_HELP.clear()


class SignupForm(UserCreationForm):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["password1"].help_text = _password_help()


@require_http_methods(["GET", "POST"])
def signup(request):
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        # login() fires user_logged_in, which moves this browser's anonymous work to the account.
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        target = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
            target = "home"
        return redirect(target)
    target = request.POST.get("next") or request.GET.get("next", "")
    if not url_has_allowed_host_and_scheme(target, {request.get_host()}):
        target = ""
    return render(request, "registration/signup.html", {"form": form, "next": target})
