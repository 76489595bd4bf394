// Draw every plot from the JSON beside it, and make tables marked "sortable" sort on a header click.
(function () {
  "use strict";
  var config = { displaylogo: false, responsive: true,
                 modeBarButtonsToRemove: ["sendDataToCloud", "select2d", "lasso2d"],
                 toImageButtonOptions: { format: "png", scale: 2 } };
  var drawn = [];
  document.querySelectorAll("script.plot-data").forEach(function (node) {
    var fig = JSON.parse(node.textContent);
    drawn.push(Plotly.newPlot(node.dataset.target, fig.data, fig.layout, config));
  });
  // for readers that wait for the plots (a headless browser taking a screenshot)
  Promise.all(drawn).then(function () {
    document.documentElement.setAttribute("data-plots-drawn", String(drawn.length));
  });

  function key(cell) {
    var raw = (cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent).trim();
    return /^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(raw) ? parseFloat(raw) : raw.toLowerCase();
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.querySelectorAll("thead th");
    heads.forEach(function (th, col) {
      th.addEventListener("click", function () {
        var desc = !th.classList.contains("desc");
        heads.forEach(function (h) { h.classList.remove("asc", "desc"); });
        th.classList.add(desc ? "desc" : "asc");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          if (typeof x !== typeof y) { x = String(x); y = String(y); }
          var c = x < y ? -1 : x > y ? 1 : 0;
          return desc ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
}());
