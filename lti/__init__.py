"""The site inside Moodle or Canvas: LTI 1.3 Advantage as a tool.

Built on `django-lti` (Harvard's Academic Technology; 0.10.1, 2026) and its add-on
`django-lti-dynamic-registration`, rather than on `pylti1p3` (2.0.0, 2022) alone:
django-lti is maintained, runs on PyLTI1p3 for the protocol (launch validation, deep
linking, AGS, NRPS), and adds what a Django tool otherwise writes itself — models for
registrations, deployments, keys (with a JWKS view and key rotation), LMS users, courses,
memberships and resource links, the admin for them, and the dynamic registration flow.

Ours: `people` (who a launch is here, which class a course is), `views` (login, launch,
the new-tab page, the deep-linking pick), `refusals` (4xx pages with reasons), `grades` +
`tasks` + `signals` (scores to the LMS from a worker), `roster` (NRPS), `registration`
(dynamic registration). Tested against `lti1p3platform`, a platform implementation:
tests/lti/ and tests/browser/test_lti.py.
"""
