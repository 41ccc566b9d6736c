/* While a match's Bavan vote is open, reload the page's live parts (the elements marked
   data-live) every few seconds from the page itself, until the vote is decided. Without
   JavaScript the page reloads whole (a <noscript> refresh). */
(function () {
  "use strict";
  var match = document.getElementById("match");
  if (!match || !match.dataset.refreshSeconds) {
    return;
  }
  var every = Number(match.dataset.refreshSeconds) * 1000;

  function update(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    document.querySelectorAll("[data-live]").forEach(function (part) {
      var replacement = fresh.getElementById(part.id);
      if (replacement && replacement.innerHTML !== part.innerHTML) {
        part.innerHTML = replacement.innerHTML;
      }
    });
    var freshMatch = fresh.getElementById("match");
    return Boolean(freshMatch && freshMatch.dataset.refreshSeconds);
  }

  function refresh() {
    fetch(window.location.href, {cache: "no-store", headers: {Accept: "text/html"}})
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.text();
      })
      .then(function (html) {
        if (update(html)) {
          window.setTimeout(refresh, every);
        } else {
          delete match.dataset.refreshSeconds;
        }
      })
      .catch(function () {
        window.setTimeout(refresh, every * 2);
      });
  }

  window.setTimeout(refresh, every);
}());
