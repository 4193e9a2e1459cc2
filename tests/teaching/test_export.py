"""The class's zip: every report.md shows the HTML people typed, never carries it raw."""

from __future__ import annotations

import io
import zipfile

from labs.runs.models import Run
from teaching.models import Submission
from tests.teaching.test_term_end import term, url  # noqa: F401 - the fixture

SCRIPT = "<script>alert(1)</script>"


def test_report_md_carries_no_raw_html_from_anyone(client, term):  # noqa: F811
    """The attack's L5/D12: 8 of 8 report.md files held `<script>`."""
    term.alice.first_name = SCRIPT
    term.alice.save()
    term.pair.title = f"Trapped {SCRIPT}"
    term.pair.save()
    Submission.objects.filter(assignment=term.pair).update(
        feedback=f"<img src=x onerror=alert(2)> {SCRIPT}", scores={SCRIPT: 4}
    )
    Run.objects.filter(owner=term.alice).update(name=SCRIPT, note=SCRIPT)
    client.force_login(term.teacher)
    response = client.get(url("class-export", term.class_a.pk))
    archive_zip = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    reports = [n for n in archive_zip.namelist() if n.endswith("report.md")]
    assert len(reports) >= 2
    texts = [archive_zip.read(name).decode() for name in reports]
    for name, text in zip(reports, texts, strict=True):
        assert "<script" not in text and "<img" not in text, name
    assert any("&lt;script&gt;" in text for text in texts)  # shown as typed
