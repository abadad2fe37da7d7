"""Sign-up; log-in and log-out are Django's own views."""

from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods


@require_http_methods(["GET", "POST"])
def signup(request):
    form = UserCreationForm(request.POST or None)
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
