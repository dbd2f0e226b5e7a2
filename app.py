"""ClauseGraph dashboard entry point: `streamlit run app.py`.

Only routing lives here; each page calls `core.ui.support.page_setup` itself, so it also
runs (and is tested) as its own file. Logged-out visitors get nothing but a login page, and
the Data page is registered for admins only.
"""
from core.ui import support as ui_support

ui_support.warm_start()  # once per server, in the background: the model and the vocabulary
ui_support.navigation().run()
