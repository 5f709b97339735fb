"""The app's resources (injected JavaScript, styles, icons, translations), installed as the package `app.assets`.

Nothing to import here: the file only makes the folder a regular package, so `importlib.resources.files("app.assets")`
finds it in a wheel, an editable install and a bundle alike (see app/startup/resources.py and setup.py).
"""
