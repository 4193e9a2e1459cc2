"""Settings for the lab site, read from environment variables (see `.env.example`).

The defaults make a laptop work with no configuration: SQLite in `var/`, Redis on
localhost, DEBUG on. A deployment sets DATABASE_URL, REDIS_URL, SECRET_KEY and DEBUG=false.
"""

from __future__ import annotations

import os
import re
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.utils.csp import CSP

from school.env import env_bool, env_int, env_list, env_str, secret_key, with_redis_db

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))
# Where `manage.py backup` writes when given no file: best another disk or machine (README).
BACKUP_DIR = Path(env_str("BACKUP_DIR", "") or VAR_DIR / "backups")

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = secret_key(debug=DEBUG)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "axes",
    "labs",
    "teaching",
    "classlab",
    "accounts",
    "lessons",
    "ops",
    # LTI 1.3 Advantage as a tool (lti/, on django-lti's models and PyLTI1p3).
    "lti_tool",
    "lti",
]

# A refused form (CSRF) gets the site's page in the reader's language, not Django's.
CSRF_FAILURE_VIEW = "ops.errors.csrf_failure"

MIDDLEWARE = [
    # First: times the whole answer, every other middleware included (ops/metrics.py).
    "ops.metrics.RequestMetrics",
    "django.middleware.security.SecurityMiddleware",
    # Static files: WhiteNoise answers them itself, pre-compressed (Brotli, gzip) in
    # production, with their ETag kept strong so If-None-Match gets a 304 (GZip below
    # would recompress a file on the fly and weaken its ETag: the dev server sent 200s).
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and fragments go out compressed (slow school networks).
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in person's pages and exports: Cache-Control private (accounts/private_cache.py).
    "accounts.private_cache.PrivateCacheMiddleware",
    # A signed-in person's profile language wins over the cookie and Accept-Language.
    "accounts.language.ProfileLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last: it turns a login refused for too many failures into the lockout page.
    "axes.middleware.AxesMiddleware",
    # Sets the known-device cookie at a login (accounts/devices.py).
    "accounts.devices.KnownDeviceMiddleware",
    "accounts.middleware.PasswordChangeRequiredMiddleware",
    # Runs made by a request carry its address: experiments take turns by person.
    "accounts.middleware.RunAddressMiddleware",
]

ROOT_URLCONF = "school.urls"
WSGI_APPLICATION = "school.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "teaching.invitations.pending_invitations",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0, low=0, high=3600),
        # A kept connection is checked before each request reuses it (a restarted database).
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # Tests use a file, not memory, so a real Celery worker process can share it.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}
    # A web process and workers share the file: WAL lets readers go on while one writes,
    # IMMEDIATE takes the write lock up front, and the timeout waits for it instead of failing.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":
    # Several checkouts testing against one PostgreSQL each name their own test database.
    DATABASES["default"]["TEST"] = {"NAME": env_str("TEST_DB_NAME", "") or None}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Accounts ---------------------------------------------------------------------------
