// Round clock: counts the minutes left down without a reload. The page already says how
// long is left when it is served; this only keeps it current (works without it too).
(function () {
  var clock = document.querySelector("[data-round-clock]");
  if (!clock) return;
  var ends = Date.parse(clock.getAttribute("datetime"));
  var lang = document.documentElement.lang || "zh-Hans";
  function show() {
    var left = Math.ceil((ends - Date.now()) / 60000);
    if (lang.indexOf("zh") === 0) {
      clock.textContent = left > 0 ? "还剩 " + left + " 分钟" : "时间到";
    } else {
      clock.textContent = left > 0 ? left + " minutes left" : "Time";
    }
  }
  show();
  setInterval(show, 15000);
})();

// The round view: a result button posts without a reload, marks its table and
// brings the next table without a result into view. Without JavaScript the form posts and the
// page comes back at that table (#table-N), which works the same.
(function () {
  var cards = document.querySelector(".round-cards");
  if (!cards || !window.fetch || !window.FormData) return;
  var counter = document.querySelector("[data-left-count]");
  var lang = document.documentElement.lang || "zh-Hans";
  function leftText(n) {
    return lang.indexOf("zh") === 0 ? "还有 " + n + " 桌没有结果" : n + " table(s) without a result";
  }
  cards.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.hasAttribute("data-async")) return;
    event.preventDefault();
    var data = new FormData(form);
    if (event.submitter && event.submitter.name) data.append(event.submitter.name, event.submitter.value);
    var card = form.closest(".round-card");
    fetch(form.action, { method: "POST", body: data, headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.json().then(function (body) { return [response.ok, body]; }); })
      .then(function (pair) {
        var ok = pair[0], body = pair[1];
        if (!ok) {
          window.alert(body.error ? body.error.message : "Error");
          return;
        }
        card.classList.add("reported");
        card.querySelector("[data-result]").textContent = body.result;
        card.querySelectorAll(".result-buttons button").forEach(function (b) {
          b.classList.toggle("chosen", b.value === body.result);
        });
        var details = card.querySelector("details[open]");
        if (details) details.open = false;
        if (counter) counter.textContent = leftText(body.left);
        if (cards.getAttribute("data-filter") === "open") card.hidden = true;
        if (body.next !== null) {
          var next = document.getElementById("table-" + body.next);
          if (next) next.scrollIntoView({ block: "start" });
        }
      })
      .catch(function () { form.submit(); });
  });
})();

// The public event page refreshes itself when a round is posted or a result comes in: it
// polls a small GET that says what the page shows, and reloads when that changes. Without
// JavaScript the page says when it was generated and offers a reload link.
(function () {
  var mark = document.querySelector("[data-version-url]");
  if (!mark || !window.fetch) return;
  var note = mark.querySelector("[data-refresh-note]");
  if (note) note.hidden = false;
  var version = mark.getAttribute("data-version");
  setInterval(function () {
    if (document.hidden) return;
    fetch(mark.getAttribute("data-version-url"), { headers: { Accept: "application/json" }, cache: "no-store" })
      .then(function (r) { return r.json(); })
      .then(function (body) { if (body.version !== version) window.location.reload(); })
      .catch(function () {});
  }, 20000);
})();
