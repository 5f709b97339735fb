"""The Qt adapter: persistent profiles, tabs and windows over QtWebEngine, implementing the browser port."""
