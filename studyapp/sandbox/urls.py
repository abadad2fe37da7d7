from django.urls import path

from . import views

app_name = "sandbox"
urlpatterns = [
    path("", views.sandbox_index, name="index"),
    path("upload/", views.upload, name="upload"),
    path("raw-json/", views.toggle_raw, name="toggle_raw"),
    path("uploads/<int:pk>/", views.run_start, name="upload_start"),
    path("uploads/<int:pk>/steps/<int:n>/", views.step, name="upload_steps"),
    path("uploads/<int:pk>/predict/<int:n>/", views.predict, name="upload_predict"),
    path("uploads/<int:pk>/predict/summary/", views.predict_summary, name="upload_predict_summary"),
    path("uploads/<int:pk>/predict/reset/", views.predict_reset, name="upload_predict_reset"),
    path("uploads/<int:pk>/delete/", views.upload_delete, name="upload_delete"),
    path("<slug:slug>/", views.run_start, name="start"),
    path("<slug:slug>/steps/<int:n>/", views.step, name="steps"),
    path("<slug:slug>/predict/<int:n>/", views.predict, name="predict"),
    path("<slug:slug>/predict/summary/", views.predict_summary, name="predict_summary"),
    path("<slug:slug>/predict/reset/", views.predict_reset, name="predict_reset"),
]
