from django.urls import path

from . import views

app_name = "progress"
urlpatterns = [
    path("me/", views.dashboard, name="dashboard"),
    path("review/", views.review, name="review"),
    path("review/start/", views.review_start, name="review_start"),
    path("review/retention/", views.retention, name="retention"),
]
