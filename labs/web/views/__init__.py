"""Pages of the lab site, one module per concern. Each view: check access → validate →
save → enqueue → render.

A view answers an htmx request with the page's fragment and a plain request with the
whole page (same template, `#fragment` picks the part), so everything works without
JavaScript too. Responses that differ that way carry `Vary: HX-Request`.
"""
