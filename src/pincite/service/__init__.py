"""Serving pincite over HTTP. `review_page` is the review queue's web page (FastAPI +
Jinja2); like the CLI it calls only the facade (`pincite.library.Library`)."""
