/* labgrader's class page (docs/html.md): the students' table sorts by any column (its
 * header becomes a button: mouse or keyboard) and filters by text and by status. Without
 * this script the page reads the same, unsorted and unfiltered. No words here: the page's
 * template has them all. */
(function () {
  "use strict";
  var table = document.getElementById("students");
  var controls = document.getElementById("controls");
  if (!table || !controls) return;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var lang = document.documentElement.lang || "en";
  var collator = new Intl.Collator(lang, { numeric: true, sensitivity: "base" });
  var search = rows.map(function (r) { return (r.getAttribute("data-search") || r.textContent).toLowerCase(); });
  var tags = rows.map(function (r) { return " " + (r.getAttribute("data-tags") || "") + " "; });
  var text = document.getElementById("filter-text");
  var status = document.getElementById("filter-status");
  var shown = document.getElementById("shown");
  var heads = table.tHead.rows[0].cells;

  function key(row, col) {
    var cell = row.cells[col];
    if (!cell) return "";
    var v = cell.getAttribute("data-v");
    return v !== null ? v : cell.textContent.trim();
  }

  function sortBy(col, numeric, dir) {
    var keyed = rows.map(function (r, i) {
      var k = key(r, col);
      return { row: r, i: i, k: numeric ? parseFloat(k) : k };
    });
    keyed.sort(function (a, b) {
      var c;
      if (numeric) {
        var an = isNaN(a.k), bn = isNaN(b.k);
        c = an || bn ? (an === bn ? 0 : an ? 1 : -1) : a.k - b.k;
      } else {
        c = collator.compare(a.k, b.k);
      }
      return (c * dir) || (a.i - b.i);
    });
    var frag = document.createDocumentFragment();
    keyed.forEach(function (e) { frag.appendChild(e.row); });
    body.appendChild(frag);
    for (var h = 0; h < heads.length; h++) heads[h].removeAttribute("aria-sort");
    heads[col].setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
  }

  function makeButton(th, col) {
    var button = document.createElement("button");
    button.type = "button";
    while (th.firstChild) button.appendChild(th.firstChild);
    th.appendChild(button);
    button.addEventListener("click", function () {
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      sortBy(col, th.getAttribute("data-type") === "num", dir);
    });
  }

  function filter() {
    var t = text.value.trim().toLowerCase(), s = status.value, n = 0;
    rows.forEach(function (r, i) {
      var ok = (!t || search[i].indexOf(t) >= 0) && (!s || tags[i].indexOf(" " + s + " ") >= 0);
      r.hidden = !ok;
      n += ok ? 1 : 0;
    });
    shown.textContent = String(n);
  }

  for (var c = 0; c < heads.length; c++) makeButton(heads[c], c);
  text.addEventListener("input", filter);
  status.addEventListener("change", filter);
  controls.hidden = false;
  filter();
})();
