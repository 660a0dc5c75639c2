/* 轮藏 pack opener: progressive enhancement of the plain card lists on /packs/…/open.
   Without this script every card is listed face up, the summary after the packs. With it:
   a box is a grid of sealed packs, opened one by one ("拆开"); an opened pack shows its cards
   as card backs, and a click (or Enter/Space) turns one over to its face image; "全部翻开"
   turns a pack or everything; the summary appears once every card is face up, or at once
   with "跳到汇总". The face images load only when a card is turned. */
(function () {
  "use strict";
  var reveal = document.querySelector(".reveal");
  if (!reveal) return;
  var summary = document.getElementById("summary");
  function label(name, fallback) { return reveal.getAttribute("data-" + name + "-label") || fallback; }
  var flipLabel = label("flip", "翻开");
  var flipAllLabel = label("flip-all", "全部翻开");
  var openLabel = label("open", "拆开");
  var skipLabel = label("skip", "跳到汇总");
  var nextLabel = label("next", "下一包");

  function button(text, className, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = className;
    b.textContent = text;
    b.addEventListener("click", onClick);
    return b;
  }

  function showSummaryIfDone() {
    if (summary && summary.hidden && !reveal.querySelector(".pack-card.face-down")) summary.hidden = false;
  }

  function flip(card) {
    if (!card.classList.contains("face-down")) return;
    var art = card.querySelector(".card-art");
    var link = card.querySelector("a");
    var img = document.createElement("img");
    img.src = card.getAttribute("data-image");
    img.alt = link ? link.textContent : "";
    img.width = 160;
    img.height = 224;
    img.decoding = "async";
    art.appendChild(img);
    card.classList.remove("face-down");
    card.classList.add("flipped");
    card.removeAttribute("tabindex");
    card.removeAttribute("role");
    card.removeAttribute("aria-label");
    var pack = card.closest(".pack");
    if (pack && !pack.querySelector(".pack-card.face-down")) packDone(pack);
    showSummaryIfDone();
  }

  function packDone(pack) {
    var next = pack.nextElementSibling;
    while (next && !next.classList.contains("sealed")) next = next.nextElementSibling;
    var title = pack.querySelector(".pack-title");
    if (next && title && !title.querySelector(".next-pack")) {
      title.appendChild(button(nextLabel, "button next-pack", function () { unseal(next, true); }));
    }
  }

  function unseal(pack, focus) {
    if (!pack.classList.contains("sealed")) return;
    pack.classList.remove("sealed");
    pack.classList.add("opened");
    var wrapper = pack.querySelector(".pack-wrapper");
    if (wrapper) wrapper.remove();
    var first = pack.querySelector(".pack-card.face-down");
    if (focus && first) {
      first.focus();
      pack.scrollIntoView({ block: "nearest" });
    }
  }

  function flipAll(scope) {
    var packs = scope.classList.contains("pack") ? [scope] : scope.querySelectorAll(".pack");
    for (var p = 0; p < packs.length; p++) unseal(packs[p], false);
    var cards = scope.querySelectorAll(".pack-card.face-down");
    for (var i = 0; i < cards.length; i++) flip(cards[i]);
  }

  reveal.classList.add("enhanced");
  if (summary) summary.hidden = true;
  var cards = reveal.querySelectorAll(".pack-card");
  for (var i = 0; i < cards.length; i++) {
    var card = cards[i];
    var art = document.createElement("span");
    art.className = "card-art";
    art.setAttribute("aria-hidden", "true");
    card.insertBefore(art, card.firstChild);
    card.classList.add("face-down");
    card.setAttribute("tabindex", "0");
    card.setAttribute("role", "button");
    card.setAttribute("aria-label", flipLabel);
    // the list of buttons is a group now (a list may hold only list items: axe's "list" rule)
    card.parentNode.setAttribute("role", "group");
    card.addEventListener("click", function (event) {
      if (this.classList.contains("face-down")) {
        event.preventDefault();
        flip(this);
      }
    });
    card.addEventListener("keydown", function (event) {
      if ((event.key === "Enter" || event.key === " ") && this.classList.contains("face-down")) {
        event.preventDefault();
        flip(this);
      }
    });
  }
  var packs = reveal.querySelectorAll(".pack");
  var sealEach = packs.length > 1;  // one pack opens at once; a box is a grid of sealed packs
  for (var j = 0; j < packs.length; j++) {
    (function (pack) {
      pack.querySelector(".pack-title").appendChild(
        button(flipAllLabel, "button secondary flip-all", function () { flipAll(pack); })
      );
      if (!sealEach) {
        pack.classList.add("opened");  // a single pack: the opened pack's place and card size
        return;
      }
      pack.classList.add("sealed");
      var title = pack.querySelector(".pack-title").firstChild.textContent.trim();
      var wrapper = button(openLabel, "pack-wrapper", function () { unseal(pack, true); });
      wrapper.innerHTML = "";
      var name = document.createElement("span");
      name.className = "pack-wrapper-title";
      name.textContent = title;
      var hint = document.createElement("span");
      hint.className = "pack-wrapper-hint";
      hint.textContent = openLabel;
      wrapper.appendChild(name);
      wrapper.appendChild(hint);
      pack.insertBefore(wrapper, pack.firstChild);
    })(packs[j]);
  }
  var tools = document.createElement("p");
  tools.className = "buttons reveal-tools";
  tools.appendChild(button(flipAllLabel, "button secondary flip-all", function () { flipAll(reveal); }));
  if (summary) {
    tools.appendChild(button(skipLabel, "button secondary skip-summary", function () {
      flipAll(reveal);
      summary.hidden = false;
      summary.scrollIntoView({ block: "start" });
    }));
  }
  var heading = reveal.querySelector("h2");
  heading.parentNode.insertBefore(tools, heading.nextSibling);
})();
