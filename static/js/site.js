// Loopcraft: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  // Exam timer: the server holds the deadline; this only counts down what the server said.
  function startTimer(el) {
    var left = parseInt(el.dataset.secondsLeft, 10);
    if (isNaN(left)) return;
    var value = el.querySelector(".timer-value");
    var announce = document.getElementById("timer-announce");
    var end = Date.now() + left * 1000;
    function fmt(s) {
      var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
      var mm = (h ? String(m).padStart(2, "0") : String(m)) + ":" + String(sec).padStart(2, "0");
      return h ? h + ":" + mm : mm;
    }
    function tick() {
      var s = Math.max(0, Math.round((end - Date.now()) / 1000));
      value.textContent = fmt(s);
      el.classList.toggle("is-low", s <= 60);
      if (announce && (s === 300 || s === 60)) {
        // The page carries the words in its own language (data-five, data-one).
        announce.textContent = s === 300
          ? announce.dataset.five || "Five minutes left."
          : announce.dataset.one || "One minute left.";
      }
      if (s <= 0) {
        clearInterval(timer);
        // Let the server close the attempt and show the results.
        window.location.reload();
      }
    }
    var timer = setInterval(tick, 1000);
    tick();
  }

  // Notes: mark a note read once the reader scrolls to its end. The note page is shared by
  // every reader, so the visitor's reading block arrives later, by htmx (hx-trigger="load"):
  // this runs again each time htmx swaps one in. It is an htmx POST, so it takes its token from
  // the cookie (below). Without JavaScript (or htmx), the note links to a page with the button.
  function autoRead() {
    var box = document.getElementById("read-status");
    if (!box || box.dataset.autoRead !== "on" || box.dataset.watched || !window.htmx) return;
    if (!("IntersectionObserver" in window)) return;
    box.dataset.watched = "1";
    var visible = false, scrolled = false, sent = false;
    function maybeSend() {
      if (sent || !visible || !scrolled) return;
      var form = box.querySelector("form");
      if (!form || !form.requestSubmit) return;
      sent = true;
      observer.disconnect();
      form.requestSubmit();
    }
    var observer = new IntersectionObserver(function (entries) {
      visible = entries.some(function (e) { return e.isIntersecting; });
      maybeSend();
    });
    observer.observe(box);
    window.addEventListener("scroll", function () { scrolled = true; maybeSend(); }, { passive: true });
  }

  function init() {
    var timer = document.getElementById("timer");
    if (timer) startTimer(timer);
    autoRead();
  }
  document.addEventListener("htmx:load", function (evt) {
    if (evt.target && evt.target.id === "read-status") autoRead();
  });

  // CSRF for htmx, as Django documents for AJAX: the token is read from the csrftoken cookie
  // and sent as X-CSRFToken, so pages carry no per-visitor token and can be shared by a cache.
  // A page without a form never set the cookie: the first unsafe htmx request from such a page
  // (marking a note read) first asks /csrf/ for one, then goes ahead.
  var SAFE = /^(get|head|options|trace)$/i;
  function csrfToken() {
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return m ? decodeURIComponent(m[1]) : "";
  }
  document.addEventListener("htmx:confirm", function (evt) {
    if (SAFE.test(evt.detail.verb) || csrfToken() || !window.fetch) return;
    evt.preventDefault();
    var url = document.body.dataset.csrfUrl || "/csrf/";
    fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function () {
      evt.detail.issueRequest(true);
    }, function () { evt.detail.issueRequest(true); });
  });
  document.addEventListener("htmx:configRequest", function (evt) {
    if (!SAFE.test(evt.detail.verb)) evt.detail.headers["X-CSRFToken"] = csrfToken();
  });

  // When an autosave cannot reach the server, say so where the learner looks.
  function saveFailed(evt) {
    var status = document.getElementById("save-status");
    if (!status || !evt.detail || !evt.detail.elt || evt.detail.elt.id !== "exam-form") return;
    status.textContent = status.dataset.failed || "Not saved: the server could not be " +
      "reached. Your choice is still selected; use “Save and next” when you are back online.";
    status.className = "save-status is-error";
    status.setAttribute("role", "alert");
  }
  document.addEventListener("htmx:sendError", saveFailed);
  document.addEventListener("htmx:responseError", saveFailed);

  // Sandbox stepper: keys act only while focus is inside the stepper, never elsewhere.
  var KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last", t: "tool", f: "finding" };
  document.addEventListener("keydown", function (evt) {
    var stepper = document.getElementById("stepper");
    if (!stepper || !stepper.contains(document.activeElement)) return;
    if (evt.altKey || evt.ctrlKey || evt.metaKey) return;
    var tag = document.activeElement.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || tag === "SUMMARY") return;
    var name = KEYS[evt.key] || KEYS[evt.key.toLowerCase()];
    if (!name) return;
    var link = stepper.querySelector('a[data-key="' + name + '"]');
    if (!link) return;
    evt.preventDefault();
    stepper.focus();
    go(link.getAttribute("href"));
  });

  // Fetch a step into the stepper directly, so fast key presses never land on a link that
  // htmx has not processed yet; the address bar follows, like hx-push-url.
  var busy = false, queued = null;
  function go(url, push) {
    if (push === undefined) push = true;
    if (!window.htmx) { window.location.href = url; return; }
    if (busy) { queued = { url: url, push: push }; return; }
    busy = true;
    window.htmx.ajax("GET", url, { target: "#stepper-body", swap: "outerHTML" }).then(function () {
      busy = false;
      if (push) window.history.pushState({ loopcraftStep: true }, "", url);
      if (queued) { var next = queued; queued = null; go(next.url, next.push); }
    }, function () { busy = false; window.location.href = url; });
  }

  // Back and Forward on a step page: whoever pushed the entry (this file or hx-push-url), show
  // the step the address bar names. A capture listener runs before htmx's own onpopstate, whose
  // snapshot cache never saw the steps pushed above (it would restore the wrong step).
  window.addEventListener("popstate", function (evt) {
    if (!document.getElementById("stepper-body") || !window.htmx) return;
    if (!/\/sandbox\/.*\/steps\/\d+\/$/.test(window.location.pathname)) return;
    evt.stopImmediatePropagation();
    go(window.location.pathname + window.location.search, false);
  }, true);

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();

  // Live start form: grey out the tool_choice and thinking values the chosen model rejects
  // (the server refuses them anyway, with the reason; this only saves a round trip).
  function applyModelLimits(form) {
    var model = form.querySelector('select[name="model"]');
    if (!model || !model.selectedOptions.length) return;
    var chosen = model.selectedOptions[0];
    var rejects = (chosen.getAttribute("data-rejects") || "").split(" ");
    ["tool_choice", "thinking"].forEach(function (name) {
      var select = form.querySelector('select[name="' + name + '"]');
      if (!select) return;
      Array.prototype.forEach.call(select.options, function (opt) {
        opt.disabled = rejects.indexOf(opt.value) !== -1;
      });
      if (select.selectedOptions.length && select.selectedOptions[0].disabled) {
        select.value = name === "tool_choice" ? "auto" : "default";
      }
    });
    var note = form.querySelector("#model-limits");
    if (note) note.textContent = chosen.getAttribute("data-why") || "";
  }
  document.addEventListener("change", function (evt) {
    var form = evt.target.closest && evt.target.closest('form[data-model-limits="true"]');
    if (form && evt.target.name === "model") applyModelLimits(form);
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll('form[data-model-limits="true"]').forEach(applyModelLimits);
  });

  // Language switcher (_language_switcher.html): the links name this page as the server sent
  // it; follow the page the address bar shows now (a sandbox step moved on by htmx), with its
  // query and #anchor, in the other language's prefix (core/i18n.py: English has none).
  document.addEventListener("click", function (evt) {
    var link = evt.target.closest && evt.target.closest("a[data-lang-prefix]");
    if (!link || evt.defaultPrevented || evt.button !== 0 || evt.metaKey || evt.ctrlKey) return;
    var prefixes = (link.getAttribute("data-lang-prefixes") || "").split(" ");
    var path = window.location.pathname;
    prefixes.forEach(function (p) {
      if (p && path.indexOf(p + "/") === 0) path = path.slice(p.length);
    });
    evt.preventDefault();
    window.location.href = link.getAttribute("data-lang-prefix") + path +
      window.location.search + window.location.hash;
  });
})();
