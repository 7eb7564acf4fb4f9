// The table: a new game, the cards, the dialogs of choice and doubling, the score sheet,
// hints and the review. The server holds the game; the page shows its public state.
"use strict";

const params = new URLSearchParams(location.search);
// fast=1: no pause between the computer's cards (the browser tests use it)
const FAST = params.get("fast") === "1";
const STEP_MS = 450, TRICK_MS = 900;

let config = null;
let game = null;           // the public state of the game on screen
let shown = 0;             // plays of the current deal on screen (the rest are being shown)
let shownDeal = -1;
window.animating = false;

function seatName(s) {
  if (!game) return "seat " + s;
  return s === game.you ? "You" : "Seat " + s + " (" + game.players[s] + ")";
}
function shortName(s) { return game && s === game.you ? "you" : "seat " + s; }
function position(s) { return ["bottom", "left", "top", "right"][(s - game.you + 4) % 4]; }

// ---------------------------------------------------------------- a new game
function fillNewGameForm() {
  const form = document.getElementById("new-game");
  for (let s = 0; s < 4; s++) {
    const sel = form.elements["p" + s];
    sel.replaceChildren(...config.profiles.map((p) => el("option", { value: p, selected: p === "basic" }, p)));
  }
  const rules = form.elements.ruleset;
  const dflt = config.default_ruleset.name;
  const names = config.rulesets.map((r) => r.name);
  const opts = names.includes(dflt) ? [] : [el("option", { value: "" }, dflt + " (the server's)")];
  rules.replaceChildren(...opts, ...config.rulesets.map((r) =>
    el("option", { value: r.name, title: r.summary, selected: r.name === dflt }, r.name)));
  const syncSeats = () => {
    const you = Number(form.elements.you.value);
    for (let s = 0; s < 4; s++) {
      const lab = form.querySelector(`label[data-seat="${s}"]`);
      lab.hidden = s === you;
    }
  };
  form.elements.you.addEventListener("change", syncSeats);
  syncSeats();
}

async function listSavedGames() {
  const box = document.getElementById("saved-games");
  const games = await api("GET", "/api/games");
  box.replaceChildren();
  if (!games.length) return;
  box.append(el("h3", {}, "Saved games"));
  const ul = el("ul");
  for (const g of games.slice(0, 10)) {
    const what = g.over ? "finished" : "deal " + g.deal + " of 11";
    ul.append(el("li", {}, el("a", { href: "#game=" + g.id }, g.id), ` ${g.ruleset}, ${what}, totals ${g.totals.join(" / ")}`));
  }
  box.append(ul);
}

async function startGame(ev) {
  ev.preventDefault();
  const form = ev.target;
  const you = Number(form.elements.you.value);
  const players = [0, 1, 2, 3].map((s) => (s === you ? "you" : form.elements["p" + s].value));
  const body = { you, players, ruleset: form.elements.ruleset.value || null,
    rules: form.elements.rules.value || null, seed: form.elements.seed.value || null };
  const state = await api("POST", "/api/games", body);
  location.hash = "game=" + state.id;
  setGame(state, true);
}

function showNewGame() {
  document.getElementById("game").hidden = true;
  document.getElementById("new-game").hidden = false;
  listSavedGames().catch(() => {});
}

// ---------------------------------------------------------------- receiving a state
function setGame(state, fresh) {
  const sameDeal = game && game.id === state.id && state.deal.k === shownDeal;
  game = state;
  document.getElementById("new-game").hidden = true;
  document.getElementById("game").hidden = false;
  document.getElementById("trace-link").href = "/api/games/" + game.id + "/trace";
  if (fresh || !sameDeal || FAST) {
    shownDeal = state.deal.k;
    shown = FAST || fresh ? state.deal.plays.length : 0;
  }
  document.getElementById("hint").hidden = true;
  animate();
}

