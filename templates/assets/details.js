// The matrix details page: reads ?date=YYYY-MM-DD, draws the date's 12 positions at once by
// the matrix rule (docs/design.md §6), then fetches the API record, checks the drawing
// against it and fills in the citation. The script runs while the page is parsed, so the
// first frame already shows the matrix or the message about the date, and what the API
// answers later lands in space reserved for it: nothing on the page moves. No libraries.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("matrix-data").textContent);
  var status = document.getElementById("status");
  var result = document.getElementById("result");
  var diagram = document.getElementById("diagram");
  var explanations = document.getElementById("explanations");
  var input = document.getElementById("details-date");
  var titleDate = document.getElementById("details-title-date");
  var apiStatus = document.getElementById("api-status");
  var jsonLink = document.getElementById("json-link");
  var chartLink = document.getElementById("chart-link");
  var citation = document.getElementById("citation");

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

  // show puts a message about the date above the matrix ("bad-date", "empty"); the matrix
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
    var t = new Date(Date.UTC(2000, mo - 1, d));
    t.setUTCFullYear(y);
    if (mo < 1 || mo > 12) {
      return { heading: "Такой даты нет", error: "Даты " + m[3] + "." + m[2] + "." + m[1] + " нет в календаре: месяцев всего двенадцать." };
    }
    if (d < 1 || t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) {
      var days = new Date(Date.UTC(2000, mo, 0));
      days.setUTCFullYear(y, mo, 0);
      return { heading: "Такой даты нет", error: "Даты " + m[3] + "." + m[2] + "." + m[1] + " нет в календаре: в " + monthsIn[mo - 1] + " " + y + " года " + days.getUTCDate() + " " + dayWord(days.getUTCDate()) + "." };
    }
    if (y < data.firstYear || y > data.lastYear) {
      return { heading: "Год вне диапазона " + data.firstYear + "–" + data.lastYear, error: "Матрица рассчитывается для дат с 01.01." + data.firstYear + " по 31.12." + data.lastYear + ", а " + ruDate(d, mo, y) + " в этот промежуток не входит." };
    }
    return { d: d, m: mo, y: y };
  }

  function digitSum(n) {
    var s = 0;
    for (; n > 0; n = Math.floor(n / 10)) s += n % 10;
    return s;
  }

  // R reduces n to an arcana number 1–22: while n > 22, n becomes the sum of its digits.
  function R(n) {
    while (n > 22) n = digitSum(n);
    return n;
  }

  // matrixOf computes the 12 positions of a date by the matrix rule (docs/design.md §6).
  function matrixOf(d, m, y) {
    var A = R(d), B = R(m), C = R(digitSum(y));
    var D = R(A + B + C), E = R(A + B + C + D);
    var F = R(A + B), G = R(B + C), H = R(C + D), I = R(D + A);
    var spirit = R(B + D), body = R(A + C), purpose = R(spirit + body);
    var social = R(R(F + H) + R(G + I));
    return {
      personal: A, social: social, soul: R(B + E), body: body, spirit: spirit, center: E,
      talents: B, karma: D, money: C, relationships: H, destiny: R(purpose + social), purpose: purpose
    };
  }

  // localRecord builds the matrix record of a date as the API would send it.
  function localRecord(p) {
    var nums = matrixOf(p.d, p.m, p.y), matrix = {};
    Object.keys(nums).forEach(function (k) {
      var c = data.cells[nums[k] - 1];
      matrix[k] = { arcana: nums[k], name: c.name, keyword: c.keyword, emoji: c.emoji };
    });
    var iso = p.y + "-" + pad(p.m) + "-" + pad(p.d);
    return {
      input: { day: p.d, month: p.m, year: p.y },
      matrix: matrix,
      suggested_citation: data.citation.replace("{date}", ruDate(p.d, p.m, p.y)).replace("{url}", data.siteURL + "/matrix/details?date=" + iso),
      attribution: data.attribution
    };
  }

  function cell(pos, c) {
    var card = el("li", "cell cell-" + pos.key);
    card.setAttribute("data-position", pos.key);
    card.setAttribute("data-arcana", String(c.arcana));
    card.appendChild(el("span", "cell-title", pos.title));
    var emoji = el("span", "cell-emoji", c.emoji);
    emoji.setAttribute("aria-hidden", "true");
    card.appendChild(emoji);
    card.appendChild(el("span", "cell-arcana", String(c.arcana)));
    card.appendChild(el("span", "cell-name", c.name));
    card.appendChild(el("span", "cell-keyword", c.keyword));
    return card;
  }

  function render(rec) {
    var byKey = {};
    data.positions.forEach(function (p) { byKey[p.key] = p; });
    var date = ruDate(rec.input.day, rec.input.month, rec.input.year);
    titleDate.textContent = "для " + date;
    document.title = "Матрица судьбы для " + date + " — " + data.siteTitle;

    diagram.textContent = "";
    data.layout.forEach(function (group) {
      var g = el("div", "group group-" + group.name);
      g.setAttribute("role", "group");
      g.setAttribute("aria-label", group.label);
      if (group.caption) g.appendChild(el("p", "group-caption", group.caption));
      var list = el("ul", "cells");
      group.keys.forEach(function (k) { list.appendChild(cell(byKey[k], rec.matrix[k])); });
      g.appendChild(list);
      diagram.appendChild(g);
    });
    diagram.setAttribute("data-state", "ready");

    explanations.textContent = "";
    data.positions.forEach(function (p) {
      var c = rec.matrix[p.key];
      var wrap = el("div", "explanation");
      wrap.id = "about-" + p.key;
      var dt = el("dt");
      dt.appendChild(el("span", "exp-emoji", c.emoji)).setAttribute("aria-hidden", "true");
      dt.appendChild(document.createTextNode(" " + p.title + ": " + c.arcana + ". " + c.name + " — " + c.keyword));
      wrap.appendChild(dt);
      wrap.appendChild(el("dd", "", p.meaning));
      var arc = data.arcana[c.arcana - 1];
      if (arc) wrap.appendChild(el("dd", "muted", arc));
      explanations.appendChild(wrap);
    });

    var api = "/api/public/matrix/" + rec.input.day + "/" + rec.input.month + "/" + rec.input.year;
    jsonLink.href = api;
    jsonLink.textContent = api;
    chartLink.href = "/chart/details?date=" + rec.input.year + "-" + pad(rec.input.month) + "-" + pad(rec.input.day);
    citation.textContent = rec.suggested_citation + "\n" + rec.attribution;
    status.textContent = "";
    status.className = "notice";
    status.setAttribute("data-state", "ok");
    result.hidden = false;
  }

  // sameMatrix reports whether two records show the same arcana in every position.
  function sameMatrix(a, b) {
    return data.positions.every(function (p) { return a.matrix[p.key].arcana === b.matrix[p.key].arcana; });
  }

  // check fetches the API record of the drawn date; the record wins if it differs.
  function check(p, drawn) {
    showAPI("loading", "", "Сверяем расчёт с записью API…");
    fetch("/api/public/matrix/" + p.d + "/" + p.m + "/" + p.y, { headers: { Accept: "application/json" } })
      .then(function (res) {
        if (res.ok) {
          return res.json().then(function (rec) {
            if (!sameMatrix(rec, drawn) || rec.suggested_citation !== drawn.suggested_citation) render(rec);
            showAPI("ok", "", "Схема совпадает с записью API — её можно цитировать так, как указано выше.");
          });
        }
        var again = function () { check(p, drawn); };
        if (res.status === 429) {
          var wait = parseInt(res.headers.get("Retry-After") || "", 10);
          var when = wait > 0 ? "через " + wait + " " + seconds(wait) : "через минуту";
          showAPI("rate-limit", "Слишком много запросов подряд",
            "С вашего адреса за минуту пришло больше " + data.rateLimit + " запросов. Схема выше уже посчитана в браузере; сверить её с API можно " + when + ".", again);
          return;
        }
        showAPI("server", "Сервер не смог ответить",
          "Ошибка " + res.status + ". Схема выше уже посчитана в браузере; сверить её с API можно чуть позже. Если ошибка повторится, напишите нам: " + data.supportEmail + ".", again);
      })
      .catch(function () {
        showAPI("network", "Нет связи с сервером",
          "Запись API не загрузилась, но схема выше уже посчитана в браузере. Проверьте подключение к интернету и попробуйте ещё раз.", function () { check(p, drawn); });
      });
  }

  function load() {
    var raw = new URLSearchParams(window.location.search).get("date");
    if (raw === null || raw === "") {
      show("empty", "", "Выберите дату рождения в форме выше — и здесь появится её матрица.");
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

  function dayWord(n) { return n === 31 ? "день" : "дней"; }

  // seconds returns the Russian word for "seconds" that agrees with n.
  function seconds(n) {
    var m10 = n % 10, m100 = n % 100;
    if (m10 === 1 && m100 !== 11) return "секунду";
    if (m10 >= 2 && m10 <= 4 && (m100 < 12 || m100 > 14)) return "секунды";
    return "секунд";
  }

  // Exposed for the browser tests, which compare it with the Go rule over every date.
  window.numerologyMatrixOf = matrixOf;

  load();
})();
