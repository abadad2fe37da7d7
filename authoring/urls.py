from django.urls import path  # noqa: F401

app_name = "author"
# Views are added by the authoring, import/export and statistics work; each under /author/.
urlpatterns: list = []
