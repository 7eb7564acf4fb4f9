// Advice for a hand without playing: the card picker, the form, advise's table and a chart.
"use strict";

const VARIANT_NAMES = ["bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer",
  "laatste_slag", "domino", "troeven_C", "troeven_D", "troeven_H", "troeven_S", "troeven_NT"];

function setupAdvice(config) {
  const form = document.getElementById("advice-form");
  const picker = document.getElementById("picker");
  const handInput = form.elements.hand;
  const picked = new Set();
  const syncInput = () => { handInput.value = sortHand([...picked]).join(" "); };
  for (const s of ["S", "H", "C", "D"]) {
    for (let r = 12; r >= 0; r--) {
      const c = RANKS[r] + s;
      picker.append(el("button", { type: "button", class: isRed(c) ? "red" : null, "data-card": c,
        "aria-pressed": "false", onclick: (ev) => {
          if (picked.has(c)) picked.delete(c); else picked.add(c);
          ev.currentTarget.setAttribute("aria-pressed", String(picked.has(c)));
          syncInput();
        } }, cardLabel(c)));
    }
  }
  arrowKeys(picker);
  handInput.addEventListener("input", () => {
    picked.clear();
    for (const tok of handInput.value.toUpperCase().split(/[^0-9A-Z]+/)) {
      const c = tok.replace(/^10/, "T");
      if (c.length === 2 && RANKS.includes(c[0]) && SUITS.includes(c[1])) picked.add(c);
    }
    for (const b of picker.querySelectorAll("button")) b.setAttribute("aria-pressed", String(picked.has(b.dataset.card)));
  });
  const avail = document.getElementById("available");
  for (const v of VARIANT_NAMES) {
    avail.append(el("label", {}, el("input", { type: "checkbox", name: "available", value: v, checked: true }), " " + contractLabel(v)));
  }
  form.elements.ruleset.replaceChildren(...config.rulesets.map((r) => el("option", { value: r.name }, r.name)));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const out = document.getElementById("advice-out");
    out.hidden = false;
    out.replaceChildren(el("p", {}, "Simulating\u2026"));
    const available = [...form.querySelectorAll("input[name=available]:checked")].map((i) => i.value);
    const body = { hand: handInput.value, seat: form.elements.seat.value, available,
      trump_used: form.elements.trump_used.checked, deals: form.elements.deals.value,
      seed: form.elements.seed.value, ruleset: form.elements.ruleset.value };
    try {
      showAdvice(await api("POST", "/api/advise", body));
    } catch (err) {
      out.hidden = true;
    }
  });
}

function showAdvice(res) {
  const doc = res.doc;
  const out = document.getElementById("advice-out");
  const rows = doc.variants.map((v) => el("tr", { "data-variant": v.variant },
    el("td", {}, v.rank), el("td", {}, contractLabel(v.variant)), el("td", {}, fmt(v.expected.mean, 2)),
    el("td", {}, fmt(v.average.mean, 2)), el("td", {}, fmt(v.relative.mean, 2)),
    el("td", {}, v.relative.ci95 ? `${fmt(v.relative.ci95[0], 2)} \u2026 ${fmt(v.relative.ci95[1], 2)}` : "\u2013")));
  out.replaceChildren(el("h2", { id: "advice-title" }, doc.recommendation),
    el("div", { class: "scroll" }, el("table", { id: "advice-table" },
      el("tr", {}, el("th", {}, "rank"), el("th", {}, "contract"), el("th", {}, "your score"),
        el("th", {}, "its average"), el("th", {}, "relative"), el("th", {}, "95% interval")), rows)),
    adviceChart(doc),
    el("details", {}, el("summary", {}, "As bonken-sim advise prints it"), el("pre", { id: "advice-text" }, res.text.join("\n"))));
}

