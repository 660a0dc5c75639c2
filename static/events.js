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
