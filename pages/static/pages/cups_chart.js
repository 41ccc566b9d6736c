/* The cups-over-time chart of a player's page, drawn with Chart.js from the figures the page
   carries in #cups-data (the table beside the chart and its caption say the same): each point
   placed at its time on a linear time axis, the start of each season marked by a dashed line
   and its name. */
(function () {
  "use strict";
  var canvas = document.getElementById("cups-chart");
  var source = document.getElementById("cups-data");
  if (!canvas || !source || typeof Chart === "undefined") {
    return;
  }
  var ledger = JSON.parse(source.textContent);
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  var ink = dark ? "#8fb8ff" : "#1d4f91";
  var text = dark ? "#e6e6e6" : "#1a1a1a";
  var grid = dark ? "rgba(255,255,255,0.15)" : "rgba(0,0,0,0.1)";
  var lang = document.documentElement.lang;
  var day = new Intl.DateTimeFormat(lang, {day: "numeric", month: "short", timeZone: "UTC"});
  var number = new Intl.NumberFormat(lang, {maximumFractionDigits: 0});
  var full = new Intl.DateTimeFormat(lang, {
    dateStyle: "medium", timeStyle: "short", timeZone: "UTC"
  });

  var seasonMarks = {
    id: "seasonMarks",
    afterDatasetsDraw: function (chart) {
      var x = chart.scales.x;
      var area = chart.chartArea;
      var context = chart.ctx;
      ledger.seasons.forEach(function (mark) {
        var at = x.getPixelForValue(mark.at);
        context.save();
        context.strokeStyle = text;
        context.setLineDash([4, 4]);
        context.beginPath();
        context.moveTo(at, area.top);
        context.lineTo(at, area.bottom);
        context.stroke();
        context.setLineDash([]);
        context.fillStyle = text;
        context.font = "12px system-ui, sans-serif";
        context.textAlign = at > area.right - 60 ? "right" : "left";
        context.fillText(mark.label, at + (context.textAlign === "left" ? 4 : -4), area.top + 12);
        context.restore();
      });
    }
  };

  var points = ledger.points;
  var first = points[0].x;
  var last = points[points.length - 1].x;
  var margin = Math.max((last - first) * 0.02, 3600 * 1000);

  new Chart(canvas, {
    type: "line",
    data: {
      datasets: [{
        label: ledger.label,
        data: points,
        borderColor: ink,
        backgroundColor: ink,
        pointRadius: 3,
        stepped: "before",
        tension: 0
      }]
    },
    plugins: [seasonMarks],
    options: {
      locale: lang,
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      parsing: false,
      plugins: {
        legend: {display: false},
        tooltip: {callbacks: {
          title: function (items) { return full.format(items[0].parsed.x); },
          label: function (item) {
            return ledger.label + ": " + number.format(item.parsed.y).replace("-", "\u2212");
          }
        }}
      },
      scales: {
        x: {
          type: "linear",
          min: first - margin,
          max: last + margin,
          grid: {color: grid},
          ticks: {
            color: text,
            maxTicksLimit: 5,
            maxRotation: 0,
            autoSkip: true,
            callback: function (value) { return day.format(value); }
          }
        },
        y: {
          grid: {color: grid},
          ticks: {
            color: text,
            precision: 0,
            callback: function (value) { return number.format(value).replace("-", "\u2212"); }
          }
        }
      }
    }
  });
}());
