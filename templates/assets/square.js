// The Pythagoras square's details page: reads ?date=YYYY-MM-DD, draws the date's square at
// once by the rule (docs/design.md §14), then fetches the API record, checks the drawing
// against it and fills in the citation. The script runs while the page is parsed, so the
// first frame already shows the square or the message about the date, and what the API
// answers later lands in space reserved for it: nothing on the page moves. No libraries.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("square-data").textContent);
  var status = document.getElementById("status");
  var result = document.getElementById("result");
  var grid = document.getElementById("grid");
  var cellList = document.getElementById("cells");
  var lineList = document.getElementById("lines");
  var input = document.getElementById("details-date");
  var titleDate = document.getElementById("details-title-date");
  var apiStatus = document.getElementById("api-status");
  var jsonLink = document.getElementById("json-link");
  var citation = document.getElementById("citation");

  // The grid as drawn: the rows of cells, and the lines whose sums stand beside them.
  var rows = [[1, 4, 7], [2, 5, 8], [3, 6, 9]];
  var rowLines = ["purpose", "family", "habits"];
  var columnLines = ["self_esteem", "household", "talent"];
  var lineNames = {};
  data.lines.forEach(function (l) { lineNames[l.key] = l.name; });

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function ruDate(d, m, y) { return pad(d) + "." + pad(m) + "." + y; }

  // fill puts a message into a notice box; kind is a stable name for tests and styling.
  function fill(box, kind, heading, text, retry) {
    box.textContent = "";
    box.setAttribute("data-state", kind);
    var info = kind === "loading" || kind === "empty" || kind === "ok";
    box.setAttribute("role", info ? "status" : "alert");
    if (heading) box.appendChild(el("p", "notice-title", heading));
    if (text) box.appendChild(el("p", "", text));
    if (retry) {
      var b = el("button", "secondary", "Попробовать ещё раз");
      b.type = "button";
      b.addEventListener("click", retry);
      box.appendChild(b);
    }
  }

  // show puts a message about the date above the square ("bad-date", "empty"); the square
  // is then hidden. It is only called while the page is parsed.
  function show(kind, heading, text) {
    fill(status, kind, heading, text);
    status.className = "notice notice-" + (kind === "empty" ? "info" : "error");
    result.hidden = true;
  }

  // showAPI reports the API's answer in the reserved box under the citation ("loading",
  // "ok", "rate-limit", "server", "network").
  function showAPI(kind, heading, text, retry) {
    fill(apiStatus, kind, heading, text, retry);
    apiStatus.className = "api-status" + (kind === "rate-limit" || kind === "server" || kind === "network" ? " notice-error" : "");
  }

  // parse checks the format, the calendar and the range; it returns {d, m, y}, or the
  // heading and the text of what is wrong.
  function parse(s) {
    // Also accept the Russian DD.MM.YYYY that people type where the browser has no date picker.
    var ru = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s);
    if (ru) s = ru[3] + "-" + pad(+ru[2]) + "-" + pad(+ru[1]);
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
    if (!m) {
      return { heading: "Не получилось прочитать дату", error: "«" + s + "» не похоже на дату. Подойдёт запись ДД.ММ.ГГГГ или ГГГГ-ММ-ДД, например 15.05.1990 или 1990-05-15." };
    }
    var y = +m[1], mo = +m[2], d = +m[3];
    if (mo < 1 || mo > 12) {
      return { heading: "Такой даты нет", error: "Даты " + m[3] + "." + m[2] + "." + m[1] + " нет в календаре: месяцев всего двенадцать." };
    }
    var days = daysIn(mo, y);
    if (d < 1 || d > days) {
      return { heading: "Такой даты нет", error: "Даты " + m[3] + "." + m[2] + "." + m[1] + " нет в календаре: в " + monthsIn[mo - 1] + " " + y + " года " + days + " " + (days === 31 ? "день" : "дней") + "." };
    }
    if (y < data.firstYear || y > data.lastYear) {
      return { heading: "Год вне диапазона " + data.firstYear + "–" + data.lastYear, error: "Квадрат рассчитывается для дат с 01.01." + data.firstYear + " по 31.12." + data.lastYear + ", а " + ruDate(d, mo, y) + " в этот промежуток не входит." };
    }
    return { d: d, m: mo, y: y };
  }

  // daysIn is the number of days of a month of the Gregorian calendar.
  function daysIn(m, y) {
    if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
    return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
  }

  function digitSum(n) {
    var s = 0;
    for (n = Math.abs(n); n > 0; n = Math.floor(n / 10)) s += n % 10;
    return s;
  }

  // squareOf computes the square of a date by the classic rule (docs/design.md §14): the
  // working numbers, how often each digit 1–9 occurs among the date's digits and theirs
  // (zeros and W3's sign do not count), and the sums of the eight lines in contract order.
  function squareOf(d, m, y) {
    var w1 = digitSum(d) + digitSum(m) + digitSum(y);
    var w2 = digitSum(w1);
    var w3 = w1 - 2 * +String(d).charAt(0);
    var w4 = digitSum(w3);
    var counts = [0, 0, 0, 0, 0, 0, 0, 0, 0];
    [d, m, y, w1, w2, w3, w4].forEach(function (n) {
      String(Math.abs(n)).split("").forEach(function (c) {
        if (c !== "0") counts[+c - 1]++;
      });
    });
    var lines = data.lines.map(function (l) {
      return counts[l.cells[0] - 1] + counts[l.cells[1] - 1] + counts[l.cells[2] - 1];
    });
    return { working: [w1, w2, w3, w4], counts: counts, lines: lines };
  }

  // localRecord builds the square record of a date as the API would send it.
  function localRecord(p) {
    var sq = squareOf(p.d, p.m, p.y), cells = {}, lines = {};
    data.cells.forEach(function (c, i) {
      var n = sq.counts[i];
      cells[String(i + 1)] = { digits: new Array(n + 1).join(String(i + 1)), count: n, name: c.name, reading: c.readings[String(n)] || "" };
    });
    data.lines.forEach(function (l, i) { lines[l.key] = sq.lines[i]; });
    var iso = p.y + "-" + pad(p.m) + "-" + pad(p.d);
    return {
      input: { day: p.d, month: p.m, year: p.y },
      working_numbers: sq.working,
      cells: cells,
      lines: lines,
      suggested_citation: data.citation.replace("{date}", ruDate(p.d, p.m, p.y)).replace("{url}", data.siteURL + "/square/details?date=" + iso),
      attribution: data.attribution
    };
  }

  // band returns the band of a line sum: low, medium or high.
  function band(sum) {
    for (var i = 0; i < data.bands.length; i++) {
      var b = data.bands[i];
      if (sum >= b.min && (!b.max || sum <= b.max)) return b.key;
    }
    return data.bands[data.bands.length - 1].key;
  }

  function sumBox(key, rec, diagonal) {
    var sum = rec.lines[key];
    var box = el("div", "sq-sum" + (diagonal ? " sq-diag" : ""));
    box.setAttribute("data-line", key);
    box.setAttribute("data-sum", String(sum));
    box.appendChild(el("span", "sq-sum-name", lineNames[key]));
    box.appendChild(document.createTextNode(" "));
    box.appendChild(el("span", "sq-sum-num", String(sum)));
    return box;
  }

  function cellBox(n, rec) {
    var c = rec.cells[String(n)];
    var box = el("div", "sq-cell");
    box.setAttribute("data-cell", String(n));
    box.setAttribute("data-count", String(c.count));
    box.appendChild(el("span", "sq-cell-name", n + ". " + c.name));
    box.appendChild(document.createTextNode(" "));
    box.appendChild(el("span", "sq-cell-digits", c.digits || "—"));
    return box;
  }

  function render(rec) {
    var date = ruDate(rec.input.day, rec.input.month, rec.input.year);
    titleDate.textContent = "для " + date;
    document.title = "Квадрат Пифагора для " + date + " — " + data.siteTitle;
    grid.textContent = "";
    var corner = el("p", "sq-corner");
    corner.appendChild(el("span", "sq-corner-name", "Рабочие числа"));
    corner.appendChild(document.createTextNode(" "));
    corner.appendChild(el("span", "sq-working-nums", rec.working_numbers.join(", "))).id = "working";
    grid.appendChild(corner);
    grid.appendChild(sumBox("temperament", rec, true));
    rows.forEach(function (row, i) {
      row.forEach(function (n) { grid.appendChild(cellBox(n, rec)); });
      grid.appendChild(sumBox(rowLines[i], rec, false));
    });
    columnLines.forEach(function (k) { grid.appendChild(sumBox(k, rec, false)); });
    grid.appendChild(sumBox("spirituality", rec, true));
    grid.setAttribute("data-state", "ready");

    cellList.textContent = "";
    data.cells.forEach(function (c, i) {
      var rc = rec.cells[String(i + 1)];
      var wrap = el("div", "explanation");
      wrap.id = "about-cell-" + (i + 1);
      wrap.appendChild(el("dt", "", (i + 1) + ". " + c.name + ": " + (rc.digits || "пусто") + ". " + rc.reading));
      wrap.appendChild(el("dd", "", c.description));
      cellList.appendChild(wrap);
    });

    lineList.textContent = "";
    data.lines.forEach(function (l) {
      var sum = rec.lines[l.key];
      var wrap = el("div", "explanation");
      wrap.id = "about-line-" + l.key;
      wrap.appendChild(el("dt", "", l.name + " (клетки " + l.cells.join(", ") + "): " + sum));
      wrap.appendChild(el("dd", "", l.readings[band(sum)]));
      wrap.appendChild(el("dd", "muted", l.description));
      lineList.appendChild(wrap);
    });

    var api = "/api/public/square/" + rec.input.day + "/" + rec.input.month + "/" + rec.input.year;
    jsonLink.href = api;
    jsonLink.textContent = api;
    citation.textContent = rec.suggested_citation + "\n" + rec.attribution;
    status.textContent = "";
    status.className = "notice";
    status.setAttribute("data-state", "ok");
    result.hidden = false;
  }

  // sameSquare reports whether two records hold the same working numbers, cells and lines.
  function sameSquare(a, b) {
    if (a.working_numbers.join() !== b.working_numbers.join()) return false;
    for (var n = 1; n <= 9; n++) {
      var x = a.cells[String(n)], y = b.cells[String(n)];
      if (x.digits !== y.digits || x.count !== y.count || x.name !== y.name || x.reading !== y.reading) return false;
    }
    return data.lines.every(function (l) { return a.lines[l.key] === b.lines[l.key]; });
  }

  // check fetches the API record of the drawn date; the record wins if it differs.
  function check(p, drawn) {
    showAPI("loading", "", "Сверяем расчёт с записью API…");
    fetch("/api/public/square/" + p.d + "/" + p.m + "/" + p.y, { headers: { Accept: "application/json" } })
      .then(function (res) {
        if (res.ok) {
          return res.json().then(function (rec) {
            if (!sameSquare(rec, drawn) || rec.suggested_citation !== drawn.suggested_citation) render(rec);
            showAPI("ok", "", "Квадрат совпадает с записью API — его можно цитировать так, как указано выше.");
          });
        }
        var again = function () { check(p, drawn); };
        if (res.status === 429) {
          var wait = parseInt(res.headers.get("Retry-After") || "", 10);
          var when = wait > 0 ? "через " + wait + " " + seconds(wait) : "через минуту";
          showAPI("rate-limit", "Слишком много запросов подряд",
            "С вашего адреса за минуту пришло больше " + data.rateLimit + " запросов. Квадрат выше уже посчитан в браузере; сверить его с API можно " + when + ".", again);
          return;
        }
        showAPI("server", "Сервер не смог ответить",
          "Ошибка " + res.status + ". Квадрат выше уже посчитан в браузере; сверить его с API можно чуть позже. Если ошибка повторится, напишите нам: " + data.supportEmail + ".", again);
      })
      .catch(function () {
        showAPI("network", "Нет связи с сервером",
          "Запись API не загрузилась, но квадрат выше уже посчитан в браузере. Проверьте подключение к интернету и попробуйте ещё раз.", function () { check(p, drawn); });
      });
  }

  function load() {
    var raw = new URLSearchParams(window.location.search).get("date");
    if (raw === null || raw === "") {
      show("empty", "", "Выберите дату рождения в форме выше — и здесь появится её квадрат.");
      return;
    }
    raw = raw.trim();
    if (input && /^\d{4}-\d{2}-\d{2}$/.test(raw)) input.value = raw;
    var p = parse(raw);
    if (p.error) {
      show("bad-date", p.heading, p.error + " Выберите дату в форме выше.");
      return;
    }
    var rec = localRecord(p);
    render(rec);
    check(p, rec);
  }

  var monthsIn = ["январе", "феврале", "марте", "апреле", "мае", "июне", "июле", "августе", "сентябре", "октябре", "ноябре", "декабре"];

  // seconds returns the Russian word for "seconds" that agrees with n.
  function seconds(n) {
    var m10 = n % 10, m100 = n % 100;
    if (m10 === 1 && m100 !== 11) return "секунду";
    if (m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14)) return "секунды";
    return "секунд";
  }

  // Exposed for the browser tests, which compare it with the Go rule over every date.
  window.numerologySquareOf = squareOf;

  load();
})();
