"""The chart toolbar's words in the page's language, for plotly.js's own locale mechanism.

plotly.js looks every tooltip and notice of its toolbar up in a registered locale's
dictionary (keyed by its English text); `charts.js` registers this one under the page's
language. Only the buttons `charts.js` keeps are listed, with the notices they raise.
"""

from __future__ import annotations

from django import template
from django.utils.html import json_script
from django.utils.safestring import SafeString
from django.utils.translation import get_language, gettext_lazy

register = template.Library()

WORDS = {
    "Download plot as a PNG": gettext_lazy("Download the chart as a PNG picture"),
    "Zoom": gettext_lazy("Zoom"),
    "Pan": gettext_lazy("Pan"),
    "Reset axes": gettext_lazy("Reset axes"),
    "Autoscale": gettext_lazy("Autoscale"),
    "Double-click to zoom back out": gettext_lazy("Double-click to zoom back out"),
    "Preparing image - this may take a few seconds": gettext_lazy(
        "Preparing the picture: this may take a few seconds"
    ),
    "Image download succeeded": gettext_lazy("The picture is downloaded"),
    "Sorry, there was a problem downloading your image!": gettext_lazy(
        "The picture could not be downloaded."
    ),
}


@register.simple_tag
def plotly_locale() -> SafeString:
    """`<script id="plotly-locale">` with the toolbar's words; nothing on English pages."""
    language = get_language() or "en"
    if language.startswith("en"):
        return SafeString("")
    words = {english: str(said) for english, said in WORDS.items()}
    return json_script({"name": language, "dictionary": words}, "plotly-locale")
