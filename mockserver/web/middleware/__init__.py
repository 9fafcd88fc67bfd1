"""The middleware every request goes through, one concern a module; `web/app.py` lists them in
order."""
