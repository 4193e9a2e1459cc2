// The class experiment's live channel, for the phone and the projector: each change of the
// shared state arrives as a Server-Sent Event the moment it is published (an ASGI server
// serves /x/<code>/stream/). Where no stream is served (a WSGI server answers 204), the page
// asks for state.json once a second instead. `onState` gets each state; it ends with "ended".
(function () {
  "use strict";
  window.cxLive = function (streamUrl, stateUrl, onState) {
    var timer = null;
    var last = "";
    var ended = false;
    function take(state) {
      onState(state);
      if (state.status === "ended") ended = true;
      if (ended && timer) { clearInterval(timer); timer = null; }
    }
    // A page on its way out (a reload, a link followed) asks nothing more: a read started
    // now would only be cut off by the navigation.
    // Still here a moment later (the link was a download, or the navigation was stopped):
    // the reads go on.
    window.addEventListener("beforeunload", function () {
      if (!timer) return;
      clearInterval(timer);
      timer = null;
      setTimeout(function () { if (!ended) poll(); }, 3000);
    });
    function poll() {
      if (timer) return;
      timer = setInterval(function () {
        fetch(stateUrl, { credentials: "same-origin", cache: "no-store" })
          .then(function (r) { return r.text(); })
          .then(function (text) {
            if (text === last) return;  // nothing changed: nothing redrawn
            last = text;
            take(JSON.parse(text));
          })
          .catch(function () {});
      }, 1000);
    }
    // No stream address: this server is WSGI, and polling is the channel.
    if (!streamUrl || !window.EventSource) { poll(); return; }
    var source = new EventSource(streamUrl);
    source.onmessage = function (event) {
      var state = JSON.parse(event.data);
      take(state);
      if (state.status === "ended") source.close();
    };
    source.onerror = function () {
      // CLOSED: refused (204, no stream here): poll. CONNECTING: it reconnects by itself.
      if (source.readyState === EventSource.CLOSED) poll();
    };
  };
})();