async function animate() {
  const total = game.deal.plays.length;
  if (shown >= total || window.animating) { render(); return; }
  window.animating = true;
  busy(0);
  const myId = game.id;
  while (shown < total && game && game.id === myId) {
    shown += 1;
    render();
    const trickDone = !game.deal.domino && shown % 4 === 0;
    await new Promise((r) => setTimeout(r, trickDone ? TRICK_MS : STEP_MS));
  }
  window.animating = false;
  busy(0);
  render();
}

// ---------------------------------------------------------------- drawing
function render() {
  const d = game.deal;
  const upto = shown;
  const plays = d.plays.slice(0, upto);
  const tricks = d.tricks.filter((t, i) => (i + 1) * 4 <= upto);
  const settled = !window.animating;
  const turn = settled ? game.turn : { kind: "wait", seat: -1 };
  document.body.dataset.turn = turn.kind;
  renderStatus(turn);
  renderSeats(d, plays, tricks, turn);
  renderCentre(d, plays, tricks);
  renderHand(d, turn, plays);
  renderDialog(turn);
  renderSheet();
  renderLog(d, plays);
  document.getElementById("hint-btn").disabled = !(settled && turn.seat === game.you &&
    ["choose", "double", "play"].includes(turn.kind));
}

function renderStatus(turn) {
  const d = game.deal;
  const box = document.getElementById("status");
  const bits = [`Deal ${d.k + 1} of 11`, `dealer ${shortName(d.dealer)}`];
  if (d.contract) bits.push(contractLabel(d.contract));
  else bits.push(`${shortName(d.chooser)} chooses`);
  const dbl = d.doubles.map(([a, b]) => `${shortName(a)} doubled ${shortName(b)}`);
  if (dbl.length) bits.push(dbl.join(", "));
  let say = "";
  if (game.over) say = "The game is over.";
  else if (turn.kind === "wait") say = "";
  else if (turn.seat === game.you) say = { choose: "Your choice of contract.", double: "Your turn to double.",
    play: d.trick.length === 0 && !d.domino ? "Your lead." : "Your turn to play.", next: "The deal is over." }[turn.kind];
  else say = `Waiting for ${shortName(turn.seat)}.`;
  box.replaceChildren(el("span", {}, bits.join(" \u00b7 ")), el("strong", { id: "turn", "data-kind": turn.kind }, " " + say));
}

function renderSeats(d, plays, tricks, turn) {
  for (let s = 0; s < 4; s++) {
    const box = document.querySelector(`.seat[data-pos="${position(s)}"]`);
    const roles = [];
    if (s === d.dealer) roles.push("dealer");
    if (s === d.chooser) roles.push("chooser");
    if (s === d.leader) roles.push("leads");
    const left = 13 - plays.filter(([q, c]) => q === s && c !== "pass").length;
    const taken = tricks.filter((t) => t.winner === s);
    const pts = taken.reduce((a, t) => a + t.points, 0);
    const doubled = d.doubles.filter(([a]) => a === s).map(([, b]) => shortName(b));
    box.dataset.seat = s;
    box.classList.toggle("to-act", turn.seat === s && turn.kind !== "next");
    box.replaceChildren(
      el("div", { class: "name" }, seatName(s)),
      el("div", { class: "roles" }, roles.join(", ")),
      el("div", { class: "meta" }, d.domino ? `${left} cards` : `${left} cards \u00b7 ${taken.length} tricks \u00b7 ${pts} pts`),
      el("div", { class: "meta" }, doubled.length ? "doubled " + doubled.join(", ") : ""),
      el("div", { class: "total" }, "total " + game.totals[s]));
  }
}

