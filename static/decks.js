// Live verdict on the deck checker: re-check the list while the player types.
// Only an enhancement: without JavaScript the form's 检查 button does the same. The list is
// posted (never in a URL); the server keeps it in the session and answers with the
// checked page, whose verdict and charts replace these.
(function () {
  "use strict";
  var form = document.querySelector("form.deck-form");
  if (!form || !window.fetch || !window.DOMParser || !window.FormData) return;
  var timer = null;
  var latest = 0;
  function refresh() {
    var ticket = ++latest;
    fetch(form.getAttribute("action"), {
      method: "POST",
      body: new FormData(form),
      credentials: "same-origin",
      headers: { Accept: "text/html" },  // no X-Requested-With: that asks some routes for JSON
    })
      .then(function (response) {
        return response.text().then(function (html) { return { url: response.url, html: html }; });
      })
      .then(function (answer) {
        if (ticket !== latest) return; // a newer check is on its way
        var fresh = new DOMParser().parseFromString(answer.html, "text/html");
        ["#deck-verdict", "#deck-extras"].forEach(function (selector) {
          var here = document.querySelector(selector);
          var there = fresh.querySelector(selector);
          if (here && there) here.replaceWith(document.importNode(there, true));
        });
        window.history.replaceState(null, "", answer.url);
      })
      .catch(function () { /* the button still works */ });
  }
  function later() {
    window.clearTimeout(timer);
    timer = window.setTimeout(refresh, 500);
  }
  form.addEventListener("input", later);
  form.addEventListener("change", later);
})();
