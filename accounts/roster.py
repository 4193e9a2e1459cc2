"""Importing a class roster: one account per student, each with a one-time password.

A teacher pastes or uploads `name[,username]` lines. Every row is checked before anything
is made; a roster with any bad row makes no account at all and comes back with one
message per row, so the teacher fixes the list and imports it again as a whole.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from accounts.models import Profile
from accounts.passwords import new_one_time_password
from accounts.romanise import romanised
from accounts.usernames import normalised, username_problem
from teaching.models import Classroom, Membership

MAX_ROSTER_ROWS = 200
NAME_MAX_LENGTH = 150  # User.first_name
HEADER_NAMES = {"name", "names", "student", "student name"}
# A username made from a name that has no Latin letters (e.g. written in Devanagari).
FALLBACK_USERNAME = "student"


class RosterRaceError(Exception):
    """A username was taken by someone else while the roster was being imported."""


@dataclass(frozen=True)
class RosterRow:
    line: int  # the line number the teacher sees in their list
    name: str
    username: str  # as typed; '' means "make one from the name"


@dataclass(frozen=True)
class RowProblem:
    line: int
    text: str
    message: str


@dataclass(frozen=True)
class Slip:
    """What a student needs to log in the first time, printed on paper."""

    name: str
    username: str
    password: str


class RosterTextError(ValueError):
    """The text is not a list the csv module can read (the message says why, for the page)."""


def parse_roster(text: str) -> list[RosterRow]:
    """Rows of `name[,username]`; blank lines and a first line of column names are skipped.

    Line endings may be Windows', Unix' or old Excel's (CR only); a byte-order mark is
    dropped wherever a spreadsheet left it; usernames are NFKC-normalised (`normalised`).
    """
    text = text.replace("\ufeff", "")
    try:
        return _rows_of(csv.reader(io.StringIO(text, newline=None)))
    except csv.Error as error:
        message = _("The list could not be read as CSV: %(why)s") % {"why": error}
        raise RosterTextError(message) from None


def _rows_of(reader) -> list[RosterRow]:
    rows: list[RosterRow] = []
    next_line = 1
    for raw in reader:
        # The line the record starts on (a record may span lines; reader.line_num ends it).
        line_number, next_line = next_line, reader.line_num + 1
        # A quoted cell may hold a line break in CSV, but no name or username does: a
        # stray quote would otherwise read every line after it as one student's name.
        if any("\n" in cell or "\r" in cell for cell in raw):
            message = _(
                'Line %(n)d opens a quote (") that does not close on that line, so the '
                "lines after it would be read as one name. Remove the quote or close it on "
                "the same line; nothing was imported."
            ) % {"n": line_number}
            raise RosterTextError(message)
        cells = [" ".join(cell.split()) for cell in raw]
        if not any(cells):
            continue
        if not rows and line_number == 1 and cells[0].lower() in HEADER_NAMES:
            continue
        name = cells[0]
        username = cells[1] if len(cells) > 1 else ""
        extra = ",".join(cells[2:]).strip(",")
        username = normalised(username if not extra else f"{username},{extra}")
        rows.append(RosterRow(line_number, name, username))
    return rows


def check_roster(rows: list[RosterRow]) -> list[RowProblem]:
    """Every reason a row cannot be imported; an empty list means the roster is good."""
    problems: list[RowProblem] = []
    if not rows:
        return [RowProblem(0, "", _("The list is empty: write one student per line."))]
    if len(rows) > MAX_ROSTER_ROWS:
        message = _("At most %(n)d students per import: split the list.") % {"n": MAX_ROSTER_ROWS}
        return [RowProblem(0, "", message)]
    first_line_of_username: dict[str, int] = {}
    first_line_of_name: dict[str, int] = {}
    # Only well-formed usernames reach the database (a NUL there is an error on PostgreSQL).
    taken = _taken_usernames(
        [
            r.username
            for r in rows
            if r.username and not username_problem(r.username, check_taken=False)
        ]
    )
    for row in rows:
        text = ",".join(part for part in (row.name, row.username) if part)

        def problem(message: str, row: RosterRow = row, text: str = text) -> None:
            problems.append(RowProblem(row.line, text, message))

        if not row.name:
            problem(_("The name is empty."))
        elif len(row.name) > NAME_MAX_LENGTH:
            problem(_("The name is longer than %(n)d characters.") % {"n": NAME_MAX_LENGTH})
        elif any(unicodedata.category(c) == "Cc" for c in row.name):
            problem(_("The name has a control character (such as NUL): type it again."))
        if row.username:
            key = row.username.lower()
            if why := username_problem(row.username, check_taken=False):
                problem(why)
            elif key in taken:
                problem(_("The username %(u)s is already taken.") % {"u": row.username})
            elif key in first_line_of_username:
                problem(
                    _("The username %(u)s is also on line %(line)d.")
                    % {"u": row.username, "line": first_line_of_username[key]}
                )
            first_line_of_username.setdefault(key, row.line)
        elif row.name:
            key = row.name.lower()
            if key in first_line_of_name:
                problem(
                    _(
                        "The same name is on line %(line)d: give one of them a username "
                        "to tell them apart, or remove the repeat."
                    )
                    % {"line": first_line_of_name[key]}
                )
            first_line_of_name.setdefault(key, row.line)
    return problems


def import_roster(classroom: Classroom, rows: list[RosterRow]) -> list[Slip]:
    """Make every account of a checked roster, all or none; the slips hold the passwords.

    The passwords are shown once (on the slips) and kept only as hashes.
    """
    usernames = _usernames_for(rows)
    slips = [
        Slip(row.name, username, new_one_time_password())
        for row, username in zip(rows, usernames, strict=True)
    ]
    User = get_user_model()
    try:
        with transaction.atomic():
            User.objects.bulk_create(
                [
                    User(
                        username=slip.username,
                        first_name=slip.name,
                        password=make_password(slip.password),
                    )
                    for slip in slips
                ]
            )
            users = list(User.objects.filter(username__in=[slip.username for slip in slips]))
            Profile.objects.bulk_create(
                [Profile(user=user, must_change_password=True) for user in users]
            )
            Membership.objects.bulk_create(
                [
                    Membership(classroom=classroom, student=user, origin=Membership.Origin.ROSTER)
                    for user in users
                ]
            )
    except IntegrityError as error:
        raise RosterRaceError(str(error)) from error
    return slips


def _taken_usernames(usernames: list[str]) -> set[str]:
    """Those of `usernames` someone already has, compared without case (as Django's forms do)."""
    if not usernames:
        return set()
    lowered = {u.lower() for u in usernames}
    existing = get_user_model().objects.values_list("username", flat=True)
    # One query: the candidates are few, and iexact has no IN form.
    pattern = "^(" + "|".join(re.escape(u) for u in lowered) + ")$"
    return {u.lower() for u in existing.filter(username__iregex=pattern)}


def _usernames_for(rows: list[RosterRow]) -> list[str]:
    """The typed username, or one made from the name that nobody (here or before) has."""
    typed = {row.username.lower() for row in rows if row.username}
    bases = {_username_base(row.name) for row in rows if not row.username}
    User = get_user_model()
    used = set(typed)
    for base in bases:
        used |= {
            u.lower()
            for u in User.objects.filter(username__istartswith=base).values_list(
                "username", flat=True
            )
        }
    usernames = []
    for row in rows:
        if row.username:
            usernames.append(row.username)
            continue
        base = _username_base(row.name)
        candidate, n = base, 1
        while candidate in used:
            n += 1
            candidate = f"{base}{n}"
        used.add(candidate)
        usernames.append(candidate)
    return usernames


def _username_base(name: str) -> str:
    """'Asha Patil' -> 'asha.patil'; 'भक्ती चव्हाण' -> 'bhakti.chavhan' (Devanagari through
    ITRANS, `accounts.romanise`; other scripts through anyascii); a name with nothing to
    write -> 'student'."""
    return ".".join(romanised(name))[:30].strip(".") or FALLBACK_USERNAME
