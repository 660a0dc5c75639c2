// Live verdict on the deck checker: re-check the list while the player types.
// Only an enhancement: without JavaScript the form's 检查 button does the same.
(function () {
  "use strict";
  var form = document.querySelector("form.deck-form");
  if (!form || !window.fetch || !window.DOMParser || !window.URLSearchParams) return;
  var timer = null;
  var latest = 0;
  function refresh() {
    var url = form.action + "?" + new URLSearchParams(new FormData(form)).toString();
    var ticket = ++latest;
    fetch(url, { headers: { Accept: "text/html" } })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        if (ticket !== latest) return; // a newer check is on its way
        var fresh = new DOMParser().parseFromString(html, "text/html");
        ["#deck-verdict", "#deck-extras"].forEach(function (selector) {
          var here = document.querySelector(selector);
          var there = fresh.querySelector(selector);
          if (here && there) here.innerHTML = there.innerHTML;
        });
        window.history.replaceState(null, "", url);
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
