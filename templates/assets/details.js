// The matrix details page: reads ?date=YYYY-MM-DD, fetches the matrix record from the API
// and draws its 12 positions. Self-contained; no libraries.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("matrix-data").textContent);
  var status = document.getElementById("status");
  var result = document.getElementById("result");
  var diagram = document.getElementById("diagram");
  var explanations = document.getElementById("explanations");
  var input = document.getElementById("details-date");
  var title = document.getElementById("details-title");

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function ruDate(d, m, y) { return pad(d) + "." + pad(m) + "." + y; }

  // show puts a friendly message into the status box; kind is a stable name for tests and
  // styling ("bad-date", "rate-limit", "network", "server", "loading", "empty").
  function show(kind, heading, text, retry) {
    status.textContent = "";
    status.setAttribute("data-state", kind);
    status.className = "notice notice-" + (kind === "loading" || kind === "empty" ? "info" : "error");
    status.setAttribute("role", kind === "loading" || kind === "empty" ? "status" : "alert");
    if (heading) status.appendChild(el("p", "notice-title", heading));
    if (text) status.appendChild(el("p", "", text));
    if (retry) {
      var b = el("button", "secondary", "Попробовать ещё раз");
      b.type = "button";
      b.addEventListener("click", load);
      status.appendChild(b);
    }
    if (kind !== "loading") result.hidden = kind !== "ok";
  }

  function clearStatus() {
    status.textContent = "";
    status.className = "notice";
    status.setAttribute("data-state", "ok");
    status.setAttribute("role", "status");
  }

  // parse checks the format, the calendar and the range; it returns {d, m, y} or an error text.
  function parse(s) {
    // Also accept the Russian DD.MM.YYYY that people type where the browser has no date picker.
    var ru = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(s);
    if (ru) s = ru[3] + "-" + pad(+ru[2]) + "-" + pad(+ru[1]);
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
    if (!m) {
      return { error: "Не получилось прочитать дату «" + s + "». Нужен формат ГГГГ-ММ-ДД, например 1990-05-15." };
    }
    var y = +m[1], mo = +m[2], d = +m[3];
    var t = new Date(Date.UTC(2000, mo - 1, d));
    t.setUTCFullYear(y);
    if (mo < 1 || mo > 12) {
      return { error: "Даты " + m[3] + "." + m[2] + "." + m[1] + " нет в календаре: месяцев всего двенадцать." };
    }
    if (d < 1 || t.getUTCFullYear() !== y || t.getUTCMonth() !== mo - 1 || t.getUTCDate() !== d) {
      var days = new Date(Date.UTC(2000, mo, 0));
      days.setUTCFullYear(y, mo, 0);
      return { error: "Даты " + m[3] + "." + m[2] + "." + m[1] + " нет в календаре: в " + monthsIn[mo - 1] + " " + y + " года " + days.getUTCDate() + " " + dayWord(days.getUTCDate()) + "." };
    }
    if (y < data.firstYear || y > data.lastYear) {
      return { error: "Матрица рассчитывается для дат с 01.01." + data.firstYear + " по 31.12." + data.lastYear + ", а " + ruDate(d, mo, y) + " в этот промежуток не входит." };
    }
    return { d: d, m: mo, y: y };
  }

  function badDate(text) {
    show("bad-date", "Такой даты нет", text + " Выберите дату в форме выше.");
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
    title.textContent = "Матрица судьбы для " + date;
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
    var link = document.getElementById("json-link");
    link.href = api;
    link.textContent = api;
    document.getElementById("citation").textContent = rec.suggested_citation + "\n" + rec.attribution;
    clearStatus();
    result.hidden = false;
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
      badDate(p.error);
      return;
    }
    show("loading", "", "Считаем матрицу для " + ruDate(p.d, p.m, p.y) + "…");
    fetch("/api/public/matrix/" + p.d + "/" + p.m + "/" + p.y, { headers: { Accept: "application/json" } })
      .then(function (res) {
        if (res.ok) {
          return res.json().then(render);
        }
        if (res.status === 400) {
          badDate("Сервер не узнал дату " + ruDate(p.d, p.m, p.y) + ".");
          return;
        }
        if (res.status === 429) {
          var wait = parseInt(res.headers.get("Retry-After") || "", 10);
          var when = wait > 0 ? "через " + wait + " " + seconds(wait) : "через минуту";
          show("rate-limit", "Слишком много запросов подряд",
            "С вашего адреса за последнюю минуту пришло больше " + data.rateLimit + " запросов. Попробуйте снова " + when + " — всё сохранится.", true);
          return;
        }
        show("server", "Сервер не смог ответить",
          "Ошибка " + res.status + ". Попробуйте немного позже; если ошибка повторяется, напишите нам на " + data.supportEmail + ".", true);
      })
      .catch(function () {
        show("network", "Нет связи с сервером",
          "Не удалось загрузить матрицу. Проверьте подключение к интернету и попробуйте ещё раз.", true);
      });
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

  load();
})();