function renderCentre(d, plays, tricks) {
  const trickBox = document.getElementById("trick");
  const rows = document.getElementById("domino-rows");
  const last = document.getElementById("last-trick");
  trickBox.replaceChildren();
  rows.hidden = !d.domino;
  trickBox.hidden = d.domino;
  if (d.domino) {
    const laid = plays.filter(([, c]) => c !== "pass").map(([, c]) => c);
    rows.replaceChildren(...["S", "H", "D", "C"].map((s) => {
      const ranks = laid.filter((c) => c[1] === s).map(cardRank).sort((a, b) => a - b);
      const txt = ranks.length ? `${cardLabel(RANKS[ranks[0]] + s)} \u2026 ${cardLabel(RANKS[ranks[ranks.length - 1]] + s)}` : "\u2013";
      return el("div", { class: "row" + (isRed("x" + s) ? " red" : "") }, SUIT_SYMBOL[s] + " " + txt);
    }));
    const recent = plays.slice(-4).map(([q, c]) => `${shortName(q)} ${c === "pass" ? "passes" : cardLabel(c)}`);
    last.textContent = recent.join(" \u00b7 ");
    return;
  }
  const inTrick = plays.slice(plays.length - (plays.length % 4));
  const showLast = inTrick.length === 0 && tricks.length > 0;
  const current = showLast ? plays.slice(-4) : inTrick;
  for (const [s, c] of current) {
    trickBox.append(el("div", { class: "played", "data-pos": position(s), "data-seat": s }, cardSpan(c)));
  }
  if (tricks.length) {
    const t = tricks[tricks.length - 1];
    last.textContent = `Trick ${tricks.length}: ${shortName(t.winner)} took it (${t.points} pts)`;
    last.dataset.winner = t.winner;
  } else {
    last.textContent = "";
  }
}

function renderHand(d, turn, plays) {
  const box = document.getElementById("hand");
  const held = d.hand;
  // while the computer's cards are being shown, the hand is as it was then
  const mine = plays.filter(([q, c]) => q === game.you && c !== "pass").map(([, c]) => c);
  const laterMine = d.plays.slice(plays.length).filter(([q]) => q === game.you).map(([, c]) => c);
  const cards = sortHand(held.concat(laterMine.filter((c) => c !== "pass" && !mine.includes(c))));
  const canPlay = turn.kind === "play" && turn.seat === game.you;
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.card : null;
  box.replaceChildren(...cards.map((c) => {
    const legal = canPlay && game.legal.includes(c);
    return el("button", { type: "button", class: "card" + (isRed(c) ? " red" : "") + (legal ? " legal" : ""),
      "data-card": c, disabled: !legal, "aria-label": cardLabel(c) + (legal ? "" : " (not playable now)"),
      onclick: () => playCard(c) }, cardLabel(c));
  }));
  if (focused) {
    const again = box.querySelector(`button[data-card="${focused}"]:not([disabled])`);
    if (again) again.focus();
  } else if (canPlay && document.activeElement === document.body) {
    const first = box.querySelector("button:not([disabled])");
    if (first) first.focus({ preventScroll: true });
  }
}

