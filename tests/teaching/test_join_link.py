"""The class page's QR code scans to the class's short join link, and the link fills in
the join code (sign-up for a visitor, the join form for a signed-in student)."""

from __future__ import annotations

import io
import re

import cairosvg
import zxingcpp
from django.urls import reverse
from PIL import Image

from tests.base import make_user

JOIN = "http://testserver/j/AAAA2222/"


def class_page(client, school) -> str:
    client.force_login(school.teacher)
    return client.get(reverse("class-detail", args=[school.class_a.pk])).content.decode()


def decoded(svg: str) -> list[str]:
    """The SVG the page serves, drawn to PNG by Cairo and read by ZXing (a QR reader)."""
    if "xmlns=" not in svg:  # inline in HTML it needs none; a standalone file does
        svg = svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
    png = cairosvg.svg2png(bytestring=svg.encode(), output_width=400, output_height=400)
    image = Image.open(io.BytesIO(png)).convert("L")
    return [code.text for code in zxingcpp.read_barcodes(image)]


def test_the_qr_code_on_the_class_page_scans_to_the_join_link(client, school):
    html = class_page(client, school)
    svg = re.search(r'<svg [^>]*class="join-qr".*?</svg>', html, re.S)
    assert svg is not None
    assert decoded(svg.group(0)) == [JOIN]
    assert f'href="{JOIN}"' in html  # the same link, to type


def test_the_reader_reads_only_what_is_drawn(client, school):
    """The check can fail: another class's code is another link."""
    school.class_a.join_code = "ZZZZ9999"
    school.class_a.save()
    svg = re.search(r'<svg [^>]*class="join-qr".*?</svg>', class_page(client, school), re.S)
    assert svg is not None and decoded(svg.group(0)) == ["http://testserver/j/ZZZZ9999/"]


def test_the_page_has_no_script_for_it(client, school):
    html = class_page(client, school)
    block = html[html.index('class="join-phone"') :]
    block = block[: block.index("</details>")]
    assert "<script" not in block and "<img" not in block


def test_the_short_link_opens_sign_up_with_the_code_for_a_visitor(client, school):
    response = client.get("/j/aaaa2222/")
    assert response.status_code == 302 and response["Location"] == "/accounts/signup/?code=AAAA2222"
    page = client.get(response["Location"]).content.decode()
    assert 'value="AAAA2222"' in page


def test_the_short_link_fills_the_join_form_for_a_signed_in_student(client, school):
    client.force_login(make_user("newcomer"))
    response = client.get("/j/AAAA2222/", follow=True)
    assert response.redirect_chain[-1][0] == "/classes/?code=AAAA2222"
    assert 'value="AAAA2222"' in response.content.decode()
    # a GET joins nobody: the student still presses Join
    assert not school.class_a.memberships.filter(student__username="newcomer").exists()


def test_an_archived_class_shows_no_join_code_for_phones(client, school):
    from django.utils import timezone

    school.class_a.archived_at = timezone.now()
    school.class_a.save()
    assert 'class="join-qr"' not in class_page(client, school)
