// +1 / −1 on card pages and search results without leaving the page. Only an enhancement:
// without JavaScript the same form posts and comes back to this page (POST /collection/items).
(function () {
  "use strict";
  if (!window.fetch || !window.FormData) return;

  function counters(printing) {
    return document.querySelectorAll('.owned-count[data-printing="' + printing + '"]');
  }

  function show(form, copies) {
    // "我有 N 张" counts every grade: the change is added to what the page showed.
    counters(form.elements.printing_id.value).forEach(function (span) {
      span.textContent = span.textContent.replace(/\d+/, String(copies));
      span.setAttribute("data-count", String(copies));
      var minus = span.parentNode.querySelector('button[value="-1"]');
      if (minus) minus.disabled = copies <= 0;
    });
  }

  function complain(form, text) {
    var note = form.querySelector(".collection-error");
    if (!note) {
      note = document.createElement("span");
      note.className = "collection-error";
      note.setAttribute("role", "alert");
      form.appendChild(note);
    }
    note.textContent = text;
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.classList || !form.classList.contains("collection-buttons")) return;
    var button = event.submitter;
    if (!button || button.name !== "delta") return; // an old browser: let the form post
    event.preventDefault();
    var data = new FormData(form);
    data.set("delta", button.value);
    var span = form.querySelector(".owned-count");
    var before = parseInt(span.getAttribute("data-count") || "0", 10);
    button.disabled = true;
    fetch(form.action, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-Requested-With": "fetch", Accept: "application/json" },
    })
      .then(function (response) {
        return response.json().then(function (body) { return { ok: response.ok, body: body }; });
      })
      .then(function (answer) {
        button.disabled = false;
        if (!answer.ok) {
          complain(form, (answer.body.error && answer.body.error.message) || "");
          show(form, before);
          return;
        }
        var old = form.querySelector(".collection-error");
        if (old) old.remove();
        show(form, before + parseInt(button.value, 10));
      })
      .catch(function () {
        // No JSON came back (network, an expired form): post the form the plain way.
        var field = document.createElement("input");
        field.type = "hidden";
        field.name = "delta";
        field.value = button.value;
        form.appendChild(field);
        form.submit();
      });
  });
})();

// Checklist quantities: focusing a field selects its number, so typing 3 into "0" gives 3, not 03.
document.addEventListener("focusin", function (event) {
  var input = event.target;
  if (!input.classList || !input.classList.contains("quantity-input")) return;
  // after the click has placed the caret; type=number fields support select() too
  window.setTimeout(function () { if (document.activeElement === input) input.select(); }, 0);
});