function renderDialog(turn) {
  const box = document.getElementById("dialog");
  const d = game.deal;
  box.replaceChildren();
  box.hidden = true;
  if (game.over) {
    const best = Math.max(...game.totals);
    const who = game.winners.map(shortName).join(" and ");
    box.append(el("h2", { id: "game-over" }, game.winners.includes(game.you) ? "You win!" : `The winner: ${who}`),
      el("p", {}, `Totals: ${game.totals.map((t, s) => `${shortName(s)} ${t}`).join(", ")} (highest ${best}).`),
      el("button", { type: "button", class: "primary", onclick: () => showReview(null) }, "Review the game"),
      " ", el("button", { type: "button", onclick: showNewGame }, "New game"));
    box.hidden = false;
    return;
  }
  if (turn.seat !== game.you) return;
  if (turn.kind === "choose") {
    box.append(el("h2", {}, "Choose the contract"),
      el("div", { class: "choices" }, game.legal.map((v) => el("button", { type: "button", class: "choice", "data-contract": v,
        onclick: () => act("choose", { contract: v }) }, contractLabel(v)))));
    box.hidden = false;
  } else if (turn.kind === "double") {
    const said = d.doubles.length ? "Said so far: " + d.doubles.map(([a, b]) => `${shortName(a)} doubled ${shortName(b)}`).join(", ") : "Nobody has doubled yet.";
    const boxes = game.legal.map((t) => el("label", { class: "check" },
      el("input", { type: "checkbox", name: "target", value: t }), " " + seatName(t)));
    box.append(el("h2", {}, `Double? (${contractLabel(d.contract)})`), el("p", {}, said),
      el("div", { class: "choices" }, boxes),
      el("button", { type: "button", class: "primary", id: "double-go", onclick: () => {
        const targets = [...box.querySelectorAll("input[name=target]:checked")].map((i) => Number(i.value));
        act("double", { targets });
      } }, "Done"));
    box.hidden = false;
  } else if (turn.kind === "next") {
    const row = game.sheet[game.sheet.length - 1];
    box.append(el("h2", { id: "deal-over" }, `Deal ${d.k + 1} is over: ${contractLabel(d.contract)}`),
      el("p", {}, `Scores: ${row.final.map((f, s) => `${shortName(s)} ${f}`).join(", ")}`),
      el("button", { type: "button", onclick: () => showReview(d.k) }, "Review this deal"), " ",
      el("a", { href: `/api/games/${game.id}/trace?deal=${d.k}`, download: true }, "Download this deal"), " ",
      el("button", { type: "button", class: "primary", id: "next-deal", onclick: () => act("next", {}) }, "Next deal"));
    box.hidden = false;
  }
}

function renderSheet() {
  const t = document.getElementById("sheet");
  const head = el("tr", {}, el("th", {}, "Deal"), el("th", {}, "Contract"),
    [0, 1, 2, 3].map((s) => el("th", { colspan: 2 }, s === game.you ? "You" : "Seat " + s)), el("th", {}, "Doubles"));
  const sub = el("tr", {}, el("th"), el("th"), [0, 1, 2, 3].map(() => [el("th", {}, "raw"), el("th", {}, "settled")]), el("th"));
  const rows = game.sheet.map((r) => el("tr", { "data-k": r.k },
    el("td", {}, r.k + 1), el("td", {}, contractLabel(r.contract) + ` (${shortName(r.chooser)})`),
    [0, 1, 2, 3].map((s) => [el("td", { "data-seat": s, "data-kind": "raw" }, r.raw[s]),
      el("td", { "data-seat": s, "data-kind": "final", class: r.final[s] !== r.raw[s] ? "moved" : null }, r.final[s])]),
    el("td", {}, r.transfers.map((x) => `${shortName(x.seats[0])}\u2013${shortName(x.seats[1])} \u00d7${x.m}: ${fmt(x.moved, 0)}`).join("; "))));
  const tot = el("tr", { class: "totals" }, el("th", {}, ""), el("th", {}, "Totals"),
    [0, 1, 2, 3].map((s) => el("td", { colspan: 2, "data-seat": s, "data-kind": "total" }, game.totals[s])), el("td"));
  t.replaceChildren(el("thead", {}, head, sub), el("tbody", {}, rows), el("tfoot", {}, tot));
}

function renderLog(d, plays) {
  const log = document.getElementById("log");
  const items = [];
  if (d.contract) items.push(`${shortName(d.chooser)} chose ${contractLabel(d.contract)}`);
  for (const [a, b] of d.doubles) items.push(`${shortName(a)} doubled ${shortName(b)}`);
  for (const [s, c] of plays) items.push(`${shortName(s)} ${c === "pass" ? "passed" : "played " + cardLabel(c)}`);
  log.replaceChildren(...items.map((x) => el("li", {}, x)));
}

// ---------------------------------------------------------------- acting
async function act(action, body) {
  if (window.animating) return;
  const state = await api("POST", `/api/games/${game.id}/${action}`, body);
  setGame(state, false);
}
function playCard(c) { return act("play", { card: c }); }

