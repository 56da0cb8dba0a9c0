// The personal cycles' pages (docs/design.md §16). On every page with the cycles' form it
// puts the current year into the form's year. On /personal-year/details it reads
// ?birthday=MM-DD&year=YYYY (or the form's ?day=&month=&year=), computes the personal year
// and the twelve-month calendar at once by the rule and draws the calendar a month a
// frame, then fetches the API record and checks the drawing against it. On
// /life-path/details it reads ?date=YYYY-MM-DD and draws the life path number, the
// pinnacles as a timeline and the challenges the same way. The script runs while the page
// is parsed, so the first frame already shows the result (the calendar's boxes with their
// height) or the message about the input, and what the API answers lands in space reserved
// for it. No libraries.
(function () {
  "use strict";

  var pyData = document.getElementById("personal-year-data");
  var lpData = document.getElementById("life-path-data");
  var data = JSON.parse((pyData || lpData || { textContent: "{}" }).textContent);
  var query = new URLSearchParams(window.location.search);

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

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

  // r9 reduces to one digit, master numbers too; rk keeps 11 and 22 (docs/design.md §16).
  function r9(n) { while (n > 9) n = digitSum(n); return n; }
  function rk(n) { while (n > 9 && n !== 11 && n !== 22) n = digitSum(n); return n; }

  // personalYearOf computes the personal year of a birthday in a target year, its twelve
  // months and every day of the year's real calendar.
  function personalYearOf(d, m, y) {
    var py = r9(d + m + digitSum(y));
    var months = [], days = [];
    for (var k = 1; k <= 12; k++) {
      var pm = r9(py + k), list = [];
      for (var j = 1; j <= daysIn(k, y); j++) list.push(r9(pm + j));
      months.push(pm);
      days.push(list);
    }
    return { number: py, months: months, days: days };
  }

  // lifePathOf is the life path number of docs/design.md §7: 11, 22 and 33 are kept.
  function lifePathOf(d, m, y) {
    var n = digitSum(d) + digitSum(m) + digitSum(y);
    while (n > 9 && n !== 11 && n !== 22 && n !== 33) n = digitSum(n);
    return n;
  }

  // lifeCyclesOf computes the four pinnacles (with the ages they run between; the last has
  // no end, to null) and the four challenges of a birth date.
  function lifeCyclesOf(d, m, y) {
    var ys = digitSum(y);
    var mk = rk(m), dk = rk(d), yk = rk(ys);
    var p1 = rk(mk + dk), p2 = rk(dk + yk);
    var numbers = [p1, p2, rk(p1 + p2), rk(mk + yk)];
    var end = 36 - r9(lifePathOf(d, m, y));
    var pinnacles = numbers.map(function (n, i) {
      return { number: n, from: i === 0 ? 0 : end + 9 * (i - 1), to: i === 3 ? null : end + 9 * i };
    });
    var m1 = r9(m), d1 = r9(d), y1 = r9(ys);
    var c1 = Math.abs(m1 - d1), c2 = Math.abs(d1 - y1);
    return { pinnacles: pinnacles, challenges: [c1, c2, Math.abs(c1 - c2), Math.abs(m1 - y1)] };
  }

  // Exposed for the browser tests, which compare them with the Go rules over every input.
  window.numerologyPersonalYearOf = personalYearOf;
  window.numerologyLifeCyclesOf = lifeCyclesOf;

  // The form's year: the one asked for, else the current year within the range.
  var yearInput = document.getElementById("cy-year");
  if (yearInput && !yearInput.value) {
    var asked = parseInt(query.get("year") || "", 10);
    var now = new Date().getFullYear();
    var lo = +yearInput.min, hi = +yearInput.max;
    yearInput.value = String(asked >= lo && asked <= hi ? asked : Math.min(Math.max(now, lo), hi));
  }

  if (!pyData && !lpData) return;

  var status = document.getElementById("status");
  var result = document.getElementById("result");
  var apiStatus = document.getElementById("api-status");
  var jsonLink = document.getElementById("json-link");
  var citation = document.getElementById("citation");
  var titleDate = document.getElementById("details-title-date");

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

  function show(kind, heading, text) {
    fill(status, kind, heading, text);
    status.className = "notice notice-" + (kind === "empty" ? "info" : "error");
    result.hidden = true;
  }

  function showAPI(kind, heading, text, retry) {
    fill(apiStatus, kind, heading, text, retry);
    apiStatus.className = "api-status" + (kind === "rate-limit" || kind === "server" || kind === "network" ? " notice-error" : "");
  }

  // seconds returns the Russian word for "seconds" that agrees with n.
  function seconds(n) {
    var m10 = n % 10, m100 = n % 100;
    if (m10 === 1 && m100 !== 11) return "секунду";
    if (m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14)) return "секунды";
    return "секунд";
  }

  // years is the age n with the word that follows it after «с» or a dash, as they read
  // «с пятидесяти одного года», «от сорока двух до пятидесяти одного года»: the genitive,
  // «года» after a number ending in 1 (but 11), «лет» after any other.
  function years(n) {
    return n + (n % 10 === 1 && n % 100 !== 11 ? " года" : " лет");
  }

  // check fetches the API record; same(record) says whether it matches what is drawn, and
  // redraw draws the record when it does not.
  function check(api, what, same, redraw) {
    showAPI("loading", "", "Сверяем расчёт с записью API…");
    fetch(api, { headers: { Accept: "application/json" } })
      .then(function (res) {
        if (res.ok) {
          return res.json().then(function (rec) {
            if (!same(rec)) redraw(rec);
            showAPI("ok", "", what + " совпадает с записью API — его можно цитировать так, как указано выше.");
          });
        }
        var again = function () { check(api, what, same, redraw); };
        if (res.status === 429) {
          var wait = parseInt(res.headers.get("Retry-After") || "", 10);
          var when = wait > 0 ? "через " + wait + " " + seconds(wait) : "через минуту";
          showAPI("rate-limit", "Слишком много запросов подряд",
            "С вашего адреса за минуту пришло больше " + data.rateLimit + " запросов. Расчёт выше уже сделан в браузере; сверить его с API можно " + when + ".", again);
          return;
        }
        showAPI("server", "Сервер не смог ответить",
          "Ошибка " + res.status + ". Расчёт выше уже сделан в браузере; сверить его с API можно чуть позже. Если ошибка повторится, напишите нам: " + data.supportEmail + ".", again);
      })
      .catch(function () {
        showAPI("network", "Нет связи с сервером",
          "Запись API не загрузилась, но расчёт выше уже сделан в браузере. Проверьте подключение к интернету и попробуйте ещё раз.", function () { check(api, what, same, redraw); });
      });
  }

  function setAPI(api, cite) {
    jsonLink.href = api;
    jsonLink.textContent = api;
    citation.textContent = cite + "\n" + data.attribution;
    status.textContent = "";
    status.className = "notice";
    status.setAttribute("data-state", "ok");
    result.hidden = false;
  }

  var weekdays = ["Пн", "Вт", "Ср", "Чт", "Пт", "Сб", "Вс"];
  var monthsOf = ["января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"];

  // The personal year's details page.
  function personalYearPage() {
    var calendar = document.getElementById("calendar");
    var dayInput = document.getElementById("cy-day"), monthInput = document.getElementById("cy-month");

    // parseInput reads the birthday and the year of the query; it returns {d, m, y}, or
    // the heading and the text of what is wrong, or null when nothing was asked.
    function parseInput() {
      var b = query.get("birthday"), d, m;
      var ys = (query.get("year") || "").trim();
      if (b !== null) {
        var bm = /^(\d{2})-(\d{2})$/.exec(b.trim());
        if (!bm) return { heading: "Не получилось прочитать день рождения", error: "«" + b + "» не похоже на день рождения: нужна запись ММ-ДД, например 04-23." };
        m = +bm[1];
        d = +bm[2];
      } else {
        var ds = (query.get("day") || "").trim(), ms = (query.get("month") || "").trim();
        if (ds === "" && ms === "" && ys === "") return null;
        if (!/^\d{1,2}$/.test(ds) || !/^\d{1,2}$/.test(ms)) return { heading: "Не получилось прочитать день рождения", error: "Укажите день числом от 1 до 31 и выберите месяц." };
        d = +ds;
        m = +ms;
      }
      if (m < 1 || m > 12 || d < 1 || d > daysIn(m, 2000)) {
        return { heading: "Такого дня нет", error: "Дня " + pad(d) + "." + pad(m) + " нет в календаре." };
      }
      if (!/^\d{4}$/.test(ys) || +ys < data.firstYear || +ys > data.lastYear) {
        return { heading: "Год вне диапазона " + data.firstYear + "–" + data.lastYear, error: "Личный год считается для любого года с " + data.firstYear + " по " + data.lastYear + ": укажите год из этого промежутка." };
      }
      return { d: d, m: m, y: +ys };
    }

    function localRecord(p) {
      var py = personalYearOf(p.d, p.m, p.y);
      var url = data.siteURL + "/personal-year/details?birthday=" + pad(p.m) + "-" + pad(p.d) + "&year=" + p.y;
      return {
        input: { day: p.d, month: p.m, year: p.y },
        personal_year: py.number,
        title: data.years[py.number - 1].title,
        reading: data.years[py.number - 1].short,
        months: py.months.map(function (n, i) { return { month: i + 1, number: n, days: py.days[i] }; }),
        suggested_citation: data.citation.replace("{birthday}", pad(p.d) + "." + pad(p.m)).replace("{year}", String(p.y)).replace("{url}", url)
      };
    }

    // firstWeekday is the column of a month's first day, Monday first.
    function firstWeekday(month, year) {
      return (new Date(Date.UTC(year, month - 1, 1)).getUTCDay() + 6) % 7;
    }

    // monthBox is the box of a month, sized by its number of weeks (cycles.css) before
    // its table is drawn into it.
    function monthBox(mo, year) {
      var weeks = Math.ceil((firstWeekday(mo.month, year) + mo.days.length) / 7);
      return el("div", "cy-mbox cy-weeks-" + weeks);
    }

    function monthTable(mo, year) {
      var t = el("table", "cy-month");
      t.setAttribute("data-month", String(mo.month));
      var cap = el("caption");
      cap.appendChild(el("span", "cy-month-name", data.monthNames[mo.month - 1] + " "));
      var num = el("span", "cy-num pd-" + mo.number, String(mo.number));
      num.title = "Личный месяц " + mo.number;
      cap.appendChild(num);
      t.appendChild(cap);
      var head = el("thead"), hr = el("tr");
      weekdays.forEach(function (w) { var th = el("th", "", w); th.scope = "col"; hr.appendChild(th); });
      head.appendChild(hr);
      t.appendChild(head);
      var body = el("tbody"), tr = el("tr");
      var first = firstWeekday(mo.month, year);
      for (var i = 0; i < first; i++) tr.appendChild(el("td", "cy-blank"));
      mo.days.forEach(function (n, j) {
        if ((first + j) % 7 === 0 && j > 0) { body.appendChild(tr); tr = el("tr"); }
        var td = el("td", "cy-day pd-" + n);
        td.setAttribute("data-day", String(j + 1));
        td.setAttribute("data-number", String(n));
        td.title = (j + 1) + " " + monthsOf[mo.month - 1] + ": личный день " + n + ". " + data.days[n - 1];
        td.appendChild(el("span", "cy-d", String(j + 1)));
        td.appendChild(el("span", "cy-pd", String(n)));
        tr.appendChild(td);
      });
      while (tr.children.length < 7) tr.appendChild(el("td", "cy-blank"));
      body.appendChild(tr);
      t.appendChild(body);
      return t;
    }

    // render shows a record; staged, the calendar's months are drawn one a frame into
    // boxes that already have their height: drawn at once, the 1,300 cells took one long
    // task during which the page answered no tap. A newer render stops an older one's
    // months. #calendar's data-state is "drawing" until every month is drawn, then "ready".
    var renders = 0;
    function render(rec, staged) {
      var run = ++renders;
      var label = "для " + pad(rec.input.day) + "." + pad(rec.input.month) + " в " + rec.input.year + " году";
      titleDate.textContent = label;
      document.title = "Личный год " + label + " — " + data.siteTitle;
      var num = document.getElementById("py-number");
      num.textContent = String(rec.personal_year);
      num.className = "cy-num pd-" + rec.personal_year;
      document.getElementById("py-title").textContent = "— " + rec.title;
      document.getElementById("py-reading").textContent = rec.reading;
      calendar.textContent = "";
      calendar.setAttribute("data-state", "drawing");
      var year = rec.input.year;
      var boxes = rec.months.map(function (mo) { return calendar.appendChild(monthBox(mo, year)); });
      var next = 0;
      function draw() {
        if (run !== renders) return; // a newer record is being shown
        boxes[next].appendChild(monthTable(rec.months[next], year));
        if (++next === boxes.length) calendar.setAttribute("data-state", "ready");
        else if (staged) requestAnimationFrame(draw);
      }
      if (staged) requestAnimationFrame(function () { requestAnimationFrame(draw); });
      else while (next < boxes.length) draw();
      setAPI("/api/public/personal-year/" + rec.input.day + "/" + rec.input.month + "/" + rec.input.year, rec.suggested_citation);
    }

    function same(a, b) {
      if (a.personal_year !== b.personal_year || a.reading !== b.reading || a.suggested_citation !== b.suggested_citation || a.months.length !== 12) return false;
      return a.months.every(function (mo, i) { return mo.number === b.months[i].number && mo.days.join() === b.months[i].days.join(); });
    }

    var p = parseInput();
    if (p === null) {
      show("empty", "", "Укажите день рождения и год в форме выше — и здесь появится календарь года.");
      return;
    }
    if (p.error) {
      show("bad-date", p.heading, p.error);
      return;
    }
    dayInput.value = String(p.d);
    monthInput.value = String(p.m);
    var rec = localRecord(p);
    render(rec, true);
    // The check's request starts in a task of its own, after the parser's.
    setTimeout(function () {
      check("/api/public/personal-year/" + p.d + "/" + p.m + "/" + p.y, "Календарь", function (r) { return same(r, rec); }, function (r) { render(r, false); });
    }, 0);
  }

  // The life path details page: the number of a date, its pinnacles and challenges.
  function lifePathPage() {
    var input = document.getElementById("details-date");

    function parse(s) {
      var ru = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s);
      if (ru) s = ru[3] + "-" + pad(+ru[2]) + "-" + pad(+ru[1]);
      var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
      if (!m) return { heading: "Не получилось прочитать дату", error: "«" + s + "» не похоже на дату. Подойдёт запись ДД.ММ.ГГГГ или ГГГГ-ММ-ДД, например 15.05.1990 или 1990-05-15." };
      var y = +m[1], mo = +m[2], d = +m[3];
      if (mo < 1 || mo > 12 || d < 1 || d > daysIn(mo, y)) return { heading: "Такой даты нет", error: "Даты " + m[3] + "." + m[2] + "." + m[1] + " нет в календаре." };
      if (y < data.firstYear || y > data.lastYear) return { heading: "Год вне диапазона " + data.firstYear + "–" + data.lastYear, error: "Вершины и испытания рассчитываются для дат с 01.01." + data.firstYear + " по 31.12." + data.lastYear + "." };
      return { d: d, m: mo, y: y };
    }

    function localRecord(p) {
      var n = lifePathOf(p.d, p.m, p.y), lc = lifeCyclesOf(p.d, p.m, p.y), lp = data.lifePaths[String(n)];
      return {
        input: { day: p.d, month: p.m, year: p.y },
        number: n,
        archetype: lp.archetype,
        pinnacles: lc.pinnacles.map(function (q) { return { number: q.number, from_age: q.from, to_age: q.to, reading: data.pinnacles[String(q.number)] }; }),
        challenges: lc.challenges.map(function (c) { return { number: c, reading: data.challenges[String(c)] }; }),
        suggested_citation: data.citation.replace("{number}", String(n)).replace("{archetype}", lp.archetype).replace("{url}", data.siteURL + "/life-path/" + n)
      };
    }

    function render(rec) {
      var date = pad(rec.input.day) + "." + pad(rec.input.month) + "." + rec.input.year;
      titleDate.textContent = "для " + date;
      document.title = "Вершины и испытания для " + date + " — " + data.siteTitle;
      var num = document.getElementById("lp-number");
      num.textContent = String(rec.number);
      var link = document.getElementById("lp-link");
      link.href = "/life-path/" + rec.number;
      link.textContent = "«" + data.lifePaths[String(rec.number)].archetype + "»";
      var line = document.getElementById("timeline");
      line.textContent = "";
      rec.pinnacles.forEach(function (q, i) {
        var li = el("li", "cy-peak pd-" + (q.number > 9 ? q.number % 9 || 9 : q.number));
        li.setAttribute("data-pinnacle", String(i + 1));
        li.setAttribute("data-number", String(q.number));
        li.appendChild(el("span", "cy-peak-ages", q.to_age === null ? "с " + years(q.from_age) : q.from_age + "–" + years(q.to_age)));
        li.appendChild(el("span", "cy-peak-num", String(q.number)));
        li.appendChild(el("span", "cy-peak-text", q.reading));
        line.appendChild(li);
      });
      var list = document.getElementById("challenges");
      list.textContent = "";
      rec.challenges.forEach(function (c, i) {
        var li = el("li", "cy-challenge");
        li.setAttribute("data-challenge", String(i + 1));
        li.setAttribute("data-number", String(c.number));
        li.appendChild(el("span", "cy-num", String(c.number)));
        li.appendChild(el("span", "", " " + c.reading));
        list.appendChild(li);
      });
      line.setAttribute("data-state", "ready");
      setAPI("/api/public/life-path/" + rec.input.day + "/" + rec.input.month + "/" + rec.input.year, rec.suggested_citation);
    }

    function same(a, b) {
      if (a.number !== b.number || a.suggested_citation !== b.suggested_citation) return false;
      var pin = a.pinnacles.every(function (q, i) { var w = b.pinnacles[i]; return q.number === w.number && q.from_age === w.from_age && q.to_age === w.to_age && q.reading === w.reading; });
      return pin && a.challenges.every(function (c, i) { return c.number === b.challenges[i].number && c.reading === b.challenges[i].reading; });
    }

    var raw = query.get("date");
    if (raw === null || raw.trim() === "") {
      show("empty", "", "Выберите дату рождения в форме выше — и здесь появятся её вершины и испытания.");
      return;
    }
    raw = raw.trim();
    if (/^\d{4}-\d{2}-\d{2}$/.test(raw)) input.value = raw;
    var p = parse(raw);
    if (p.error) {
      show("bad-date", p.heading, p.error + " Выберите дату в форме выше.");
      return;
    }
    var rec = localRecord(p);
    render(rec);
    check("/api/public/life-path/" + p.d + "/" + p.m + "/" + p.y, "Расчёт", function (r) {
      return same({ number: r.number, pinnacles: r.pinnacles, challenges: r.challenges, suggested_citation: r.suggested_citation }, rec);
    }, function (r) {
      render({ input: r.input, number: r.number, pinnacles: r.pinnacles, challenges: r.challenges, suggested_citation: r.suggested_citation });
    });
  }

  if (pyData) personalYearPage();
  else lifePathPage();
})();
