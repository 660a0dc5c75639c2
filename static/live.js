// Small actions without a page load: a form marked data-live="#a #b" posts with
// fetch, and the parts of the answer page named by its selectors replace the same parts here
// (with the flash messages), so counts change in place and the scroll position stays. Only an
// enhancement: without JavaScript the same form posts and the server answers with the page.
(function () {
  "use strict";
  if (!window.fetch || !window.FormData || !window.DOMParser) return;

  function swap(fresh, selector) {
    var here = document.querySelector(selector);
    var there = fresh.querySelector(selector);
    if (here && there) here.replaceWith(document.importNode(there, true));
    return Boolean(here && there);
  }

  function flashes(fresh) {
    var main = document.querySelector("main");
    var here = main && main.querySelector(".flashes");
    var there = fresh.querySelector("main .flashes");
    if (here) here.remove();
    if (main && there) main.insertBefore(document.importNode(there, true), main.firstChild);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !form.matches || !form.matches("form[data-live]")) return;
    event.preventDefault();
    var button = event.submitter;
    var data = new FormData(form);
    if (button && button.name) data.set(button.name, button.value);
    var focused = document.activeElement && document.activeElement.id;
    form.setAttribute("aria-busy", "true");
    if (button) button.disabled = true;
    fetch(form.getAttribute("action") || window.location.href, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { Accept: "text/html" },  // no X-Requested-With: that asks some routes for JSON
    })
      .then(function (response) {
        return response.text().then(function (html) { return { response: response, html: html }; });
      })
      .then(function (answer) {
        var fresh = new DOMParser().parseFromString(answer.html, "text/html");
        var selectors = form.getAttribute("data-live").split(/\s+/).filter(Boolean);
        var swapped = answer.response.ok ? selectors.map(function (selector) { return swap(fresh, selector); }) : [];
        if (!swapped.some(Boolean)) {
          // The answer is another page (an error, a sign-in): show its content in place.
          swap(fresh, "main");
          return;
        }
        flashes(fresh);
        if (answer.response.redirected) window.history.replaceState(null, "", answer.response.url);
        var again = focused && document.getElementById(focused);
        if (again) again.focus();
        form.removeAttribute("aria-busy");
        if (button && document.contains(button)) button.disabled = false;
      })
      .catch(function () {
        // Network trouble: post the plain way (the server does the same without us).
        form.removeAttribute("aria-busy");
        if (button) {
          button.disabled = false;
          if (button.name) {
            var field = document.createElement("input");
            field.type = "hidden";
            field.name = button.name;
            field.value = button.value;
            form.appendChild(field);
          }
        }
        HTMLFormElement.prototype.submit.call(form);
      });
  });
})();
// A form that takes a while (the completion simulation): say so while the next page is computed.
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var note = event.target.querySelector && event.target.querySelector(".busy-note[data-busy]");
    if (note) note.textContent = note.getAttribute("data-busy");
  });
})();
