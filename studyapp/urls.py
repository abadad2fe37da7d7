from django.conf.urls.i18n import i18n_patterns
from django.contrib.auth import views as auth_views
from django.urls import include, path

from studyapp import accounts, views
from studyapp.notes import views as note_views

# Outside the language prefixes: machine endpoints whose answer has no language.
urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("csrf/", views.csrf, name="csrf"),
]
# Every page a person reads: English at the root as before, the other languages under their
# prefix (/pl/notes/…, /zh-hans/…); the URL alone decides the language (settings.LANGUAGES).
urlpatterns += i18n_patterns(
    path("", views.home, name="home"),
    path("notes/", include("studyapp.notes.urls")),
    path("glossary/", note_views.glossary_page, name="glossary"),
    path("", include("quizzes.urls")),
    path("", include("progress.urls")),
    path("sandbox/", include("studyapp.sandbox.urls")),
    path("author/", include("authoring.urls")),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/signup/", accounts.signup, name="signup"),
    prefix_default_language=False,
)
