"""The app on the person's desktop: unattended work (schedules, runs waiting for a person), desktop
notifications, the tray, start at login and the Settings section for them. Above the windows (it raises them,
adds the Schedules panel), below the wiring that makes it."""
