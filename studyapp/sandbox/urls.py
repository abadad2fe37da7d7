from django.urls import path

from . import views, views_live

app_name = "sandbox"
urlpatterns = [
    path("", views.sandbox_index, name="index"),
    path("upload/", views.upload, name="upload"),
    path("compare/", views.compare_runs, name="compare"),
    path("live/", views_live.live_index, name="live"),
    path("live/<int:pk>/", views_live.live_run, name="live_run"),
    path("live/<int:pk>/steps/<int:n>/", views_live.live_steps, name="live_steps"),
    path("live/<int:pk>/step/", views_live.live_step, name="live_step"),
    path("live/<int:pk>/job/", views_live.live_job, name="live_job"),
    path("live/<int:pk>/key/", views_live.live_key, name="live_key"),
    path("live/<int:pk>/stop/", views_live.live_stop, name="live_stop"),
    path("live/<int:pk>/fork/", views_live.live_fork, name="live_fork"),
    path("live/<int:pk>/save/", views_live.live_save, name="live_save"),
    path("raw-json/", views.toggle_raw, name="toggle_raw"),
    path("uploads/<int:pk>/", views.run_start, name="upload_start"),
    path("uploads/<int:pk>/steps/<int:n>/", views.step, name="upload_steps"),
    path("uploads/<int:pk>/predict/<int:n>/", views.predict, name="upload_predict"),
    path("uploads/<int:pk>/predict/summary/", views.predict_summary, name="upload_predict_summary"),
    path("uploads/<int:pk>/predict/reset/", views.predict_reset, name="upload_predict_reset"),
    path("uploads/<int:pk>/delete/", views.upload_delete, name="upload_delete"),
    path("uploads/<int:pk>/share/", views.upload_share, name="upload_share"),
    path("shared/<str:token>/", views.shared_overview, name="shared_overview"),
    path("shared/<str:token>/steps/<int:n>/", views.shared_step, name="shared_steps"),
    path("shared/<str:token>/conversation/", views.shared_conversation, name="shared_conversation"),
    path("uploads/<int:pk>/overview/", views.overview, name="upload_overview"),
    path("uploads/<int:pk>/conversation/", views.conversation, name="upload_conversation"),
    path("<slug:slug>/", views.run_start, name="start"),
    path("<slug:slug>/steps/<int:n>/", views.step, name="steps"),
    path("<slug:slug>/overview/", views.overview, name="overview"),
    path("<slug:slug>/conversation/", views.conversation, name="conversation"),
    path("<slug:slug>/predict/<int:n>/", views.predict, name="predict"),
    path("<slug:slug>/predict/summary/", views.predict_summary, name="predict_summary"),
    path("<slug:slug>/predict/reset/", views.predict_reset, name="predict_reset"),
]