# Argon2 first (memory-hard, tuned in accounts/hashers.py so a login costs tens of
# milliseconds, see bench/bench_password_hash.py); the others only check old hashes,
# which are upgraded to Argon2 at the person's next login.
PASSWORD_HASHERS = [
    "accounts.hashers.ClassroomArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]
_VALIDATION = "django.contrib.auth.password_validation"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"{_VALIDATION}.UserAttributeSimilarityValidator"},
    {"NAME": f"{_VALIDATION}.MinimumLengthValidator", "OPTIONS": {"min_length": 8}},
    {"NAME": f"{_VALIDATION}.CommonPasswordValidator"},
    {"NAME": f"{_VALIDATION}.NumericPasswordValidator"},
]
AUTHENTICATION_BACKENDS = [
    # First, so a locked-out username or address is refused before any password check.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Failed logins (django-axes, counted in the database so every web process sees them):
# a pause after LOGIN_FAILURES_PER_USERNAME failures of a username at one address, after
# LOGIN_FAILURES_PER_ADDRESS of an address (wrong passwords only: a class shares one
# address), after LOGIN_FAILURES_PER_USERNAME_ANYWHERE of a username, each for
# LOGIN_LOCKOUT_MINUTES; never for a known device's right password (accounts/throttle.py).
LOGIN_FAILURES_PER_USERNAME = env_int("LOGIN_FAILURES_PER_USERNAME", 5, low=1, high=100)
LOGIN_FAILURES_PER_ADDRESS = env_int("LOGIN_FAILURES_PER_ADDRESS", 50, low=1, high=10000)
LOGIN_FAILURES_PER_USERNAME_ANYWHERE = env_int(
    "LOGIN_FAILURES_PER_USERNAME_ANYWHERE", 30, low=1, high=10000
)
AXES_HANDLER = "accounts.throttle.UsernameAndAddressHandler"
# The order accounts/throttle.py reads them in: username at an address, address, username.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address", "username"]
AXES_FAILURE_LIMIT = LOGIN_FAILURES_PER_USERNAME
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, low=1, high=1440))
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
# Sign-up with a join code (accounts.signup_throttle): at most this many new accounts a
# minute and an hour from one address. A class of 100 behind one school address signs up
# within the hourly limit over a lesson's first minutes.
SIGNUPS_PER_MINUTE = env_int("SIGNUPS_PER_MINUTE", 20, low=1, high=10000)
SIGNUPS_PER_HOUR = env_int("SIGNUPS_PER_HOUR", 150, low=1, high=100000)
# One class's code: a burst a minute, then slower over the hour (a class of 100 still joins
# in a lesson; a script no longer fills it: accounts/signup_throttle.py).
SIGNUPS_PER_CODE_PER_MINUTE = env_int("SIGNUPS_PER_CODE_PER_MINUTE", 10, low=1, high=10000)
SIGNUPS_PER_CODE_PER_HOUR = env_int("SIGNUPS_PER_CODE_PER_HOUR", 110, low=1, high=100000)
AXES_RESET_ON_SUCCESS = False  # a success must not wipe the failures of others at one address
AXES_VERBOSE = False
# Behind a reverse proxy every request comes from the proxy: read the client's address
# from the last X-Forwarded-For entry (the one the proxy added) instead.
BEHIND_PROXY = env_bool("BEHIND_PROXY", False)
AXES_CLIENT_IP_CALLABLE = "accounts.throttle.client_address"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en"
# The course is taught in Marathi and English. Numbers stay in Western digits in both.
LANGUAGES = [("en", "English"), ("mr", "मराठी")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Asia/Kolkata")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "staticfiles"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise warns on a missing one
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "school.static_storage.HashedModulesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Cached by browsers for a year (`immutable`): files whose name changes with their content,
# hashed by collectstatic in production (`site.3f2a9c1b7d4e.css`) or vendored under a
# versioned name (`vendor/htmx-2.0.11.min.js`, `vendor/noto-sans-devanagari-5.3.0/...`),
# so the dev server (`./dev run`, DEBUG, unhashed names) keeps plotly.js too. Our own
# files in development are sent with max-age=0 and revalidated (ETag, 304).
IMMUTABLE_STATIC = re.compile(
    rf"^/{STATIC_URL}(?:.*\.[0-9a-f]{{12}}\.\w+|vendor/[^/]*-\d+\.\d+\.\d+[^/]*(?:/[^/]+)?)$"
)


def immutable_static(path: str, url: str) -> bool:
    return bool(IMMUTABLE_STATIC.match(url))


WHITENOISE_IMMUTABLE_FILE_TEST = immutable_static

# One Redis server, three databases. The broker (Celery's queues, database 0 by default) and
# the live experiments' keys (EXPERIMENT_REDIS_URL, database 1 of the same server unless
# set) are apart, so a student's experiment can be found, counted and flushed without
# touching a queued task. Every experiment key has a TTL and the broker's keys have none:
# with `maxmemory-policy volatile-ttl` (docs/ARCHITECTURE.md, "Redis memory") a full Redis
# evicts experiment keys first and can never evict the broker.
REDIS_URL = env_str("REDIS_URL", "redis://127.0.0.1:6379/0")
EXPERIMENT_REDIS_URL = env_str("EXPERIMENT_REDIS_URL", "") or with_redis_db(REDIS_URL, 1)
# The experiments are Django-free and read their server from the environment.
os.environ.setdefault("EXPERIMENT_REDIS_URL", EXPERIMENT_REDIS_URL)
# Database 2: Django's cache, shared by every web process on every machine (a finished
# run's rendered fragment, `labs.web.fragment_cache`). Every entry has a TTL, so with
# volatile-ttl a full Redis may evict it, never a queued task.
CACHE_REDIS_URL = env_str("CACHE_REDIS_URL", "") or with_redis_db(REDIS_URL, 2)
CACHES = {
    "default": {
        "BACKEND": "school.cache.ReusingRedisCache",  # Django's, its clients kept
        "LOCATION": CACHE_REDIS_URL,
        "TIMEOUT": 3600,
        # Two sites (or a site and a test session) on one Redis keep their entries apart.
        "KEY_PREFIX": env_str("CACHE_KEY_PREFIX", ""),
        # A slow or absent cache is skipped (the page is rendered), not waited on.
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
}
CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None  # results live in the database (Run.result), not in Redis
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_TIMEOUT = 3
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A Redis full of data without a TTL refuses the workers' writes (an acknowledgement, a
# reconnection's lock): Celery then stopped the worker, and runs waited for someone to start
# it again. Reconnect instead, and wait the refusal out (labs.runs.worker_consumer).
CELERY_BROKER_CHANNEL_ERROR_RETRY = True
CELERY_WORKER_CONSUMER = "labs.runs.worker_consumer:Consumer"
# A run going when the worker reconnects goes on and saves its result (Celery 6 would kill
# it by default); its message, if handed out again, finds the run claimed and never runs it
# twice (labs.runs.tasks).
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False
# Celery closes a worker's database connection before and after every task unless this is
# set (then only every this many tasks): labs.runs.task_connections closes it by Django's
# rule instead (CONN_MAX_AGE), so a quick run no longer opens a connection of its own.
CELERY_DB_REUSE_MAX = 1000
# With acks_late a task whose worker died is delivered again once this passes.
# It must be longer than the longest lab run (each lab's time_limit_s, at most 115 s for
# trapped-live and 125 s for an experiment's 20 seeds, plus the 15 s to the hard limit).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT_S", 300, low=120, high=86400),
    "socket_connect_timeout": 3,
    "socket_timeout": 10,
    # Ten priority lists per queue (0 taken first, 9 last) instead of kombu's four: a run
    # on the quick queue is sent at the level its class's backlog sets (labs.runs.fair_share).
    "priority_steps": list(range(10)),
}
# Two queues, each with workers of its own (`./dev run` starts both; `./dev worker quick`
# or `./dev worker heavy` adds one anywhere). Quick labs (most simulations, well under a
# second of CPU) go to LAB_QUEUE; heavy work (phase maps, long capstone runs, the real
# experiments and the queue panel's drains) goes to LAB_HEAVY_QUEUE, so a class's heavy
# runs wait behind each other and never in front of a quick lab; on the quick queue each
# class has a fair share (LAB_FAIR_SHARE below). Why: docs/run-lifecycle.md, "Fair use of
# the workers".
LAB_QUEUE = env_str("LAB_QUEUE", "labs")
LAB_HEAVY_QUEUE = env_str("LAB_HEAVY_QUEUE", "labs-heavy")
CELERY_TASK_DEFAULT_QUEUE = LAB_QUEUE
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# Bounds that keep every lab run short and every user fair to the others.
LAB_MAX_ACTIVE_RUNS_PER_USER = env_int("LAB_MAX_ACTIVE_RUNS_PER_USER", 4, low=1, high=100)
# Real experiments load the shared Redis (worker threads, thousands of messages): fewer at
# once. A queue panel's drain after a redrive counts as one while it goes on.
LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER = env_int(
    "LAB_MAX_ACTIVE_EXPERIMENTS_PER_USER", 2, low=1, high=20
)
# A student's experiments take turns on the heavy workers, one running at a time, so one
# student's two long experiments never hold every heavy process (labs/runs/turns.py).
# Off: work-conserving, first come first served (a site with one student at a time).
LAB_EXPERIMENT_TURNS = env_bool("LAB_EXPERIMENT_TURNS", True)
# Turns by person: experiments pressed from one address take turns, whatever the account
# (labs.runs.turns). Off when a whole class reaches the site from one address (a NAT).
LAB_TURNS_BY_ADDRESS = env_bool("LAB_TURNS_BY_ADDRESS", True)
# A class experiment's pages follow its live stream (Server-Sent Events) when an ASGI server
# answers /x/<code>/stream/ (./dev run starts one behind nginx); otherwise they poll.
CLASSLAB_STREAM = env_bool("CLASSLAB_STREAM", False)
# A worker's hold on a run; renewed every quarter of it. A killed worker's run is noticed
# (failed or taken over) this many seconds after its last renewal.
LAB_LEASE_S = env_int("LAB_LEASE_S", 20, low=2, high=600)
# A run no worker has picked up after this long is failed with "the runners are busy or
# down", so no run waits for ever and no student is locked out by runs that never start.
LAB_QUEUE_TIMEOUT_S = env_int("LAB_QUEUE_TIMEOUT_S", 300, low=10, high=86400)
# The most worker time one run may cost, estimated from its parameters before it is
# queued (labs' `cost`); a form asking for more is refused in words, next to the fields.
LAB_RUN_BUDGET_S = env_int("LAB_RUN_BUDGET_S", 10, low=1, high=600)
# The same for a real-queue experiment: the wall seconds it may hold a heavy worker
# process (its `cost`: its own timeline plus start-up and clean-up). The longest allowed
# now is a trapped-live run of 100 s; the experiments' Celery limits sit above this.
LAB_EXPERIMENT_BUDGET_S = env_int("LAB_EXPERIMENT_BUDGET_S", 110, low=5, high=600)
# A run estimated to cost more than this goes to the heavy queue.
LAB_HEAVY_FROM_S = env_int("LAB_HEAVY_FROM_S", 1, low=0, high=600)
# Kept dead-letter queues (an hour each): at most this many per student and in all.
# Past either cap the oldest is dropped first and its run's page says so.
LAB_KEPT_DLQ_PER_USER = env_int("LAB_KEPT_DLQ_PER_USER", 3, low=1, high=100)
LAB_KEPT_DLQ_TOTAL = env_int("LAB_KEPT_DLQ_TOTAL", 300, low=1, high=100000)
# The sweeper (`manage.py sweep_runs --loop`, started by ./dev run): how often it looks.
# Every 2 s: a queued run whose message was lost (labs.runs.lost) is sent again within
# about 5 s (3 s of grace after its publish, then the next sweep).
LAB_SWEEP_EVERY_S = env_int("LAB_SWEEP_EVERY_S", 2, low=1, high=3600)
# The polls a second all waiting run pages share (labs.runs.waiting): with more runs
# waiting than this, each page polls less often than its own pace (at most every 2 s).
# Raise it with more web machines.
LAB_POLLS_PER_S = env_int("LAB_POLLS_PER_S", 100, low=1, high=100000)
# Unnamed, unsubmitted runs older than this many days are deleted by the sweeper.
LAB_PRUNE_AFTER_DAYS = env_int("LAB_PRUNE_AFTER_DAYS", 30, low=1, high=3650)
# A Run press (or a draft) on the quick queue waits up to this long for its run to end and
# then answers with the chart itself, no poll (labs.runs.ended): a quick simulation takes a
# worker 20–100 ms. 0 turns it off. A waiting press holds a web thread, not a core, and at
# most LAB_PRESS_WAITERS threads of each web process wait at once (of WEB_THREADS, 4), so
# under a class's burst the others answer at once and their pages poll.
LAB_PRESS_WAIT_S = env_int("LAB_PRESS_WAIT_MS", 600, low=0, high=5000) / 1000
LAB_PRESS_WAITERS = env_int("LAB_PRESS_WAITERS", 2, low=0, high=64)
# A fair share of the quick queue per class (labs.runs.fair_share): a run is sent at a
# priority set by how many of its class's runs already wait, and admission judges a class
# by its own oldest waiting run, so one class's flood (100 phase maps) waits its own turn
# while other classes' quick labs are answered. Off: first come, first served, admission by
# the queue's oldest run.
LAB_FAIR_SHARE = env_bool("LAB_FAIR_SHARE", True)
# Drafts (runs started by moving a control, labs.runs.drafts) that nobody kept are deleted
# by the sweeper this many minutes after they were made.
LAB_DRAFT_KEEP_MIN = env_int("LAB_DRAFT_KEEP_MIN", 60, low=1, high=10080)

SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_HTTPONLY = True
# Kept in the database, read from a copy in the cache (`CACHES`); a failing cache is
# skipped, never an error or a logout (school/sessions.py).
SESSION_ENGINE = "school.sessions"
# School computers are shared: a session ends 8 hours after login (one school day, never
# the next class's) and when the browser closes. SESSION_HOURS changes it.
SESSION_COOKIE_AGE = 3600 * env_int("SESSION_HOURS", 8, low=1, high=24 * 14)
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
# HTTPS usually ends at a proxy in front of the site (nginx, Caddy): these are set there or
# here once it does (README, "Serving it for a class"). `check --deploy` warns until then.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, low=0, high=63072000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
if env_bool("BEHIND_HTTPS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# Everything is served from this site (htmx and plotly.js are vendored). Scripts: our own
# files, or an inline block carrying the request's nonce. Styles may be inline because
# plotly.js and htmx insert <style> elements and style attributes as they draw.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.UNSAFE_INLINE],
    "img-src": [CSP.SELF, "data:", "blob:"],
    "font-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}

# The site's own queues, watched (labs/runs/telemetry.py): sampled once a second by the
# sweeper into Redis (the cache's database by default, never the broker's), so every web
# process on every machine reads the same figures. Keys start with TELEMETRY_PREFIX (the
# tests use one of their own on the shared Redis).
TELEMETRY_REDIS_URL = env_str("TELEMETRY_REDIS_URL", "") or CACHE_REDIS_URL
TELEMETRY_PREFIX = env_str("TELEMETRY_PREFIX", "telemetry")
# Admission by oldest age (labs.runs.admission.check_runners): a new quick run is refused
# at once when the quick queue's oldest waiting run is older than this. A quick lab takes
# well under a second, so a run waiting 10 s means a backlog of many seconds' work: a new
# press would wait past the page's slowest poll (2 s) many times over and, if the backlog
# keeps growing, toward LAB_QUEUE_TIMEOUT_S (300 s), when it would fail anyway. Saying so
# at once lets the student try again later instead of holding one of their run slots.
LAB_ADMIT_OLDEST_S = env_int("LAB_ADMIT_OLDEST_S", 10, low=1, high=3600)
# The heavy queue's own threshold. A heavy run (a phase map, a long capstone, a real-queue
# experiment) may hold a worker for up to LAB_EXPERIMENT_BUDGET_S (110 s), so a wait of a
# minute or two behind others is normal and is not refused. In a FIFO queue a new run waits
# about as long as the oldest has; past 120 s, that wait plus a run of up to 125 s (the
# budget and the 15 s to the hard limit) comes to over 4 minutes, close to
# LAB_QUEUE_TIMEOUT_S (300 s), past which a run that has not started fails anyway.
LAB_ADMIT_HEAVY_OLDEST_S = env_int("LAB_ADMIT_HEAVY_OLDEST_S", 120, low=1, high=3600)
# An action a phone sends again (its outbox, after a dropped link) is done once: the key it
# carries is remembered this long with the first answer's status (labs/web/idempotency.py);
# a phone offline for longer and then sending again would act a second time. The answer's
# body (a lab's panel, ~10 KB compressed) is kept only for the shorter time a page waits on
# it, so a class's slider moves do not fill Redis.
IDEMPOTENCY_TTL_S = env_int("IDEMPOTENCY_TTL_S", 86400, low=60, high=30 * 86400)
IDEMPOTENCY_BODY_TTL_S = env_int("IDEMPOTENCY_BODY_TTL_S", 900, low=10, high=86400)
# /metrics (ops/metrics.py) answers only a request bearing this token; unset: 404.
METRICS_TOKEN = env_str("METRICS_TOKEN", "")

# Health checks (ops/health.py): how long the deep check waits for each dependency.
HEALTH_TIMEOUT_S = env_int("HEALTH_TIMEOUT_S", 2, low=1, high=30)
# /healthz/deep tells anyone its status; the detail of each check (worker hostnames, a
# database error with its host) only to staff or to a monitor sending
# `Authorization: Bearer <HEALTH_TOKEN>`. Empty: staff only.
HEALTH_TOKEN = os.environ.get("HEALTH_TOKEN", "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # A 403 or a request during a database outage: one line with the reason (ops/logs.py).
    "filters": {"one_line_for_expected": {"()": "ops.logs.OneLineForExpected"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.request": {"filters": ["one_line_for_expected"]}},
}
