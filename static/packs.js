/* 轮藏 pack reveal: progressive enhancement of the plain card lists on /packs/…/open.
   Without this script every card is listed face up. With it, the cards of each pack start
   face down; a click (or Enter/Space) flips one, "全部翻开" flips a pack or the whole box. */
(function () {
  "use strict";
  var reveal = document.querySelector(".reveal");
  if (!reveal) return;
  var flipLabel = reveal.getAttribute("data-flip-label") || "翻开";
  var flipAllLabel = reveal.getAttribute("data-flip-all-label") || "全部翻开";

  function flip(card) {
    if (!card.classList.contains("face-down")) return;
    card.classList.remove("face-down");
    card.classList.add("flipped");
    card.removeAttribute("tabindex");
    card.removeAttribute("role");
    card.removeAttribute("aria-label");
  }

  function flipAll(scope) {
    var cards = scope.querySelectorAll(".pack-card.face-down");
    for (var i = 0; i < cards.length; i++) flip(cards[i]);
  }

  function button(label, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "button secondary flip-all";
    b.textContent = label;
    b.addEventListener("click", onClick);
    return b;
  }

  reveal.classList.add("enhanced");
  var cards = reveal.querySelectorAll(".pack-card");
  for (var i = 0; i < cards.length; i++) {
    var card = cards[i];
    card.classList.add("face-down");
    card.setAttribute("tabindex", "0");
    card.setAttribute("role", "button");
    card.setAttribute("aria-label", flipLabel);
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
  for (var j = 0; j < packs.length; j++) {
    (function (pack) {
      pack.querySelector(".pack-title").appendChild(button(flipAllLabel, function () { flipAll(pack); }));
    })(packs[j]);
  }
  var heading = reveal.querySelector("h2");
  if (heading) heading.appendChild(button(flipAllLabel, function () { flipAll(reveal); }));
})();
