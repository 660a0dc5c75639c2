// Card-name suggestions while typing, on every input marked data-suggest (its
// value: a game slug, or empty for every game). The WAI-ARIA combobox pattern: the input is a
// combobox owning a listbox; ↓/↑ move through the options (aria-activedescendant), Enter or a
// click takes one, Escape closes the list; a polite status says how many there are. Requests
// wait for a pause in typing (150 ms) and a late answer never replaces a newer one. Without
// JavaScript the inputs are plain text fields.
(function () {
  "use strict";
  if (!window.fetch || !window.URLSearchParams) return;
  var script = document.currentScript;
  var endpoint = (script && script.getAttribute("data-endpoint")) || "/suggest";
  var english = (document.documentElement.lang || "").indexOf("en") === 0;
  var counter = 0;

  function setUp(input) {
    var id = "suggest-" + (++counter);
    var list = document.createElement("ul");
    list.id = id;
    list.className = "suggest-list";
    list.setAttribute("role", "listbox");
    list.hidden = true;
    var label = input.labels && input.labels[0];
    if (label) {
      if (!label.id) label.id = id + "-label";
      list.setAttribute("aria-labelledby", label.id);
    }
    var status = document.createElement("span");
    status.className = "visually-hidden";
    status.setAttribute("aria-live", "polite");  // no role: the page's own status stays the one
    input.parentNode.insertBefore(list, input.nextSibling);
    input.parentNode.insertBefore(status, list.nextSibling);
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", id);
    input.setAttribute("autocomplete", "off");
    var timer = null;
    var ticket = 0;
    var active = -1;

    function options() { return list.querySelectorAll("[role=option]"); }

    function close() {
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
    }

    function highlight(index) {
      var all = options();
      if (!all.length) return;
      active = (index + all.length) % all.length;
      all.forEach(function (option, i) { option.setAttribute("aria-selected", i === active ? "true" : "false"); });
      input.setAttribute("aria-activedescendant", all[active].id);
      all[active].scrollIntoView({ block: "nearest" });
    }

    function choose(option) {
      input.value = option.getAttribute("data-name");
      close();
      input.dispatchEvent(new Event("change", { bubbles: true }));
      input.focus();
    }

    function show(items) {
      list.textContent = "";
      items.forEach(function (item, i) {
        var option = document.createElement("li");
        option.id = id + "-" + i;
        option.setAttribute("role", "option");
        option.setAttribute("aria-selected", "false");
        option.setAttribute("data-name", item.name);
        option.textContent = item.name;
        option.addEventListener("mousedown", function (event) { event.preventDefault(); });
        option.addEventListener("click", function () { choose(option); });
        list.appendChild(option);
      });
      active = -1;
      input.removeAttribute("aria-activedescendant");
      list.hidden = items.length === 0;
      input.setAttribute("aria-expanded", items.length ? "true" : "false");
      status.textContent = items.length
        ? (english ? items.length + " suggestions: use the arrow keys" : "有 " + items.length + " 个建议，用方向键选择")
        : "";
    }

    function ask() {
      var text = input.value.trim();
      if (!text || /[:<>=]/.test(text)) { close(); return; } // search syntax: nothing to suggest
      var mine = ++ticket;
      var query = new URLSearchParams({ q: text, limit: "8" });
      var game = input.getAttribute("data-suggest");
      if (game) query.set("game", game);
      fetch(endpoint + "?" + query.toString(), { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : { suggestions: [] }; })
        .then(function (body) { if (mine === ticket && document.activeElement === input) show(body.suggestions || []); })
        .catch(function () { /* no suggestions: the field still works */ });
    }

    input.addEventListener("input", function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(ask, 150);
    });
    input.addEventListener("keydown", function (event) {
      if (list.hidden) {
        if (event.key === "ArrowDown" && input.value.trim()) { ask(); event.preventDefault(); }
        return;
      }
      if (event.key === "ArrowDown") { highlight(active + 1); event.preventDefault(); }
      else if (event.key === "ArrowUp") { highlight(active - 1); event.preventDefault(); }
      else if (event.key === "Enter" && active >= 0) { choose(options()[active]); event.preventDefault(); }
      else if (event.key === "Escape") { close(); event.preventDefault(); }
    });
    input.addEventListener("blur", function () { window.setTimeout(close, 100); });
  }

  document.querySelectorAll("input[data-suggest]").forEach(setUp);
})();
