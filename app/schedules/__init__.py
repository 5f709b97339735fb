"""Schedules in the running app: the scheduler (`service`), and what tells a person about unattended work."""
