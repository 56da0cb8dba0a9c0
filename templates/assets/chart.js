// The full matrix chart's details page: reads ?date=YYYY-MM-DD, computes the date's chart
// at once by the rule (docs/design.md §15), writes its numbers into the drawing and the
// tables the page already holds, then fetches the API record, checks the chart against it
// and fills in the citation. The script runs while the page is parsed, so the first frame
// already shows the drawing's outline or the message about the date; the rest is shown a
// step a frame (render), and what the API answers later lands in space reserved for it:
// nothing on the page moves. No libraries.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("chart-data").textContent);
  var status = document.getElementById("status");
  var result = document.getElementById("result");
  var drawing = document.getElementById("drawing");
  var input = document.getElementById("details-date");
  var titleDate = document.getElementById("details-title-date");
  var apiStatus = document.getElementById("api-status");
  var jsonLink = document.getElementById("json-link");
  var citation = document.getElementById("citation");
  var cells = result.querySelectorAll("[data-key]");
  // What render shows after the first frame, each in a frame of its own: the drawing's
  // outer points and centre, its inner points, its age ring a quarter at a time, then the
  // page's parts below it.
  var later = [drawing.querySelectorAll("g.ch-outer, g.ch-centre"), drawing.querySelectorAll("g.ch-inner, g.ch-money, g.ch-love, g.ch-balance")];
  var ring = drawing.querySelectorAll("g.ch-age");
  for (var q = 0; q < ring.length; q += 16) later.push(Array.prototype.slice.call(ring, q, q + 16));
  var parts = result.querySelectorAll(".ch-part");
  var renders = 0; // render's runs so far
  // touched is whether the reader has scrolled, tapped or typed since the page loaded.
  var touched = false;
  ["wheel", "touchstart", "mousedown", "keydown"].forEach(function (type) {
    window.addEventListener(type, function () { touched = true; }, { once: true, passive: true, capture: true });
  });

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

  // show puts a message about the date above the chart ("bad-date", "empty"); the chart is
  // then hidden. It is only called while the page is parsed.
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

  // parse checks the format, the calendar and the range; it returns {d, m, y} or an error's
  // heading and text, headed by its kind as on the matrix's page.
  function parse(s) {
    // Also accept the Russian DD.MM.YYYY that people type where the browser has no date picker.
    var ru = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s);
    if (ru) s = ru[3] + "-" + pad(+ru[2]) + "-" + pad(+ru[1]);
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
    if (!m) {
      return { heading: "Не получилось прочитать дату", error: "«" + s + "» не похоже на дату. Подойдёт запись ДД.ММ.ГГГГ или ГГГГ-ММ-ДД, например 11.07.1996 или 1996-07-11." };
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
      return { heading: "Год вне диапазона " + data.firstYear + "–" + data.lastYear, error: "Карта рассчитывается для дат с 01.01." + data.firstYear + " по 31.12." + data.lastYear + ", а " + ruDate(d, mo, y) + " в этот промежуток не входит." };
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
    for (; n > 0; n = Math.floor(n / 10)) s += n % 10;
    return s;
  }

  // r is the reduction of the rule: while the number is above 22, the sum of its digits.
  function r(n) {
    while (n > 22) n = digitSum(n);
    return n;
  }

  // chartOf computes the chart of a date by the rule of docs/design.md §15 (method
  // ladini-22): the points, channels, purposes, karmic tail, talents, chakra map with its
  // totals and the age line, in the record's shape, numbers only.
  function chartOf(d, m, y) {
    var p = {};
    p.A = r(d); p.B = r(m); p.C = r(digitSum(y));
    p.D = r(p.A + p.B + p.C);
    p.E = r(p.A + p.B + p.C + p.D);
    p.F = r(p.A + p.B); p.G = r(p.B + p.C); p.H = r(p.C + p.D); p.I = r(p.D + p.A);
    ["A", "B", "C", "D", "F", "G", "H", "I"].forEach(function (x) {
      p[x + "2"] = r(p[x] + p.E);
      p[x + "1"] = r(p[x] + p[x + "2"]);
    });
    p.A3 = r(p.A2 + p.E); p.B3 = r(p.B2 + p.E);
    p.U = r(p.F + p.G + p.H + p.I);
    var points = {};
    data.points.forEach(function (k) { points[k] = p[k]; });

    var balance = r(p.C2 + p.D2);
    var channels = { money_entry: p.C2, relationship_entry: p.D2, balance: balance, money: r(balance + p.C2), love: r(p.D2 + balance) };

    var sky = r(p.B + p.D), earth = r(p.A + p.C), personal = r(sky + earth);
    var male = r(p.F + p.H), female = r(p.G + p.I), social = r(male + female);
    var spiritual = r(personal + social);
    var purposes = { sky: sky, earth: earth, personal: personal, male: male, female: female, social: social, spiritual: spiritual, planetary: r(social + spiritual) };

    // The chakras top to bottom: the physical column on the horizontal axis A…C, the energy
    // column on the vertical axis B…D, emotions their reduced sum.
    var rows = [["A", "B"], ["A1", "B1"], ["A2", "B2"], ["A3", "B3"], ["E", "E"], ["C2", "D2"], ["C", "D"]];
    var sums = [0, 0, 0];
    var chakras = rows.map(function (row, i) {
      var c = { key: data.chakras[i], physical: p[row[0]], energy: p[row[1]], emotions: r(p[row[0]] + p[row[1]]) };
      sums[0] += c.physical; sums[1] += c.energy; sums[2] += c.emotions;
      return c;
    });

    // The age line: from each outer point X to the next, Y, ten years in eight steps.
    var outer = ["A", "F", "B", "G", "C", "H", "D", "I"];
    var ageLine = [];
    outer.forEach(function (k, s) {
      var x = p[k], y2 = p[outer[(s + 1) % 8]];
      var five = r(x + y2), twoHalf = r(x + five), sevenHalf = r(five + y2);
      [x, r(x + twoHalf), twoHalf, r(twoHalf + five), five, r(five + sevenHalf), sevenHalf, r(sevenHalf + y2)].forEach(function (a) {
        ageLine.push({ age: ageLine.length * 1.25, arcana: a });
      });
    });

    return {
      method: data.method,
      points: points,
      channels: channels,
      purposes: purposes,
      karmic_tail: [p.D, p.D1, p.D2],
      talents: [p.B, p.B1, p.B2],
      chakras: chakras,
      chakra_totals: { physical: r(sums[0]), energy: r(sums[1]), emotions: r(sums[2]) },
      age_line: ageLine
    };
  }

  // localRecord builds the chart record of a date as the API would send it.
  function localRecord(p) {
    var rec = chartOf(p.d, p.m, p.y);
    var iso = p.y + "-" + pad(p.m) + "-" + pad(p.d);
    rec.input = { day: p.d, month: p.m, year: p.y };
    rec.suggested_citation = data.citation.replace("{date}", ruDate(p.d, p.m, p.y)).replace("{url}", data.siteURL + "/chart/details?date=" + iso);
    rec.attribution = data.attribution;
    return rec;
  }

  // get reads the arcanum at a cell's key ("points.A", "karmic_tail.0", "age_line.12").
  function get(rec, key) {
    var v = rec;
    key.split(".").forEach(function (k) { v = v === undefined || v === null ? undefined : v[k]; });
    if (v !== null && typeof v === "object") v = v.arcana;
    return v;
  }

  function name(n) { return data.arcana[n - 1] || ""; }

  // arcanumLink is an arcanum's number and name, linked to its page.
  function arcanumLink(n) {
    var a = el("a", "", n + ". " + name(n));
    a.href = "/arcana/" + n;
    return a;
  }

  // readings lists a zone's arcana in the order of its fields, each once with the fields
  // it stands in, and its reading in that zone, into the list marked readings-ZONE.
  function readings(list, rec) {
    var zone = list.id.slice("readings-".length);
    list.textContent = "";
    var order = [], where = {};
    data.fields[zone].forEach(function (f) {
      var n = get(rec, f);
      if (!where[n]) { where[n] = []; order.push(n); }
      where[n].push(data.labels[f]);
    });
    order.forEach(function (n) {
      var wrap = el("div", "explanation");
      var dt = el("dt", "", where[n].join(", ") + ": ");
      dt.appendChild(arcanumLink(n));
      wrap.appendChild(dt);
      wrap.appendChild(el("dd", "", data.readings[zone][String(n)] || ""));
      list.appendChild(wrap);
    });
  }

  // fillIn writes a record's numbers into the cells inside box and its readings into the
  // reading lists there.
  function fillIn(box, rec) {
    var own = box.querySelectorAll("[data-key]");
    for (var i = 0; i < own.length; i++) fillCell(own[i], rec);
    var lists = box.querySelectorAll("[id^='readings-']");
    for (var j = 0; j < lists.length; j++) readings(lists[j], rec);
  }

  // fillCell writes a record's arcanum into one cell: in a table, its number and name,
  // linked to its page; in the drawing, the number in its circle and the point's name,
  // number and arcanum in the circle's title.
  function fillCell(c, rec) {
    var n = get(rec, c.getAttribute("data-key"));
    if (c.namespaceURI === "http://www.w3.org/2000/svg") {
      c.querySelector("title").textContent = c.getAttribute("data-label") + ": " + n + ", " + name(n);
      var text = c.querySelector("text:not(.ch-letter)");
      if (c.getAttribute("class").indexOf("ch-decade") < 0) text.textContent = String(n);
      return;
    }
    c.textContent = "";
    c.appendChild(arcanumLink(n));
  }

  // render shows a record, either at once or staged: the drawing's outline first, then the
  // rest a step a frame (later, then all the parts). Drawn whole, the page is about a
  // thousand elements, and styling, laying out and painting them took one task of 100–170 ms
  // on a fast desktop, several times that on a phone, during which the page answered no
  // tap; a step a frame keeps the tasks short. The drawing's box is fixed by its viewBox
  // and the parts appear below it, so nothing on screen moves. A newer render stops an
  // older one's steps. #drawing's data-state is "drawing" until every step is shown, then
  // "ready".
  function render(rec, staged) {
    var run = ++renders;
    var date = ruDate(rec.input.day, rec.input.month, rec.input.year);
    titleDate.textContent = "для " + date;
    document.title = "Полная карта матрицы для " + date + " — " + data.siteTitle;
    var api = "/api/public/chart/" + rec.input.day + "/" + rec.input.month + "/" + rec.input.year;
    jsonLink.href = api;
    jsonLink.textContent = api;
    citation.textContent = rec.suggested_citation + "\n" + rec.attribution;
    status.textContent = "";
    status.className = "notice";
    status.setAttribute("data-state", "ok");
    // Each step fills in what it shows, so that the parser's task does no more than the
    // outline's share.
    var steps = [];
    later.forEach(function (gs) {
      for (var i = 0; i < gs.length; i++) if (staged) gs[i].setAttribute("display", "none");
      steps.push(function () {
        for (var i = 0; i < gs.length; i++) {
          fillCell(gs[i], rec);
          gs[i].removeAttribute("display");
        }
      });
    });
    // The parts below the drawing are one step: they start below the first screen on a
    // phone and on a desktop, where content-visibility (chart.css) spares the browser their
    // layout and paint until they near the viewport, so showing them all costs little more
    // than filling them in; a step each made sixteen frames that each blocked the page.
    steps.push(function () {
      Array.prototype.forEach.call(parts, function (part) {
        fillIn(part, rec);
        part.hidden = false;
      });
    });
    // A link to a heading below the drawing (…#chakras-h) must find it where it will stay:
    // the parts before it are laid out whole rather than by their placeholder sizes.
    var target = linked();
    if (target) result.classList.add("ch-linked");
    drawing.setAttribute("data-state", "drawing");
    result.hidden = false;

    var next = 0;
    function show() {
      if (run !== renders) return; // a newer record is being shown
      steps[next]();
      if (++next < steps.length) {
        if (staged) requestAnimationFrame(show);
        return;
      }
      drawing.setAttribute("data-state", "ready");
      // A link to a heading below the drawing found it hidden when the page loaded, and
      // the browser scrolled to no place in particular; it is shown now. Unless the reader
      // has scrolled, tapped or typed meanwhile, go there.
      if (staged && !touched && target) target.scrollIntoView();
    }
    if (staged) {
      // The frame after this one is the drawing's; the first step waits for the one after.
      requestAnimationFrame(function () { requestAnimationFrame(show); });
    } else {
      while (next < steps.length) show();
    }
  }

  // linked returns the element of the result the page's address links to (#chakras-h),
  // or null.
  function linked() {
    var id = location.hash.slice(1);
    try {
      id = decodeURIComponent(id);
    } catch (e) {
      // a malformed escape (#%zz): the id as written
    }
    var target = id && document.getElementById(id);
    return target && result.contains(target) ? target : null;
  }

  // sameChart reports whether two records hold the same method and the same arcanum in
  // every cell the page shows.
  function sameChart(a, b) {
    if (a.method !== b.method) return false;
    for (var i = 0; i < cells.length; i++) {
      var k = cells[i].getAttribute("data-key");
      if (get(a, k) !== get(b, k)) return false;
    }
    return true;
  }

  // check fetches the API record of the drawn date; the record wins if it differs.
  function check(p, shown) {
    showAPI("loading", "", "Сверяем расчёт с записью API…");
    fetch("/api/public/chart/" + p.d + "/" + p.m + "/" + p.y, { headers: { Accept: "application/json" } })
      .then(function (res) {
        if (res.ok) {
          return res.json().then(function (rec) {
            if (!sameChart(rec, shown) || rec.suggested_citation !== shown.suggested_citation) render(rec, false);
            showAPI("ok", "", "Карта совпадает с записью API — её можно цитировать так, как указано выше.");
          });
        }
        var again = function () { check(p, shown); };
        if (res.status === 429) {
          var wait = parseInt(res.headers.get("Retry-After") || "", 10);
          var when = wait > 0 ? "через " + wait + " " + seconds(wait) : "через минуту";
          showAPI("rate-limit", "Слишком много запросов подряд",
            "С вашего адреса за минуту пришло больше " + data.rateLimit + " запросов. Карта выше уже посчитана в браузере; сверить её с API можно " + when + ".", again);
          return;
        }
        showAPI("server", "Сервер не смог ответить",
          "Ошибка " + res.status + ". Карта выше уже посчитана в браузере; сверить её с API можно чуть позже. Если ошибка повторится, напишите нам: " + data.supportEmail + ".", again);
      })
      .catch(function () {
        showAPI("network", "Нет связи с сервером",
          "Запись API не загрузилась, но карта выше уже посчитана в браузере. Проверьте подключение к интернету и попробуйте ещё раз.", function () { check(p, shown); });
      });
  }

  function load() {
    var raw = new URLSearchParams(window.location.search).get("date");
    if (raw === null || raw === "") {
      show("empty", "", "Выберите дату рождения в форме выше — и здесь появится её карта.");
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
    render(rec, true);
    // The check's request starts in a task of its own, after the parser's.
    setTimeout(function () { check(p, rec); }, 0);
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
  window.numerologyChartOf = chartOf;

  load();
})();