// ---------------------------------------------------------------- hints
function interval(ci, digits = 1) { return ci ? `${fmt(ci[0], digits)} \u2026 ${fmt(ci[1], digits)}` : "\u2013"; }

async function showHint() {
  const h = await api("GET", `/api/games/${game.id}/hint`);
  const box = document.getElementById("hint");
  box.replaceChildren(el("h2", {}, "Hint"));
  if (h.kind === "play") {
    if (h.forced) box.append(el("p", {}, "You have one legal card."));
    box.append(el("p", {}, `The expert (${h.samples} deals sampled from what you can see) plays `, cardSpan(h.expert), "."));
    const rows = h.options.map((o) => el("tr", { class: o.option === h.expert ? "best" : null, "data-option": o.option },
      el("td", {}, cardSpan(o.option)), el("td", {}, fmt(o.value, 2)),
      el("td", {}, interval(o.ci95, 2))));
    box.append(el("table", { class: "hint-table" }, el("tr", {}, el("th", {}, "card"), el("th", {}, "your expected score"),
      el("th", {}, "95% interval")), rows),
      el("p", { class: "note" }, "Intervals: of the card's own mean for the expert's reference card, of each other card's difference from it (paired on the same samples) for the rest."));
  } else if (h.kind === "choose") {
    box.append(el("p", {}, `The expert chooses ${contractLabel(h.expert)}. Each open contract's expected score for you, over deals sampled to fit your hand and played out:`));
    box.append(el("table", { class: "hint-table" }, el("tr", {}, el("th", {}, "contract"), el("th", {}, "your expected score"),
      el("th", {}, "95% interval")),
      h.options.map((o) => el("tr", { class: o.option === h.expert ? "best" : null, "data-option": o.option },
        el("td", {}, contractLabel(o.option)), el("td", {}, fmt(o.value, 1)), el("td", {}, interval(o.ci95))))));
  } else {
    const who = h.expert.length ? h.expert.map(shortName).join(", ") : "nobody";
    box.append(el("p", {}, `The expert doubles ${who}. A double moves the difference of your two scores to you: its mean over deals sampled to fit your hand and played out:`));
    box.append(el("table", { class: "hint-table" }, el("tr", {}, el("th", {}, "seat"), el("th", {}, "your score minus theirs"),
      el("th", {}, "95% interval")),
      h.options.map((o) => el("tr", { "data-option": o.option }, el("td", {}, seatName(o.option)), el("td", {}, fmt(o.value, 1)),
        el("td", {}, interval(o.ci95))))));
  }
  box.hidden = false;
}

// ---------------------------------------------------------------- review
function decisionText(it) {
  if (it.kind === "play") return [(it.trick ? `trick ${it.trick}` : `turn ${it.at + 1}`) + ": you ", cardSpan(it.yours), ", expert ", cardSpan(it.expert)];
  if (it.kind === "choose") return [`choice: you ${contractLabel(it.yours)}, expert ${contractLabel(it.expert)}`];
  const s = (xs) => (xs.length ? xs.map(shortName).join(", ") : "nobody");
  return [`doubles: you ${s(it.yours)}, expert ${s(it.expert)}`];
}

async function showReview(k) {
  const box = document.getElementById("review");
  box.hidden = false;
  box.replaceChildren(el("p", {}, "Weighing your decisions\u2026"));
  const q = k === null ? "all" : String(k);
  const r = await api("GET", `/api/games/${game.id}/review?deal=${q}`);
  const decisions = r.decisions;
  box.replaceChildren(el("h2", { id: "review-title" }, k === null ? "Review of the game" : `Review of deal ${k + 1}`),
    el("p", {}, `Expected cost of your decisions against the expert's: ${fmt(r.cost, 1)} points in all (largest first).`));
  const rows = decisions.map((it) => el("tr", { class: "review-row", "data-kind": it.kind },
    el("td", {}, it.deal + 1), el("td", {}, decisionText(it)), el("td", {}, fmt(it.cost, 2)),
    el("td", {}, it.ci95 ? `${fmt(it.ci95[0], 2)} \u2026 ${fmt(it.ci95[1], 2)}` : "model value")));
  box.append(el("div", { class: "scroll" }, el("table", { class: "review-table" },
    el("tr", {}, el("th", {}, "deal"), el("th", {}, "decision"), el("th", {}, "cost"), el("th", {}, "95% interval")), rows)));
  const replays = k === null ? r.deals.map((x) => x.replay) : [r.replay];
  for (const rp of replays) box.append(replayView(rp));
  box.scrollIntoView({ block: "nearest" });
}

