"""Starting the process: the environment QtWebEngine needs, Qt with asyncio, logging, translations, rendering,
the data folder's instance lock and where the resources live. Below everything else in `app/`: nothing here
imports the browser, the operations or the windows."""
