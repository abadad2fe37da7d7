"""A second URLconf for tests/test_kepturl.py: the same name at another address."""

from django.http import HttpResponse
from django.urls import path

urlpatterns = [path("elsewhere/", lambda request: HttpResponse(), name="home")]
