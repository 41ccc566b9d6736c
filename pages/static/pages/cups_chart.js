/* The cups-over-time chart of a player's page, drawn with Chart.js from the figures the page
   carries in #cups-data (the table beside the chart shows the same figures). */
(function () {
  "use strict";
  var canvas = document.getElementById("cups-chart");
  var source = document.getElementById("cups-data");
  if (!canvas || !source || typeof Chart === "undefined") {
    return;
  }
  var ledger = JSON.parse(source.textContent);
  var ink = "#1d4f91";
  new Chart(canvas, {
    type: "line",
    data: {
      labels: ledger.labels,
      datasets: [{
        label: ledger.label,
        data: ledger.cups,
        borderColor: ink,
        backgroundColor: ink,
        pointRadius: 3,
        tension: 0
      }]
    },
    options: {
      locale: document.documentElement.lang,
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: {legend: {display: false}},
      scales: {
        x: {ticks: {autoSkip: true, maxTicksLimit: 6, maxRotation: 0}},
        y: {ticks: {precision: 0}}
      }
    }
  });
}());
