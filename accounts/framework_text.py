"""Django's own words that our pages show, so our catalogue gives them in Marathi.

Django ships a Marathi catalogue, but it misses most of these (the login form, form
errors). A catalogue in LOCALE_PATHS wins over Django's, and `makemessages` keeps only
what the code marks, so they are marked here with the exact English Django uses.
Nothing imports this module: it exists for `makemessages`.
"""

from django.utils.translation import gettext_noop, ngettext

DJANGO_TEXT = (
    # django.contrib.auth: the user model and the login form
    gettext_noop("username"),
    gettext_noop("Password"),
    gettext_noop(
        "Please enter a correct %(username)s and password. Note that both "
        "fields may be case-sensitive."
    ),
    gettext_noop("This account is inactive."),
    # django.forms: the errors a form field can give
    gettext_noop("This field is required."),
    gettext_noop("Enter a whole number."),
    gettext_noop("Enter a number."),
    gettext_noop("Enter a valid date/time."),
    gettext_noop("Select a valid choice. %(value)s is not one of the available choices."),
    gettext_noop("Select a valid choice. That choice is not one of the available choices."),
    gettext_noop("Ensure this value is less than or equal to %(limit_value)s."),
    gettext_noop("Ensure this value is greater than or equal to %(limit_value)s."),
    gettext_noop("Null characters are not allowed."),
    gettext_noop(
        "Enter a valid username. This value may contain only letters, numbers, and "
        "@/./+/-/_ characters."
    ),
    # django.forms: the empty choice of a select that must be chosen (the report's picker)
    gettext_noop("- Select an option -"),
    # django.utils.dates: a date's short month ("21 Dec, 13:17"); Django's Marathi gives
    # डिस, where CLDR and the newspapers write डिसें.
    gettext_noop("jan"),
    gettext_noop("feb"),
    gettext_noop("mar"),
    gettext_noop("apr"),
    gettext_noop("may"),
    gettext_noop("jun"),
    gettext_noop("jul"),
    gettext_noop("aug"),
    gettext_noop("sep"),
    gettext_noop("oct"),
    gettext_noop("nov"),
    gettext_noop("dec"),
)


def _plurals(n: int) -> tuple[str, ...]:
    """Django's words with a number of things, marked with `ngettext` (there is no
    `ngettext_noop`); never called. The password rules shown on the password pages."""
    return (
        ngettext(
            "Your password must contain at least %(min_length)d character.",
            "Your password must contain at least %(min_length)d characters.",
            n,
        ),
        ngettext(
            "This password is too short. It must contain at least %d character.",
            "This password is too short. It must contain at least %d characters.",
            n,
        ),
    )
