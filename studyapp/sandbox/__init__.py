"""The library of recorded loops, the stepper, predict mode, uploads and live runs.

Imports core and studyapp.agentloop only."""
