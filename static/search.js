// Deck + / − on search results without reloading the page (which would jump to the top).
// Only an enhancement: without JavaScript the form posts and comes back to the card's place
// on the page (#hit-<printing>). The working deck lives in this browser's session.
(function () {
  "use strict";
  if (!window.fetch || !window.FormData) return;

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains("deck-buttons")) return;
    var button = event.submitter;
    if (!button || button.name !== "action") return; // an old browser: let the form post
    event.preventDefault();
    var data = new FormData(form);
    data.set("action", button.value);
    var buttons = form.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    fetch(form.getAttribute("action"), {  // not form.action: the buttons are named "action"
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-Requested-With": "fetch", Accept: "application/json" },
    })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.json();
      })
      .then(function (body) {
        form.querySelector(".deck-copies").textContent = body.label;
        buttons.forEach(function (b) { b.disabled = b.value === "remove" && body.copies <= 0; });
      })
      .catch(function () {
        // No JSON (network, an expired form): post the form the plain way.
        var field = document.createElement("input");
        field.type = "hidden";
        field.name = "action";
        field.value = button.value;
        form.appendChild(field);
        form.submit();
      });
  });
})();