// Horizontal bars of each contract's relative value with its 95% interval.
function adviceChart(doc) {
  const ns = "http://www.w3.org/2000/svg";
  const rows = doc.variants;
  const W = 360, rowH = 18, left = 110, top = 6, H = top + rows.length * rowH + 20;
  const lo = Math.min(0, ...rows.map((r) => (r.relative.ci95 ? r.relative.ci95[0] : r.relative.mean)));
  const hi = Math.max(0, ...rows.map((r) => (r.relative.ci95 ? r.relative.ci95[1] : r.relative.mean)));
  const x = (v) => left + ((v - lo) / (hi - lo || 1)) * (W - left - 10);
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("width", "100%");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "relative value of each contract with its 95% interval");
  svg.id = "advice-chart";
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
  };
  add("line", { x1: x(0), x2: x(0), y1: top, y2: H - 18, stroke: "#888" });
  rows.forEach((r, i) => {
    const y = top + i * rowH;
    const m = r.relative.mean;
    add("text", { x: 2, y: y + 12 }, r.variant);
    add("rect", { x: Math.min(x(0), x(m)), y: y + 3, width: Math.max(1, Math.abs(x(m) - x(0))), height: rowH - 6,
      fill: m >= 0 ? "#1d5e3a" : "#c0182b", opacity: 0.75 });
    if (r.relative.ci95) add("line", { x1: x(r.relative.ci95[0]), x2: x(r.relative.ci95[1]), y1: y + rowH / 2, y2: y + rowH / 2, stroke: "#000" });
  });
  add("text", { x: x(lo), y: H - 4 }, lo.toFixed(0));
  add("text", { x: x(hi) - 20, y: H - 4 }, hi.toFixed(0));
  return svg;
}

window.setupExtra = function (config) {
  setupAdvice(config);
  setupRun(config);
};

// An opened run: a deal (or a game's deal) and its replay in any contract.
function setupRun(config) {
  const info = config.run;
  if (!info) return;
  document.getElementById("run-tab").hidden = false;
  const form = document.getElementById("run-form");
  const games = info.kind === "games";
  document.getElementById("run-title").textContent = (games ? "Game run " : "Run ") + info.path;
  document.getElementById("run-about").textContent = games
    ? `${info.count} games of seed ${info.seed}, players ${info.players.join(", ")}, rules ${info.ruleset.name}.`
    : `${info.count} deals of seed ${info.seed}, strategies ${info.strategies.join(", ")}, dealer ${info.dealer}, rules ${info.ruleset.name}.`;
  document.getElementById("run-index-label").textContent = games ? "Game" : "Deal";
  document.getElementById("run-k-label").hidden = !games;
  const variants = games ? [""].concat(VARIANT_NAMES) : info.contracts;
  form.elements.variant.replaceChildren(...variants.map((v) => el("option", { value: v }, v ? contractLabel(v) : "as chosen in the game")));
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams({ variant: form.elements.variant.value });
    q.set(games ? "game" : "deal", form.elements.index.value);
    if (games) q.set("k", form.elements.k.value);
    const r = await api("GET", "/api/run/deal?" + q.toString());
    const out = document.getElementById("run-out");
    out.hidden = false;
    const rows = games
      ? r.rows.map((x) => el("tr", { "data-k": x.deal }, el("td", {}, x.deal + 1), el("td", {}, contractLabel(x.variant)),
          el("td", {}, x.raw.join(" / ")), el("td", {}, x.final.join(" / ")),
          el("td", {}, x.doubles.map(([a, b]) => `${a}\u2192${b}`).join(" "))))
      : r.rows.map((x) => el("tr", { "data-variant": x.variant }, el("td", {}, contractLabel(x.variant)), el("td", {}, x.scores.join(" / "))));
    const head = games
      ? el("tr", {}, el("th", {}, "deal"), el("th", {}, "contract"), el("th", {}, "raw"), el("th", {}, "settled"), el("th", {}, "doubles"))
      : el("tr", {}, el("th", {}, "contract"), el("th", {}, "scores (seats 0-3)"));
    out.replaceChildren(el("div", { class: "scroll" }, el("table", { id: "run-rows" }, head, rows)), replayView(r.replay));
  });
}