// A finished deal, trick by trick, with all four hands as they were before each trick.
function replayView(d) {
  const wrap = el("div", { class: "replay", "data-k": d.k });
  let step = 0;
  const steps = d.domino ? d.plays.length : d.tricks.length;
  const draw = () => {
    const upto = d.domino ? step : step * 4;
    const hands = [0, 1, 2, 3].map((s) => {
      const gone = d.plays.slice(0, upto).filter(([q]) => q === s).map(([, c]) => c);
      return sortHand(d.hands[s].filter((c) => !gone.includes(c)));
    });
    const shownTrick = d.domino ? d.plays.slice(Math.max(0, step - 4), step) : (d.tricks[step - 1] ? d.tricks[step - 1].seats.map((s, i) => [s, d.tricks[step - 1].cards[i]]) : []);
    const t = d.tricks[step - 1];
    wrap.replaceChildren(
      el("h3", {}, `Deal ${d.k + 1}: ${contractLabel(d.contract)}`),
      el("div", { class: "replay-hands" }, hands.map((h, s) => el("div", { class: "replay-hand", "data-seat": s },
        el("strong", {}, seatName(s) + ": "), h.map((c) => cardSpan(c)), h.length ? "" : "\u2013"))),
      el("p", {}, step === 0 ? "Before the first card." : (d.domino ? `Turn ${step}: ` : `Trick ${step}: `),
        shownTrick.map(([s, c]) => [shortName(s) + " ", cardSpan(c), "  "]),
        t && !d.domino ? ` \u2192 ${shortName(t.winner)} (${t.points} pts)` : ""),
      el("div", { class: "stepper" },
        el("button", { type: "button", disabled: step === 0, onclick: () => { step -= 1; draw(); } }, "\u2190 back"),
        ` ${step} / ${steps} `,
        el("button", { type: "button", class: "next-trick", disabled: step === steps, onclick: () => { step += 1; draw(); } }, "forward \u2192")),
      el("p", {}, `Raw ${d.raw.join(" / ")}; settled ${d.final.join(" / ")}`));
  };
  draw();
  return wrap;
}

// ---------------------------------------------------------------- start
async function loadGameFromHash() {
  const m = location.hash.match(/game=([0-9a-f]{12})/);
  if (!m) { showNewGame(); return; }
  try {
    setGame(await api("GET", "/api/games/" + m[1]), true);
  } catch (err) {
    showNewGame();
  }
}

async function main() {
  config = await api("GET", "/api/config");
  fillNewGameForm();
  document.getElementById("new-game").addEventListener("submit", startGame);
  document.getElementById("hint-btn").addEventListener("click", showHint);
  document.getElementById("review-game-btn").addEventListener("click", () => showReview(null));
  document.getElementById("new-game-btn").addEventListener("click", () => { location.hash = ""; showNewGame(); });
  arrowKeys(document.getElementById("hand"));
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => showView(tab.dataset.view));
  window.addEventListener("hashchange", loadGameFromHash);
  if (window.setupExtra) window.setupExtra(config);
  await loadGameFromHash();
  document.body.dataset.ready = "1";
}
// After every script of the page has run: main() reads extra.js's setupExtra once the
// configuration has arrived, and a reply faster than extra.js's own load left the advice
// page without its card picker.
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", main);
else main();
