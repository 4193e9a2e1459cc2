// A phone in the class experiment. Scenario 1: call the server every second (it decides
// what the teacher's pace and the policy send), and on "Send more"; scenario 2: take a job,
// work it (by a tap, or by itself after the teacher's delay) and say Done.
(function () {
  "use strict";
  var root = document.getElementById("cx-phone");
  if (!root) return;
  var csrf = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
  var statusEl = document.getElementById("cx-phone-status");
  var taps = 0;
  var busy = false;

  // keepalive: a tick or a Done on its way when the page goes (a reload, the language
  // switched) still reaches the server, so no tap or finished job is lost with the page.
  function post(url, data) {
    var body = new URLSearchParams(data || {});
    return fetch(url, {
      method: "POST", body: body, credentials: "same-origin", keepalive: true,
      headers: { "X-CSRFToken": csrf, "Content-Type": "application/x-www-form-urlencoded" }
    }).then(function (r) { return r.json().catch(function () { return {}; }); });
  }
  function show(record) {
    root.querySelectorAll(".cx-mine dd[data-k]").forEach(function (dd) {
      var v = record[dd.getAttribute("data-k")];
      if (v !== undefined) dd.textContent = v;
    });
  }
  function status(s) {
    if (s === "ended") statusEl.textContent = root.dataset.ended;
    else if (s === "waiting") statusEl.textContent = root.dataset.waiting;
    else if (s === "running") statusEl.textContent = root.dataset.running;
    if (s && s !== root.dataset.status) {
      root.dataset.status = s;
      if (s === "running" && document.querySelector("form[action$='/predict/']")) location.reload();
    }
  }

  if (root.dataset.scenario === "storm") {
    var tapButton = document.getElementById("cx-tap");
    var policyEl = document.getElementById("cx-policy");
    tapButton.addEventListener("click", function () { taps = Math.min(3, taps + 1); tick(); });
    var tick = function () {
      if (busy) return;
      busy = true;
      var sent = taps; taps = 0;
      post(root.dataset.tick, { taps: sent }).then(function (data) {
        status(data.status);
        if (data.record) show(Object.assign({ in_flight: data.in_flight }, data.record));
        if (data.policy_name) policyEl.textContent = data.policy_name;
      }).catch(function () {}).then(function () { busy = false; });
    };
    setInterval(function () { if (root.dataset.status === "running") tick(); }, 1000);
  } else {
    var takeButton = document.getElementById("cx-take");
    var doneButton = document.getElementById("cx-done");
    var jobEl = document.getElementById("cx-job");
    var auto = document.getElementById("cx-auto");
    var results = root.dataset.results.split("|");
    var words = { acked: results[0], duplicate: results[1], poison: results[2], lost: results[3] };
    var job = null;
    var take = function () {
      if (job || busy) return;
      busy = true;
      post(root.dataset.take).then(function (data) {
        status(data.status);
        if (data.mine) show(data.mine);
        job = data.job || null;
        jobEl.textContent = job ? job.job + " · " + job.key : (data.status === "running" ? root.dataset.noJob : "");
        doneButton.hidden = !job;
        if (job && auto.checked) setTimeout(done, (data.work_ms || 0) * (job.slow ? 3 : 1));
      }).catch(function () {}).then(function () { busy = false; });
    };
    var done = function () {
      if (!job) return;
      var mine = job; job = null; doneButton.hidden = true;
      post(root.dataset.done, { job: mine.job }).then(function (data) {
        if (data.mine) show(data.mine);
        jobEl.textContent = mine.job + " · " + (words[data.result] || "");
      });
    };
    takeButton.addEventListener("click", take);
    doneButton.addEventListener("click", done);
    setInterval(function () {
      if (auto.checked && !job && root.dataset.status === "running") take();
    }, 1000);
  }

  // The shared state (started, ended, the policy in force) as it changes: live.js.
  var names = JSON.parse(document.getElementById("cx-policy-names").textContent);
  if (window.cxLive) {
    window.cxLive(root.dataset.stream, root.dataset.state, function (state) {
      status(state.status);
      var policyEl = document.getElementById("cx-policy");
      if (policyEl && state.policy && names[state.policy]) policyEl.textContent = names[state.policy];
    });
  }
})();
